// The sessions of a project, from their manifests: what `list` reads, in a module of its own so that `list`
// loads neither the recovery scan nor the store (and through them the redaction rules: 76 KB of code it never
// ran, 1.57x -> 1.43x `node -e 0` at start-up, bench/cli.bench.ts). Re-exported by ./archive.ts.
import { closeSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { readConfig } from "../archive/config.ts";
import { openForScan, parseEventLine, scanLines } from "../archive/line-scan.ts";
import { sessionLiveness } from "../archive/liveness.ts";
import type { ManifestWithCounters } from "../archive/manifest-counters.ts";
import {
  defaultSessionRoot,
  isInside,
  resolveSessionRoot,
  SESSION_FILES,
  tapedeckDir,
} from "../archive/paths.ts";
import type { Manifest } from "../archive/schemas.ts";
import { summarizeSpool } from "../archive/spool.ts";
import { applyLineToState, type SessionState } from "../archive/state-fold.ts";
import { ensureRealDirUnder, lstatOrUndefined, readDirEntries, readJsonOrUndefined } from "../base/fsutil.ts";

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
export function isRealDir(projectRoot: string, dir: string): boolean {
  if (!isInside(projectRoot, dir)) return lstatOrUndefined(dir)?.isDirectory() === true;
  try {
    return ensureRealDirUnder(projectRoot, dir, false);
  } catch {
    return false;
  }
}

/**
 * The names of the session directories of a root; none when it cannot be listed. Entry types come with the
 * listing (no lstat per session); a symlink is never a session. Names, not paths: a caller builds its own.
 */
export function sessionDirNames(root: string): string[] {
  return readDirEntries(root)
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
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
  return listSessionsIn(sessionRoots(projectRoot, provider), provider);
}

/** The sessions of the given session roots, newest first (listSessions' rules, for roots found elsewhere). */
export function listSessionsIn(roots: readonly string[], provider?: string): SessionRef[] {
  const out: SessionRef[] = [];
  for (const root of roots) {
    for (const name of sessionDirNames(root)) {
      const dir = join(root, name);
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
