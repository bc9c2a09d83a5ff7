// Finding sessions, summarizing them, and exporting their redacted records.
import { closeSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { openForScan, parseEventLine, scanLines } from "../archive/line-scan.ts";
import { sessionLiveness } from "../archive/liveness.ts";
import { SESSION_FILES } from "../archive/paths.ts";
import { type RecoverResult, recoverSession, verifyChecksums } from "../archive/recovery.ts";
import type { Envelope, Manifest } from "../archive/schemas.ts";
import { type SpoolSummary, summarizeSpool } from "../archive/spool.ts";
import { lstatOrUndefined, readJsonOrUndefined } from "../base/fsutil.ts";
import { processExists } from "../base/pids.ts";
import type { SessionRef } from "./session-list.ts";
import { resolveSession, SessionNotFoundError as SessionNotFound } from "./session-resolve.ts";

// The listing lives in ./session-list.ts so that `list` loads it alone; its importers keep this module's name.
export { listSessions, type SessionRef, sessionRoots } from "./session-list.ts";

export { SessionNotFound };

/**
 * A session of this project's own recordings, by the resolver's rules (./session-resolve.ts): for callers
 * that name a recording (the demo, a scenario's source); commands take a SESSION through the CLI's scope.
 */
export function findSession(projectRoot: string, query: string, provider?: string): SessionRef {
  return resolveSession({ project: projectRoot, provider, runs: false }, query);
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
  /** A `tapedeck import` of the session was stopped part-way (killed, Ctrl-C, a full disk): when it started. */
  import_interrupted: { started_at: string } | null;
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
  const importRun = importInProgress(ref.dir);
  if (importRun) {
    manifest.status = "incomplete";
    manifest.incomplete_reason = importRun.running
      ? `being imported (tapedeck import, pid ${importRun.pid})`
      : `import interrupted (started ${importRun.started_at}): run tapedeck import ${manifest.provider} again to resume it`;
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
    import_interrupted: importRun && !importRun.running ? { started_at: importRun.started_at } : null,
  };
  summary.repair_hint = repairHint(summary, live);
  return summary;
}

/**
 * `tapedeck import` marks its cursor in progress before a run's first append and clears the mark with the
 * run's last write (src/import/cursor.ts): a mark whose process is gone is a run stopped part-way.
 */
function importInProgress(dir: string): { started_at: string; pid: number; running: boolean } | null {
  const cursor = readJsonOrUndefined<{ in_progress?: { started_at?: unknown; pid?: unknown } }>(
    join(dir, SESSION_FILES.importCursor),
    4 * 1024 * 1024,
  );
  const progress = cursor?.in_progress;
  const started = progress?.started_at;
  if (typeof started !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(started)) return null;
  const pid = Number.isSafeInteger(progress?.pid) ? (progress?.pid as number) : 0;
  return { started_at: started, pid, running: pid > 0 && pid !== process.pid && processExists(pid) };
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
