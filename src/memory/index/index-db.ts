// The index file itself: where it is, its tables, and opening it, rebuilt from nothing when it is damaged or
// of another layout (it is derived: nothing is lost).
import { join } from "node:path";
import { ensureTapedeckDir, tapedeckDir } from "../../core/archive/paths.ts";
import { lstatOrUndefined, unlinkQuietly } from "../../core/base/fsutil.ts";
import {
  type Database,
  hasSchema,
  isCorruption,
  MemoryDbError,
  openDatabase,
  toMemoryDbError,
} from "./sqlite.ts";

export const INDEX_FILE = "index.sqlite";
/** Bumped when the tables or the extracted text change: an older index is rebuilt, never migrated (it is derived). */
export const INDEX_SCHEMA_VERSION = 4;

export function indexPath(projectRoot: string): string {
  return join(tapedeckDir(projectRoot), INDEX_FILE);
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  provider TEXT NOT NULL,
  session_id TEXT NOT NULL,
  provider_session_id TEXT,
  dir_name TEXT NOT NULL,
  size INTEGER NOT NULL DEFAULT 0,
  offset INTEGER NOT NULL DEFAULT 0,
  boundary TEXT NOT NULL DEFAULT '',
  inode TEXT NOT NULL DEFAULT '',
  events INTEGER NOT NULL DEFAULT 0,
  skipped INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS events (
  id INTEGER PRIMARY KEY,
  session INTEGER NOT NULL,
  line_offset INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  provider TEXT NOT NULL,
  ts TEXT NOT NULL,
  event_id TEXT NOT NULL,
  body TEXT NOT NULL,
  idents TEXT NOT NULL,
  UNIQUE (session, line_offset)
);
CREATE INDEX IF NOT EXISTS events_ts ON events (ts);
CREATE VIRTUAL TABLE IF NOT EXISTS events_fts USING fts5(
  body, content='events', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS events_tri USING fts5(
  idents, content='events', content_rowid='id', tokenize='trigram');
`;

/** A one-line notice (a damaged index rebuilt, a session reindexed). */
export type Notice = (text: string) => void;

/** Opens the index, creating it; a damaged or outdated one is deleted and created again, with a notice. */
export function openIndex(
  projectRoot: string,
  opts: { onNotice?: Notice } = {},
): { db: Database; rebuilt: boolean } {
  const path = indexPath(projectRoot);
  try {
    ensureTapedeckDir(projectRoot);
  } catch (error) {
    throw toMemoryDbError(error, path); // a symlinked .tapedeck: refused, named, never followed
  }
  let db: Database;
  try {
    db = openDatabase(path, { base: projectRoot });
    if (prepareSchema(db)) return { db, rebuilt: false };
    db.close();
    opts.onNotice?.(`${path} was made by another tapedeck version; rebuilding it from the recordings`);
  } catch (error) {
    if (!isCorruption(error)) throw error instanceof MemoryDbError ? error : toMemoryDbError(error, path);
    opts.onNotice?.(`${path} was damaged; rebuilding it from the recordings (it holds nothing else)`);
  }
  removeIndexFiles(path);
  db = openDatabase(path, { base: projectRoot });
  try {
    if (!prepareSchema(db)) throw new MemoryDbError(`${path}: could not create the index`, "failed", path);
  } catch (error) {
    db.close();
    throw toMemoryDbError(error, path);
  }
  return { db, rebuilt: true };
}

/**
 * Creates the tables; false when the file holds an index of another layout. Checked and created inside one
 * write transaction: a second process opening a half-created index (tables, no version yet) took it for
 * another layout and deleted it under the first.
 */
function prepareSchema(db: Database): boolean {
  if (isIndex(db)) return true;
  return db
    .transaction(() => {
      const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master").get() as { n: number };
      if (tables.n > 0) return isIndex(db);
      db.exec(SCHEMA);
      db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', ?)").run(
        String(INDEX_SCHEMA_VERSION),
      );
      return true;
    })
    .immediate();
}

/**
 * An index of this layout: its schema exactly SCHEMA's (checked as data first: a planted file's `meta` may be a
 * view that never ends), then its version.
 */
export function isIndex(db: Database): boolean {
  return hasSchema(db, SCHEMA) && schemaVersion(db) === String(INDEX_SCHEMA_VERSION);
}

function schemaVersion(db: Database): string | undefined {
  try {
    return (
      db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined
    )?.value;
  } catch {
    return undefined; // no meta table: empty, or not an index of ours
  }
}

/** Only the index and SQLite's own siblings of it; each is checked to be a plain file first (a link is left alone). */
function removeIndexFiles(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    if (lstatOrUndefined(p)?.isFile()) unlinkQuietly(p);
  }
}

/** Deletes the index (it is derived): the next update builds it again from every session. */
export function deleteIndex(projectRoot: string): void {
  removeIndexFiles(indexPath(projectRoot));
}
