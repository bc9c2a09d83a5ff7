// How far `tapedeck import` read each of an imported session's files: `import-cursor.json` in the session
// directory. A later import reads only what was appended since (a transcript that grew by a resumed session),
// once the bytes already read still hash as they did; a file rewritten underneath is read again from its
// start, and the store drops the events it already has by their ids.
//
// The cursor holds what the mappers keep between reads (the open turn, calls waiting for a result, a
// subagent's last answer): text from the agent's files, so it is redacted like an event before it is written,
// and the files are keyed by a hash of their path, the path itself kept only redacted.
//
// The cursor moves only once a run's events are all in: from before a run's first append until then it says
// the run is in progress (`in_progress`), so a run that never got there (killed, Ctrl-C, a full disk) is seen
// as interrupted, and the next import reads from where the cursor stands. It derives the same events from the
// same bytes and the same mapper state (their ids come from the agent's files), and the store drops those the
// interrupted run had appended already: every record is imported once, wherever the run was stopped.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { type RedactionRules, redactText, redactValue } from "@tapedeck/redact";
import { SESSION_FILES } from "../core/archive/paths.ts";
import { readJsonOrUndefined, writeJsonAtomicSync } from "../core/base/fsutil.ts";

export interface FileCursor {
  /** the path, redacted */
  path: string;
  /** just past the last complete line read */
  offset: number;
  /** sha256 of bytes [0, offset) */
  sha256: string;
  /** the mapper's state at `offset` (redacted) */
  state: Record<string, unknown>;
}

export interface ImportInProgress {
  /** when the run started appending */
  started_at: string;
  pid: number;
}

export interface SessionCursor {
  /** 2: the archive's other recorders mark the manifest (`hooks_since_import`); 1 was written before they did */
  schema_version: 1 | 2;
  /** by pathKey(path) */
  files: Record<string, FileCursor>;
  /** a run is appending, or was stopped before it finished */
  in_progress?: ImportInProgress;
  /**
   * Version 1 only: events.jsonl's size after the import's last append, which the build that wrote it read as
   * "the hooks appended" when the file grew (plan.ts's rule for such archives).
   */
  events_bytes?: number;
}

export const CURSOR_VERSION = 2;

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A cursor is small (a few KB per file); a planted huge file is not read. */
const MAX_CURSOR_BYTES = 4 * 1024 * 1024;

export function pathKey(path: string): string {
  return createHash("sha256").update(path).digest("hex").slice(0, 32);
}

export function readCursor(sessionDir: string): SessionCursor | undefined {
  const raw = readJsonOrUndefined<SessionCursor>(
    join(sessionDir, SESSION_FILES.importCursor),
    MAX_CURSOR_BYTES,
  );
  if (!raw || (raw.schema_version !== 1 && raw.schema_version !== 2)) return undefined;
  if (typeof raw.files !== "object" || raw.files === null) return undefined;
  const files: Record<string, FileCursor> = Object.create(null);
  for (const [key, f] of Object.entries(raw.files)) {
    if (!/^[0-9a-f]{32}$/.test(key) || typeof f !== "object" || f === null) continue;
    if (!Number.isSafeInteger(f.offset) || f.offset < 0 || !/^[0-9a-f]{64}$/.test(String(f.sha256))) continue;
    const state = typeof f.state === "object" && f.state !== null && !Array.isArray(f.state) ? f.state : {};
    files[key] = { path: String(f.path), offset: f.offset, sha256: f.sha256, state };
  }
  const cursor: SessionCursor = { schema_version: raw.schema_version, files };
  const progress = raw.in_progress;
  if (typeof progress === "object" && progress !== null && ISO_TIME.test(String(progress.started_at))) {
    cursor.in_progress = {
      started_at: progress.started_at,
      pid: Number.isSafeInteger(progress.pid) ? progress.pid : 0,
    };
  }
  if (raw.schema_version === 1) {
    const bytes = raw.events_bytes;
    cursor.events_bytes = Number.isSafeInteger(bytes) && (bytes as number) >= 0 ? bytes : 0;
  }
  return cursor;
}

/**
 * The cursor as it stood, marked in progress: written before a run's first append, it moves no offset. Its
 * files are written as they were read (redacted when they were written), so the next run starts from exactly
 * the state this one started from.
 */
export function markInProgress(
  sessionDir: string,
  cursor: SessionCursor | undefined,
  progress: ImportInProgress,
): void {
  const out: SessionCursor = {
    schema_version: CURSOR_VERSION,
    files: { ...(cursor?.files ?? {}) },
    in_progress: progress,
  };
  writeJsonAtomicSync(join(sessionDir, SESSION_FILES.importCursor), out);
}

/** A path as tapedeck writes it anywhere (a manifest, a cursor, the command's output): redacted. */
export function safePath(path: string, rules?: RedactionRules): string {
  return redactText(path, rules).text;
}

/** The cursor a run leaves once its events are all in: where each file was read to, and no run in progress. */
export function writeCursor(sessionDir: string, cursor: SessionCursor, rules?: RedactionRules): void {
  const files: Record<string, FileCursor> = {};
  for (const [key, f] of Object.entries(cursor.files)) {
    files[key] = {
      path: safePath(f.path, rules),
      offset: f.offset,
      sha256: f.sha256,
      state: redactValue(f.state, "state", rules).value,
    };
  }
  const out: SessionCursor = { schema_version: CURSOR_VERSION, files };
  writeJsonAtomicSync(join(sessionDir, SESSION_FILES.importCursor), out);
}
