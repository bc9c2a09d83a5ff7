// How far `tapedeck import` read each of an imported session's files: `import-cursor.json` in the session
// directory. A later import reads only what was appended since (a transcript that grew by a resumed session),
// once the bytes already read still hash as they did; a file rewritten underneath is read again from its
// start, and the store drops the events it already has by their ids.
//
// The cursor holds what the mappers keep between reads (the open turn, calls waiting for a result, a
// subagent's last answer): text from the agent's files, so it is redacted like an event before it is written,
// and the files are keyed by a hash of their path, the path itself kept only redacted.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { readJsonOrUndefined, writeJsonAtomicSync } from "../core/fsutil.ts";
import { SESSION_FILES } from "../core/paths.ts";
import { type RedactionRules, redactText, redactValue } from "../core/redact.ts";

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

export interface SessionCursor {
  schema_version: 1;
  /** by pathKey(path) */
  files: Record<string, FileCursor>;
  /** events.jsonl's size after the import's last append: larger means another writer (hooks) appended since */
  events_bytes: number;
}

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
  if (raw?.schema_version !== 1 || typeof raw.files !== "object" || raw.files === null) return undefined;
  const files: Record<string, FileCursor> = Object.create(null);
  for (const [key, f] of Object.entries(raw.files)) {
    if (!/^[0-9a-f]{32}$/.test(key) || typeof f !== "object" || f === null) continue;
    if (!Number.isSafeInteger(f.offset) || f.offset < 0 || !/^[0-9a-f]{64}$/.test(String(f.sha256))) continue;
    const state = typeof f.state === "object" && f.state !== null && !Array.isArray(f.state) ? f.state : {};
    files[key] = { path: String(f.path), offset: f.offset, sha256: f.sha256, state };
  }
  const eventsBytes = Number.isSafeInteger(raw.events_bytes) && raw.events_bytes >= 0 ? raw.events_bytes : 0;
  return { schema_version: 1, files, events_bytes: eventsBytes };
}

/** A path as tapedeck writes it anywhere (a manifest, a cursor, the command's output): redacted. */
export function safePath(path: string, rules?: RedactionRules): string {
  return redactText(path, rules).text;
}

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
  writeJsonAtomicSync(join(sessionDir, SESSION_FILES.importCursor), { ...cursor, files });
}
