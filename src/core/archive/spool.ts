// The spool: a session's `pending/` directory, where a writer that could not
// get the lock leaves its prepared (already redacted and bounded) events for
// the next lock holder. One JSON array per batch, named so that names sort in
// the order hooks ran.
//
// The spool lives in a directory a cloned repository could have planted, so
// it is never used through a symlink (a symlinked `pending/` once had the
// drain delete a project's package.json), only regular `*.json` files are read
// (bounded), and a file that is not a batch of events is set aside as
// `*.rejected`, kept and reported, instead of making every later append throw.
import { randomBytes } from "node:crypto";
import { lstatSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import {
  ensureRealDirUnder,
  lstatOrUndefined,
  readRegularFileSync,
  UnsafePathError,
  unlinkQuietly,
  writeJsonAtomicSync,
} from "../base/fsutil.ts";
import { addCount, isRecord } from "../base/json.ts";
import { SESSION_FILES } from "./paths.ts";
import type { PreparedEvent } from "./prepare.ts";

/** A spool batch is bounded events; anything larger was not written by tapedeck. */
const MAX_SPOOL_FILE_BYTES = 64 * 1024 * 1024;
/** A temp file this old belongs to a writer that died between write and rename (disk full). */
const STALE_TEMP_MS = 60_000;
const REJECTED_SUFFIX = ".rejected";

export function spoolDir(sessionDir: string): string {
  return join(sessionDir, SESSION_FILES.pending);
}

/** Writes one batch to the spool; answers false when it could not (disk full, unsafe directory). */
export function writeSpool(sessionDir: string, events: PreparedEvent[]): boolean {
  try {
    ensureRealDirUnder(sessionDir, spoolDir(sessionDir), true);
    // Names sort by time, then writer, so draining keeps the order hooks ran in.
    const name = `${String(Date.now()).padStart(15, "0")}-${String(process.pid).padStart(8, "0")}-${randomBytes(4).toString("hex")}.json`;
    writeJsonAtomicSync(join(spoolDir(sessionDir), name), events);
    return true;
  } catch {
    return false;
  }
}

export interface SpoolListing {
  /** batch files waiting, oldest first */
  names: string[];
  /** files set aside earlier because they were not batches of events */
  rejected: string[];
  /** temp files left by a writer that died before its rename */
  temps: string[];
  /** why the spool cannot be used at all (a symlink or a file where the directory belongs) */
  unsafe: string | null;
}

/** What sits in the spool, without reading any file. */
export function listSpool(sessionDir: string): SpoolListing {
  const dir = spoolDir(sessionDir);
  const empty: SpoolListing = { names: [], rejected: [], temps: [], unsafe: null };
  const st = lstatOrUndefined(dir);
  if (!st) return empty;
  if (st.isSymbolicLink() || !st.isDirectory()) {
    return {
      ...empty,
      unsafe: `${SESSION_FILES.pending} is not a plain directory; it is never read or emptied`,
    };
  }
  let all: string[];
  try {
    all = readdirSync(dir);
  } catch {
    return empty;
  }
  const names = all.filter((n) => n.endsWith(".json")).sort();
  const rejected = all.filter((n) => n.endsWith(REJECTED_SUFFIX)).sort();
  const temps = all.filter((n) => n.endsWith(".tmp"));
  return { names, rejected, temps, unsafe: null };
}

/** The shape every spooled event has; `[null]` or `[{}]` once made every later append throw. */
export function isPreparedEvent(v: unknown): v is PreparedEvent {
  return (
    isRecord(v) &&
    v.schema_version === 1 &&
    typeof v.event_id === "string" &&
    typeof v.kind === "string" &&
    typeof v.timestamp === "string" &&
    typeof v.provider === "string" &&
    typeof v.session_id === "string" &&
    isRecord(v.payload) &&
    Array.isArray(v.redactions) &&
    Array.isArray(v.truncations) &&
    Array.isArray(v.omitted)
  );
}

export type SpoolBatch = { ok: true; events: PreparedEvent[] } | { ok: false; reason: string };

/** Reads one batch; a file that is not a regular, bounded JSON array of events is refused whole. */
export function readSpoolBatch(sessionDir: string, name: string): SpoolBatch {
  let value: unknown;
  try {
    value = JSON.parse(
      readRegularFileSync(join(spoolDir(sessionDir), name), MAX_SPOOL_FILE_BYTES).toString("utf8"),
    );
  } catch (error) {
    return { ok: false, reason: error instanceof UnsafePathError ? "not a regular file" : "not valid JSON" };
  }
  if (!Array.isArray(value)) return { ok: false, reason: "not an array of events" };
  if (!value.every(isPreparedEvent)) return { ok: false, reason: "holds an entry that is not an event" };
  return { ok: true, events: value };
}

/** Moves a batch that cannot be appended out of the drain's way; it is kept, never deleted. */
export function setAside(sessionDir: string, name: string): void {
  const from = join(spoolDir(sessionDir), name);
  try {
    renameSync(from, `${from}${REJECTED_SUFFIX}`);
  } catch {
    // rename failing (a vanished file) leaves nothing for the drain to trip over again
  }
}

/** Removes a drained batch: only a regular file (an entry planted as a directory or FIFO is set aside). */
export function removeBatch(sessionDir: string, name: string): void {
  unlinkQuietly(join(spoolDir(sessionDir), name));
}

/** Removes temp files a writer left when its rename never came; a young one may still be in flight. */
export function cleanStaleTemps(sessionDir: string, temps: string[], now = Date.now()): void {
  for (const name of temps) {
    const path = join(spoolDir(sessionDir), name);
    try {
      const st = lstatSync(path);
      if (st.isFile() && now - st.mtimeMs > STALE_TEMP_MS) unlinkQuietly(path);
    } catch {
      // already gone
    }
  }
}

export interface SpoolSummary {
  /** events waiting in the spool for the next writer (or `tapedeck repair`) */
  events: number;
  files: number;
  kinds: Record<string, number>;
  /** a session_end is among them: the session ended, its end is just not appended yet */
  ends_session: boolean;
  rejected_files: number;
  unsafe: string | null;
}

/** Counts what waits in the spool (reads the batches, which are few and small). */
export function summarizeSpool(sessionDir: string): SpoolSummary {
  const listing = listSpool(sessionDir);
  const summary: SpoolSummary = {
    events: 0,
    files: listing.names.length,
    kinds: {},
    ends_session: false,
    rejected_files: listing.rejected.length,
    unsafe: listing.unsafe,
  };
  for (const name of listing.names) {
    const batch = readSpoolBatch(sessionDir, name);
    if (!batch.ok) {
      summary.rejected_files += 1;
      continue;
    }
    for (const e of batch.events) {
      summary.events += 1;
      addCount(summary.kinds, e.kind);
      if (e.kind === "session_end") summary.ends_session = true;
    }
  }
  return summary;
}
