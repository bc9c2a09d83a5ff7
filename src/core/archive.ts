// Finding sessions, summarizing them, and exporting their redacted records.
import { closeSync, type Dirent, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { readConfig } from "./config.ts";
import { ensureRealDirUnder, lstatOrUndefined, readJsonOrUndefined } from "./fsutil.ts";
import { storedId } from "./identity.ts";
import type { ManifestWithCounters } from "./manifest-counters.ts";
import { defaultSessionRoot, isInside, resolveSessionRoot, SESSION_FILES, tapedeckDir } from "./paths.ts";
import { type RecoverResult, recoverSession, sessionLiveness, verifyChecksums } from "./recovery.ts";
import { openForScan, parseEventLine, scanLines } from "./scan.ts";
import type { Envelope, Manifest } from "./schemas.ts";
import { type SpoolSummary, summarizeSpool } from "./spool.ts";
import { applyLineToState, type SessionState } from "./store.ts";

export interface SessionRef {
  dir: string;
  root: string;
  /** The manifest, its counters brought up to date with the file when a writer died before refreshing them. */
  manifest: Manifest;
  /** Events waiting in the spool (pending/) for the next writer or `tapedeck repair`; 0 when none. */
  spooled_events: number;
}

/** A manifest (or state file) is a few KB; the bound only keeps a planted huge file from being read. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** Every session root of a project: the default ones under .tapedeck and any configured elsewhere. */
export function sessionRoots(projectRoot: string, provider?: string): string[] {
  const roots = new Set<string>();
  const base = tapedeckDir(projectRoot);
  for (const name of safeReaddir(base)) {
    if (!name.endsWith("-sessions")) continue;
    const p = name.slice(0, -"-sessions".length);
    if (provider && p !== provider) continue;
    roots.add(join(base, name));
  }
  // Listing through a symlinked .tapedeck would show (and let `delete` remove) another directory's sessions.
  if (!isRealDir(projectRoot, base)) roots.clear();
  const config = readConfig(projectRoot);
  for (const [p, c] of Object.entries(config?.providers ?? {})) {
    if (provider && p !== provider) continue;
    try {
      roots.add(resolveSessionRoot(projectRoot, c.session_root, p));
    } catch {
      // an unsafe configured root is reported by `doctor`, not followed here
    }
  }
  if (provider) roots.add(defaultSessionRoot(projectRoot, provider));
  return [...roots].filter((r) => isRealDir(projectRoot, r));
}

/** A directory reached without a symlink from the project down (or, outside the project, not itself a symlink). */
function isRealDir(projectRoot: string, dir: string): boolean {
  if (!isInside(projectRoot, dir)) return lstatOrUndefined(dir)?.isDirectory() === true;
  try {
    return ensureRealDirUnder(projectRoot, dir, false);
  } catch {
    return false;
  }
}

function safeReaddirTyped(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Lists sessions from their manifests alone (no event scan), newest first.
 * An `active` session whose agent is gone is shown as incomplete; the
 * manifest itself is only changed by `repair` or `inspect` of a dead session.
 */
export function listSessions(projectRoot: string, provider?: string): SessionRef[] {
  const out: SessionRef[] = [];
  for (const root of sessionRoots(projectRoot, provider)) {
    // Entry types come with the listing (no lstat per session); a symlink is never a session.
    for (const entry of safeReaddirTyped(root)) {
      if (!entry.isDirectory()) continue;
      const dir = join(root, entry.name);
      const manifest = readJsonOrUndefined<Manifest>(join(dir, SESSION_FILES.manifest), MAX_MANIFEST_BYTES);
      if (manifest?.schema_version !== 1) continue;
      if (provider && manifest.provider !== provider) continue;
      bringCountersUpToDate(dir, manifest);
      const liveness = sessionLiveness(manifest);
      if (manifest.status === "active" && !liveness.live) {
        manifest.status = "incomplete";
        manifest.incomplete_reason = liveness.reason;
      }
      out.push({ dir, root, manifest, spooled_events: spooledEvents(dir) });
    }
  }
  out.sort((a, b) => (b.manifest.started_at ?? "").localeCompare(a.manifest.started_at ?? ""));
  return out;
}

/**
 * The manifest's counters are refreshed at most every 250 ms and not at all
 * by a writer that dies between its append and its commit, so `list` showed
 * "2 events 786 B" where `inspect` counted 3 events and 1.2 KB. One lstat
 * tells whether events.jsonl is still the size the manifest says; only when
 * it is not are the state file (4 KB) and the tail it does not cover read.
 */
function bringCountersUpToDate(dir: string, manifest: Manifest): void {
  const st = lstatOrUndefined(join(dir, SESSION_FILES.events));
  if (!st?.isFile() || Number(st.size) === manifest.byte_count) return;
  const size = Number(st.size);
  const state = readJsonOrUndefined<SessionState>(join(dir, SESSION_FILES.state), MAX_MANIFEST_BYTES);
  const counted: SessionState | undefined = state?.version === 1 && state.size <= size ? state : undefined;
  const view = counted ?? {
    // No usable state: the manifest's own counters, then everything past what they cover.
    version: 1 as const,
    size: Math.min(manifest.byte_count, size),
    next_sequence: 1,
    event_count: manifest.event_count,
    counts: {},
    redaction_count: manifest.redaction_count,
    truncation_count: manifest.truncation_count,
    dropped_count: manifest.dropped_count ?? 0,
    duplicate_count: manifest.duplicate_count ?? 0,
    ended: false,
    epoch: 0,
    last_event_at: manifest.last_event_at ?? null,
  };
  const ended = foldTail(dir, view);
  manifest.event_count = view.event_count;
  // inspect reports the bytes on disk, a torn final line included: so does list.
  manifest.byte_count = size;
  manifest.redaction_count = view.redaction_count;
  manifest.truncation_count = view.truncation_count;
  manifest.last_event_at = view.last_event_at;
  // list's turn and tool-error columns: the state counts every kind, the manifest may lag it.
  if (counted) (manifest as ManifestWithCounters).counts_by_kind = { ...view.counts };
  if (ended === true || (ended === undefined && counted?.ended)) {
    if (manifest.status === "active") {
      manifest.status = "complete";
      manifest.ended_at ??= view.last_event_at;
    }
  }
}

/** Folds complete lines past `state.size`; answers whether the last session_start/session_end seen was an end. */
function foldTail(dir: string, state: SessionState): boolean | undefined {
  let fd: number;
  try {
    fd = openForScan(join(dir, SESSION_FILES.events));
  } catch {
    return undefined;
  }
  let ended: boolean | undefined;
  try {
    scanLines(fd, state.size, (line) => {
      if (!line.terminated) return false;
      const parsed = parseEventLine(line.bytes);
      if (parsed) {
        applyLineToState(state, parsed, line.bytes.length + 1);
        if (parsed.kind === "session_end") ended = true;
        if (parsed.kind === "session_start") ended = false;
      } else state.size += line.bytes.length + 1;
      return true;
    });
  } finally {
    closeSync(fd);
  }
  return ended;
}

function spooledEvents(dir: string): number {
  if (!lstatOrUndefined(join(dir, SESSION_FILES.pending))) return 0;
  return summarizeSpool(dir).events;
}

export class SessionNotFound extends Error {
  override name = "SessionNotFound";
}

/** Resolves a session by archive id, provider id, directory name, or unique prefix of one of them. */
export function findSession(projectRoot: string, query: string, provider?: string): SessionRef {
  const sessions = listSessions(projectRoot, provider);
  if (query === "last" || query === "latest") {
    const latest = sessions[0];
    if (!latest) throw new SessionNotFound("no recorded sessions in this project");
    return latest;
  }
  const keys = (s: SessionRef) => [
    s.manifest.session_id,
    s.manifest.provider_session_id ?? "",
    s.manifest.session_dir,
    relative(projectRoot, s.dir),
  ];
  // A credential-like id is stored as its marker; typing the id itself still finds the session.
  const stored = storedId(query);
  const exact = sessions.filter(
    (s) => keys(s).includes(query) || (stored !== query && keys(s).includes(stored)),
  );
  if (exact.length === 1) return exact[0]!;
  const prefix = sessions.filter((s) => keys(s).some((k) => k?.startsWith(query)));
  if (prefix.length === 1) return prefix[0]!;
  if (prefix.length > 1 || exact.length > 1) {
    throw new SessionNotFound(
      `"${query}" matches ${Math.max(prefix.length, exact.length)} sessions; give more of the id`,
    );
  }
  throw new SessionNotFound(`no session matches "${query}"`);
}

export interface SessionSummary {
  session_id: string;
  provider: string;
  status: Manifest["status"];
  incomplete_reason: string | null;
  mode: string;
  path: string;
  started_at: string;
  ended_at: string | null;
  duration_ms: number | null;
  event_count: number;
  byte_count: number;
  counts_by_kind: Record<string, number>;
  redaction_count: number;
  truncation_count: number;
  dropped_count: number;
  duplicate_count: number;
  torn_line: { present: boolean; removed: boolean; bytes: number } | null;
  malformed_lines: number;
  sequence_anomalies: number;
  checksums: { ok: boolean; reason: string } | null;
  capabilities: string[];
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
    sources: string[];
  };
  manifest: Manifest;
  read_only_reason: string | null;
  /** What waits in the spool (pending/): recorded, not yet appended. */
  spool: SpoolSummary;
  /** Why `tapedeck repair` would help, when it would (torn or malformed lines, a stale seal, a spool). */
  repair_hint: string | null;
}

/**
 * Inspects one session. It repairs only a session that is no longer being
 * written (agent gone or idle); an active session is read and never touched.
 */
export function inspectSession(ref: SessionRef): SessionSummary {
  const live = sessionLiveness(ref.manifest).live;
  // A session nobody writes any more has no later hook to drain its spool: inspect appends it (as repair does).
  const recovered: RecoverResult = recoverSession(ref.dir, {
    write: !live && (ref.manifest.status === "active" || ref.spooled_events > 0),
  });
  const manifest = recovered.manifest ?? ref.manifest;
  const { report, state } = recovered;
  if (manifest.status === "active" && !live) {
    manifest.status = "incomplete";
    manifest.incomplete_reason ??= sessionLiveness(ref.manifest).reason;
  }
  const spool = summarizeSpool(ref.dir);
  const started = Date.parse(manifest.started_at);
  const endIso = manifest.ended_at ?? recovered.lastTimestamp;
  const ended = endIso ? Date.parse(endIso) : Number.NaN;
  const summary: SessionSummary = {
    session_id: manifest.session_id,
    provider: manifest.provider,
    status: manifest.status,
    incomplete_reason: manifest.incomplete_reason ?? null,
    mode: manifest.recording_mode,
    path: ref.dir,
    started_at: manifest.started_at,
    ended_at: manifest.ended_at,
    duration_ms: Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, ended - started) : null,
    event_count: state.event_count,
    byte_count: report.bytes_scanned,
    counts_by_kind: recovered.countsByKind,
    redaction_count: state.redaction_count,
    truncation_count: state.truncation_count,
    dropped_count: manifest.dropped_count ?? 0,
    duplicate_count: manifest.duplicate_count ?? 0,
    torn_line: report.torn_tail
      ? { present: true, removed: recovered.readOnlyReason === null, bytes: report.torn_tail.bytes }
      : null,
    malformed_lines: report.malformed_lines.length,
    sequence_anomalies: report.duplicate_sequences.length + report.non_monotonic_sequences.length,
    checksums: manifest.status === "complete" || report.resealed ? verifyChecksums(ref.dir) : null,
    capabilities: manifest.capabilities,
    usage: recovered.usage,
    manifest,
    read_only_reason: recovered.readOnlyReason,
    spool,
    repair_hint: null,
  };
  summary.repair_hint = repairHint(summary, live);
  return summary;
}

function repairHint(s: SessionSummary, live: boolean): string | null {
  const reasons: string[] = [];
  if (s.torn_line && !s.torn_line.removed) reasons.push("a torn final line");
  if (s.malformed_lines > 0) reasons.push(`${s.malformed_lines} malformed line(s) to report`);
  if (s.checksums && !s.checksums.ok)
    reasons.push(`a checksum that no longer matches (${s.checksums.reason})`);
  if (s.spool.events > 0) {
    reasons.push(
      `${s.spool.events} event(s) waiting in the spool${s.spool.ends_session ? ", the session's end among them" : ""}`,
    );
  }
  if (reasons.length === 0) return null;
  const id = s.manifest.provider_session_id ?? s.session_id;
  return `${reasons.join("; ")}: run tapedeck repair ${id}${live ? " (it takes the writer lock; the agent keeps running)" : ""}`;
}

/** Valid envelopes in sequence order; malformed lines are skipped and counted. */
export function readEvents(dir: string): { events: Envelope[]; skipped: number } {
  const events: Envelope[] = [];
  let skipped = 0;
  let fd: number;
  try {
    fd = openForScan(join(dir, SESSION_FILES.events));
  } catch {
    return { events, skipped };
  }
  try {
    scanLines(fd, 0, (line) => {
      if (!line.terminated) {
        skipped += 1;
        return true;
      }
      if (parseEventLine(line.bytes)) events.push(JSON.parse(line.bytes.toString("utf8")) as Envelope);
      else skipped += 1;
      return true;
    });
  } finally {
    closeSync(fd);
  }
  events.sort((a, b) => a.sequence - b.sequence);
  return { events, skipped };
}

export function deleteSession(ref: SessionRef): void {
  const st = lstatOrUndefined(ref.dir);
  if (!st || st.isSymbolicLink() || !st.isDirectory()) throw new SessionNotFound("session directory is gone");
  if (dirname(ref.dir) !== ref.root) throw new SessionNotFound("refusing to delete outside a session root");
  rmSync(ref.dir, { recursive: true, force: true });
}
