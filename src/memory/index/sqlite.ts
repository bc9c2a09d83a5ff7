// Opening tapedeck's SQLite files (the derived events index, the memory
// store). better-sqlite3 is a native module: it is loaded lazily, only by the
// commands and the server that use it, never by a hook unless retrieval is on.
//
// SQLite opens by path and follows symlinks, so the path rules of
// core/base/fsutil.ts are applied before it is handed over: the parent is a real
// directory, the file (and its -wal/-shm siblings) a regular file or absent,
// and the file is created by us, 0600, without following a link.
import { closeSync, constants, fchmodSync, fstatSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname } from "node:path";
import {
  assertOwnDir,
  ensureDir,
  ensureRealDirUnder,
  FILE_MODE,
  isErrno,
  lstatOrUndefined,
  openRegularSync,
  ownedByUser,
  UnsafePathError,
} from "../../core/base/fsutil.ts";
import { EXIT, UserError } from "../../core/base/user-error.ts";

/** The part of better-sqlite3's API tapedeck uses (the package ships no types). */
export interface Statement {
  run(...params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

/** A transaction function: called plainly it BEGINs DEFERRED; `.immediate` takes the write lock at once. */
export type Transaction<F extends (...args: never[]) => unknown> = F & {
  immediate: F;
  deferred: F;
  exclusive: F;
};

export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): Database;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  transaction<F extends (...args: never[]) => unknown>(fn: F): Transaction<F>;
  close(): void;
  readonly open: boolean;
  readonly inTransaction: boolean;
}

type DatabaseConstructor = new (
  path: string,
  options?: { readonly?: boolean; fileMustExist?: boolean; timeout?: number },
) => Database;

export type MemoryDbProblem =
  | "unavailable"
  | "corrupt"
  | "locked"
  | "unsafe"
  | "missing"
  | "failed"
  | "foreign";

/** Anything wrong with a tapedeck SQLite file, said without an SQLite stack, naming the file and the fix. */
export class MemoryDbError extends UserError {
  override name = "MemoryDbError";
  constructor(
    message: string,
    readonly problem: MemoryDbProblem,
    readonly path?: string,
  ) {
    super(message, EXIT.failed);
  }
}

/** Short: a command waiting on another writer should say so soon, not look hung. */
export const BUSY_TIMEOUT_MS = 2000;

let cached: DatabaseConstructor | undefined;

/** better-sqlite3's constructor, or a clear error when the native module cannot load (wrong Node ABI, missing build). */
export function loadSqlite(): DatabaseConstructor {
  if (cached) return cached;
  try {
    // A CommonJS bundle (the hook) has `require`; an ES module (the CLI, the server, tests) builds one.
    const req = typeof require === "function" ? require : createRequire(import.meta.url);
    cached = req("better-sqlite3") as DatabaseConstructor;
    return cached;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new MemoryDbError(
      `SQLite (better-sqlite3) could not be loaded: ${reason}. Reinstall tapedeck with the Node version that runs it (npm rebuild better-sqlite3).`,
      "unavailable",
    );
  }
}

export interface OpenOptions {
  readonly?: boolean;
  /** A trusted directory above the file (the project root): every component from it down must be a real directory. */
  base?: string;
  /** What the user should do when the file is corrupt; the default depends on the file. */
  fix?: string;
}

/** The fix for a damaged file: the index is derived (rebuild it), the memory store is not (never deleted for the user). */
export function defaultFix(path: string): string {
  if (basename(path) === "index.sqlite") {
    return "it is derived from the recordings: run `tapedeck index rebuild`";
  }
  return "tapedeck never deletes it for you: move it aside to start a new one, and keep the old file to recover from";
}

/**
 * Opens (creating when not read-only) a tapedeck SQLite file in WAL mode with
 * a short busy timeout. A missing file under `readonly` is a MemoryDbError
 * with problem "missing", so callers can tell "nothing yet" from damage.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): Database {
  const readonly = opts.readonly === true;
  checkParent(path, opts.base, !readonly);
  const before = checkFile(path, readonly);
  if (!before && !readonly) createPrivateFile(path);
  if (before) tightenModes(path);
  const Sqlite = loadSqlite();
  let db: Database | undefined;
  try {
    db = new Sqlite(path, { readonly, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    sameFileAfterOpen(path, before);
    // A planted file's views and triggers may not call functions or virtual tables not marked safe for that.
    db.pragma("trusted_schema = OFF");
    if (!readonly) db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    // Reading the schema is what detects a file that is not a database at all.
    db.prepare("SELECT count(*) FROM sqlite_master").get();
    return db;
  } catch (error) {
    try {
      db?.close();
    } catch {
      // closing a handle on a damaged file may fail too; the first error is the one to report
    }
    throw toMemoryDbError(error, path, opts.fix);
  }
}

/**
 * The schema as SQLite records it, read from sqlite_master as data: no view or trigger of the file runs.
 * SQLite's own statistics tables (PRAGMA optimize, ANALYZE) only steer its query planner and are left out.
 */
function schemaOf(db: Database): string {
  return JSON.stringify(
    db
      .prepare(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_stat%' ESCAPE '\\' ORDER BY type, name",
      )
      .all(),
  );
}

const laidOut = new Map<string, string>();

/**
 * Whether the file's schema is exactly what `sql` lays out (FTS5's shadow tables included). A file planted in
 * the project can hold views and triggers under tapedeck's table names (a recursive view never ends, a trigger
 * runs on every insert); only a file whose schema is tapedeck's own is queried.
 */
export function hasSchema(db: Database, sql: string): boolean {
  let expected = laidOut.get(sql);
  if (expected === undefined) {
    const fresh = new (loadSqlite())(":memory:");
    try {
      fresh.exec(sql);
      expected = schemaOf(fresh);
    } finally {
      fresh.close();
    }
    laidOut.set(sql, expected);
  }
  return schemaOf(db) === expected;
}

type FileId = { dev: number | bigint; ino: number | bigint };

function checkParent(path: string, base: string | undefined, create: boolean): void {
  const parent = dirname(path);
  try {
    if (base !== undefined) {
      if (!ensureRealDirUnder(base, parent, create)) throw missing(path);
      return;
    }
    const st = lstatOrUndefined(parent);
    if (!st) {
      if (!create) throw missing(path);
      ensureDir(parent);
      return;
    }
    if (st.isSymbolicLink()) throw new UnsafePathError(`${parent} is a symlink; refusing to follow it`);
    if (!st.isDirectory()) throw new UnsafePathError(`${parent} is not a directory`);
    if (create) assertOwnDir(parent, st, false);
  } catch (error) {
    throw toMemoryDbError(error, path);
  }
}

function missing(path: string): MemoryDbError {
  return new MemoryDbError(`${path} does not exist`, "missing", path);
}

/** The file's identity when it exists as a regular file; a symlink, FIFO or directory (or one beside it) is refused. */
function checkFile(path: string, readonly: boolean): FileId | undefined {
  for (const sibling of [`${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    const st = lstatOrUndefined(sibling);
    if (st && !st.isFile())
      throw unsafe(sibling, path, st.isSymbolicLink() ? "is a symlink" : "is not a regular file");
  }
  const st = lstatOrUndefined(path);
  if (!st) {
    if (readonly) throw missing(path);
    return undefined;
  }
  if (!st.isFile()) throw unsafe(path, path, st.isSymbolicLink() ? "is a symlink" : "is not a regular file");
  // SQLite writes by path: another user's database (a 0666 one is writable) would get every item or event.
  if (!readonly) {
    for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
      const own = file === path ? st : lstatOrUndefined(file);
      if (own && !ownedByUser(own)) throw unsafe(file, path, "belongs to another user");
    }
  }
  return { dev: st.dev, ino: st.ino };
}

function unsafe(culprit: string, path: string, reason: string): MemoryDbError {
  return new MemoryDbError(`${culprit} ${reason}; refusing to open it (remove it and retry)`, "unsafe", path);
}

/** O_NOFOLLOW + O_CREAT: a link planted between the check and the create is refused, not followed. */
function createPrivateFile(path: string): void {
  let fd: number;
  try {
    fd = openRegularSync(path, constants.O_RDWR | constants.O_CREAT);
  } catch (error) {
    throw toMemoryDbError(error, path);
  }
  try {
    // A file created meanwhile passed the owner rule (openRegularSync); a read-only one is made writable.
    if ((fstatSync(fd).mode & 0o777) !== FILE_MODE) fchmodSync(fd, FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

/**
 * A file tapedeck did not create keeps its mode: a cloned repository's `.tapedeck/memory.sqlite` is 0644, and
 * SQLite gives the -wal and -shm files it creates the database's own mode, so every item promoted into it (or
 * every event indexed) was readable by any local user. Tightened before SQLite opens it, never through a link.
 */
function tightenModes(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    let fd: number;
    try {
      fd = openRegularSync(file, constants.O_RDONLY);
    } catch (error) {
      if (isErrno(error, "ENOENT")) continue;
      throw toMemoryDbError(error, path);
    }
    try {
      if ((fstatSync(fd).mode & 0o777) !== FILE_MODE) fchmodSync(fd, FILE_MODE);
    } catch (error) {
      // Another user's file: SQLite's own open says what is wrong with it; the mode is not ours to set.
      if (!isErrno(error, "EPERM")) throw toMemoryDbError(error, path);
    } finally {
      closeSync(fd);
    }
  }
}

/** SQLite opened by path: the file must still be the one checked (or created) a moment ago. */
function sameFileAfterOpen(path: string, before: FileId | undefined): void {
  const st = lstatOrUndefined(path);
  if (!st?.isFile()) throw new UnsafePathError(`${path} changed while it was opened`, "changed while opened");
  if (before && (st.dev !== before.dev || st.ino !== before.ino)) {
    throw new UnsafePathError(`${path} was replaced while it was opened`, "replaced while opened");
  }
}

/** SQLite's result codes, as better-sqlite3 gives them in `error.code`. */
function sqliteCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "";
}

/** True for an error that means the file itself is damaged (and, for the derived index, worth rebuilding). */
export function isCorruption(error: unknown): boolean {
  if (error instanceof MemoryDbError) return error.problem === "corrupt";
  const code = sqliteCode(error);
  return code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB");
}

/** Maps whatever SQLite or the filesystem threw to a MemoryDbError with one clear sentence. */
export function toMemoryDbError(error: unknown, path: string, fix = defaultFix(path)): MemoryDbError {
  if (error instanceof MemoryDbError) return error;
  if (error instanceof UnsafePathError) {
    return new MemoryDbError(`${error.message}; refusing to open ${path}`, "unsafe", path);
  }
  const code = sqliteCode(error);
  if (isCorruption(error)) {
    return new MemoryDbError(`${path} is not a valid SQLite database (damaged); ${fix}`, "corrupt", path);
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new MemoryDbError(
      `${path} is locked by another tapedeck process (waited ${BUSY_TIMEOUT_MS / 1000} s); try again when it has finished`,
      "locked",
      path,
    );
  }
  if (
    code.startsWith("SQLITE_READONLY") ||
    code.startsWith("SQLITE_CANTOPEN") ||
    code.startsWith("SQLITE_PERM")
  ) {
    return new MemoryDbError(
      `${path} cannot be opened for writing (${code}); check its owner and permissions`,
      "failed",
      path,
    );
  }
  if (code.startsWith("SQLITE_FULL") || code.startsWith("SQLITE_IOERR")) {
    return new MemoryDbError(
      `${path} could not be written (${code}: disk full or I/O error)`,
      "failed",
      path,
    );
  }
  const errno = (error as NodeJS.ErrnoException | null)?.code;
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return new MemoryDbError(`${path}: ${errno ? `${errno}: ` : ""}${reason}`, "failed", path);
}
