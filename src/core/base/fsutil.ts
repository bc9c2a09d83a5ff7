// Small synchronous filesystem helpers shared by the hook hot path and the CLI.
// Everything tapedeck creates is private to the user: directories 0700, files 0600.
//
// The project directory is controlled by whoever wrote the repository, so any
// file tapedeck opens there may be a planted symlink, FIFO or device. Every
// open goes through openRegularSync: O_NOFOLLOW (a symlink fails with ELOOP),
// O_NONBLOCK (opening a FIFO never waits for a peer; it is a no-op for regular
// files), then fstat on the descriptor refuses anything but a regular file,
// and reads are bounded. A FIFO as state.json hung the hook forever, and
// config.json linked to /dev/zero read until V8 aborted at 2 GB.
//
// The owner rule (for writers only): another local user must get no write into the archive. A directory
// tapedeck writes into (the project root it makes `.tapedeck` in, `.tapedeck` and everything below it, a session
// root, the user's tapedeck home) is the user's own, and one of tapedeck's own is writable by nobody else;
// an existing file opened to write or append is the user's and private (mode & 0o077 === 0), checked on the
// descriptor. A 0666 events.jsonl another user planted in a directory they own was appended to, so they
// read every prompt. Reads of files tapedeck does not own (an agent's transcript, `.git`) are not affected.
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  type Stats,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

/** A path tapedeck refuses to write or read through: a symlink, a FIFO, a device, a directory where a file belongs. */
export class UnsafePathError extends Error {
  override name = "UnsafePathError";
  constructor(
    message: string,
    /** what is wrong, without the path: for messages that must name no location */
    readonly reason = "not a plain file or directory",
  ) {
    super(message);
  }
}

/** Bigger than any file tapedeck writes outside events.jsonl (a manifest, a spool batch of bounded events). */
export const MAX_SMALL_FILE_BYTES = 64 * 1024 * 1024;

/** The user this process runs as; undefined where there are no uids (never on Linux or macOS). */
export function currentUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/** Whether a file or directory with this owner is the user's own (always, where there are no uids). */
export function ownedByUser(st: Pick<Stats, "uid">): boolean {
  const uid = currentUid();
  return uid === undefined || st.uid === uid;
}

function octal(mode: number): string {
  return `0${(mode & 0o777).toString(8)}`;
}

const OTHER_USER = "belongs to another user";

/**
 * The owner rule for a directory tapedeck writes into: the user's own; and when it is one of tapedeck's own
 * (`privateDir`: `.tapedeck` and below, a session root, the tapedeck home), writable by nobody else, who
 * could otherwise swap what is inside it. A project root may be group-writable (a umask of 002): only its owner
 * is checked.
 */
export function assertOwnDir(path: string, st: Pick<Stats, "uid" | "mode">, privateDir = true): void {
  if (!ownedByUser(st)) {
    throw new UnsafePathError(
      `${path} ${OTHER_USER} (uid ${st.uid}); tapedeck writes only into your own directories`,
      OTHER_USER,
    );
  }
  if (privateDir && (st.mode & 0o022) !== 0) {
    throw new UnsafePathError(
      `${path} is writable by group or others (mode ${octal(st.mode)}); run chmod go-w on it, or move it aside`,
      "is writable by group or others",
    );
  }
}

/**
 * The owner rule for an existing file opened to write or append: the user's own, and neither readable nor
 * writable by anyone else (whoever can read it reads what is appended; a descriptor opened while it was loose
 * keeps reading after a chmod).
 */
export function assertOwnFile(path: string, st: Pick<Stats, "uid" | "mode">): void {
  if (!ownedByUser(st)) {
    throw new UnsafePathError(
      `${path} ${OTHER_USER} (uid ${st.uid}); tapedeck never writes into a file it did not create; move it aside`,
      OTHER_USER,
    );
  }
  if ((st.mode & 0o077) !== 0) {
    throw new UnsafePathError(
      `${path} is open to group or others (mode ${octal(st.mode)}); tapedeck writes only into a private file: chmod 600 it, or move it aside`,
      "is open to group or others",
    );
  }
}

/**
 * Creates `path` and its parents (0700) as needed; the directory (a link followed: a dotfile manager may link
 * ~/.tapedeck) must be the user's own, and with `privateDir` writable by nobody else (assertOwnDir).
 */
export function ensureDir(path: string, privateDir = false): void {
  mkdirSync(path, { recursive: true, mode: DIR_MODE });
  assertOwnDir(path, statSync(path), privateDir);
}

/**
 * `dir` below `base`, both created as needed, for a writer: `base` (a home, followed if it is a link) must be
 * the user's private directory, and every directory below it too (ensureOwnDirUnder).
 */
export function ensurePrivateDirIn(base: string, dir: string): void {
  ensureDir(base, true);
  ensureOwnDirUnder(base, dir, true);
}

function isWrite(flags: number): boolean {
  return (flags & (constants.O_WRONLY | constants.O_RDWR)) !== 0;
}

/**
 * Opens a regular file without following a symlink and without blocking on a
 * FIFO; anything else is closed again and refused with UnsafePathError. Opened
 * to write, the file must also pass the owner rule (assertOwnFile), checked on
 * the same fstat: a file this call creates is the user's and 0600.
 */
export function openRegularSync(
  path: string,
  flags: number,
  mode: number = FILE_MODE,
  follow = false,
): number {
  let fd: number;
  try {
    fd = openSync(path, flags | (follow ? 0 : constants.O_NOFOLLOW) | constants.O_NONBLOCK, mode);
  } catch (error) {
    // ELOOP: a symlink under O_NOFOLLOW. ENXIO: a FIFO opened for writing with no reader, or a socket.
    if (isErrno(error, "ELOOP")) throw new UnsafePathError(`${path} is a symlink`, "is a symlink");
    if (isErrno(error, "ENXIO"))
      throw new UnsafePathError(`${path} is not a regular file`, "is not a regular file");
    throw error;
  }
  let ok = false;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new UnsafePathError(`${path} is not a regular file`, "is not a regular file");
    if (isWrite(flags)) assertOwnFile(path, st);
    ok = true;
  } finally {
    if (!ok) closeSync(fd);
  }
  return fd;
}

/** openRegularSync, or undefined where it would throw: a missing file and a planted link or FIFO are alike none. */
export function openRegularOrUndefined(path: string, flags: number): number | undefined {
  try {
    return openRegularSync(path, flags);
  } catch {
    return undefined;
  }
}

/**
 * Runs `read` on the regular file at `path`, opened read-only as openRegularSync does, and closes it again;
 * undefined when it cannot be opened. What `read` throws is thrown.
 */
export function withRegularFile<T>(path: string, read: (fd: number) => T): T | undefined {
  const fd = openRegularOrUndefined(path, constants.O_RDONLY);
  if (fd === undefined) return undefined;
  try {
    return read(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a whole regular file of at most `maxBytes`; a larger one is refused,
 * never read. `follow` is only for reading files tapedeck does not own (the
 * repository's .git), where a symlink is legitimate: its target must still be
 * a bounded regular file.
 */
export function readRegularFileSync(
  path: string,
  maxBytes: number = MAX_SMALL_FILE_BYTES,
  follow = false,
): Buffer {
  const fd = openRegularSync(path, constants.O_RDONLY, FILE_MODE, follow);
  try {
    return readWhole(fd, path, maxBytes);
  } finally {
    closeSync(fd);
  }
}

function readWhole(fd: number, path: string, maxBytes: number): Buffer {
  const size = fstatSync(fd).size;
  if (size > maxBytes) throw tooLarge(path, maxBytes);
  // The size is re-checked by reading one byte past it: a file growing meanwhile stays bounded.
  const buf = Buffer.allocUnsafe(Math.min(maxBytes, size) + 1);
  let length = 0;
  while (length < buf.length) {
    const wanted = buf.length - length;
    const n = readSync(fd, buf, length, wanted, length);
    length += Math.max(0, n);
    // A short read of a regular file is its end: no extra read to see 0 (this runs twice per append).
    if (n < wanted) break;
  }
  if (length > maxBytes) throw tooLarge(path, maxBytes);
  return buf.subarray(0, length);
}

function tooLarge(path: string, maxBytes: number): UnsafePathError {
  return new UnsafePathError(`${path} is larger than ${maxBytes} bytes`, `is larger than ${maxBytes} bytes`);
}

/**
 * Refuses a symlink or a non-directory at `dir` and at every component between
 * `base` (trusted, excluded) and `dir`; creates missing ones 0700 when asked.
 * This is the one path rule for every writer: the project's .tapedeck and
 * everything under it are real directories, so no write or unlink lands
 * outside them. A caller that creates is a writer: the owner rule applies as
 * in ensureOwnDirUnder.
 */
export function ensureRealDirUnder(
  base: string,
  dir: string,
  create: boolean,
  onCreate?: (created: string) => void,
): boolean {
  return walkDirsUnder(base, dir, create, create, onCreate);
}

/**
 * ensureRealDirUnder for a writer, whether or not it creates: `base` (the project root) must be the user's own
 * and every directory below it the user's private one (assertOwnDir), so that no other user can swap or read
 * what tapedeck writes there.
 */
export function ensureOwnDirUnder(
  base: string,
  dir: string,
  create: boolean,
  onCreate?: (created: string) => void,
): boolean {
  return walkDirsUnder(base, dir, create, true, onCreate);
}

function walkDirsUnder(
  base: string,
  dir: string,
  create: boolean,
  own: boolean,
  onCreate?: (created: string) => void,
): boolean {
  const rel = relative(base, dir);
  if (rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) {
    throw new UnsafePathError(`${dir} is not inside ${base}`);
  }
  if (own && rel !== "") {
    // The base may be reached through a link (a project under a linked home): its owner is its target's.
    const st = statSync(base, { throwIfNoEntry: false });
    if (st) assertOwnDir(base, st, false);
  }
  let current = base;
  for (const part of rel === "" ? [] : rel.split(sep)) {
    current = join(current, part);
    let st = lstatOrUndefined(current);
    if (!st) {
      if (!create) return false;
      try {
        mkdirSync(current, { mode: DIR_MODE });
        onCreate?.(current);
      } catch (error) {
        if (!isErrno(error, "EEXIST")) throw error;
      }
      st = lstatSync(current);
    }
    if (st.isSymbolicLink()) throw new UnsafePathError(`${current} is a symlink; refusing to follow it`);
    if (!st.isDirectory()) throw new UnsafePathError(`${current} is not a directory`);
    if (own) assertOwnDir(current, st);
  }
  return true;
}

/** A directory's entries with their types (no lstat each); none when it cannot be listed. */
export function readDirEntries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** lstat that answers undefined for a missing path instead of throwing. */
export function lstatOrUndefined(path: string): Stats | undefined {
  // No exception for a missing path: building one costs more than the lstat, and list asks once per session.
  return lstatSync(path, { throwIfNoEntry: false });
}

export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

export function isErrno(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as NodeJS.ErrnoException).code === code;
}

/** Writes the whole buffer; a regular-file write may legally be short. */
export function writeAll(fd: number, data: Buffer, position?: number): void {
  let offset = 0;
  while (offset < data.length) {
    const written = writeSync(
      fd,
      data,
      offset,
      data.length - offset,
      position === undefined ? null : position + offset,
    );
    offset += written;
  }
}

/**
 * Creates `path` holding `data` (O_EXCL: never over an existing file nor through a link; 0600). A write that
 * fails (a full disk) removes the file again: none is left half written. EEXIST when it exists.
 */
export function writeNewFileSync(path: string, data: string | Buffer, fsync = false): void {
  const fd = openSync(
    path,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    FILE_MODE,
  );
  try {
    writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
    if (fsync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkQuietly(path);
    throw error;
  }
  closeSync(fd);
}

let tmpCounter = 0;

/** Writes `data` to a fresh sibling temp file of `path` (writeNewFileSync) and answers its name. */
export function writeTempSibling(path: string, data: string | Buffer, fsync = false): string {
  tmpCounter += 1;
  const tmp = `${path}.${process.pid}.${tmpCounter}.tmp`;
  writeNewFileSync(tmp, data, fsync);
  return tmp;
}

/**
 * Replaces a file atomically (write a sibling temp file, then rename), so a
 * reader never sees half a manifest. O_NOFOLLOW on the temp file and the
 * rename onto the final name mean a planted symlink is replaced, not followed.
 */
export function writeFileAtomicSync(path: string, data: string | Buffer, fsync = false): void {
  const tmp = writeTempSibling(path, data, fsync);
  try {
    renameSync(tmp, path);
  } catch (error) {
    unlinkQuietly(tmp);
    throw error;
  }
}

/** Removes a file we created; a file already gone is not an error worth more than the one being reported. */
export function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}

/**
 * Best-effort cleanup of a directory of small per-session files: once it holds more than `above` entries, the
 * regular files whose names match `names` and that were not touched for `staleMs` go. Never follows a link,
 * never throws.
 */
export function pruneStaleFiles(dir: string, names: RegExp, above: number, staleMs: number): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  if (entries.length <= above) return;
  const cutoff = Date.now() - staleMs;
  for (const name of entries) {
    if (!names.test(name)) continue;
    const path = join(dir, name);
    const st = lstatOrUndefined(path);
    if (st?.isFile() && st.mtimeMs < cutoff) unlinkQuietly(path);
  }
}

export function writeJsonAtomicSync(path: string, value: unknown, fsync = false): void {
  writeFileAtomicSync(path, `${JSON.stringify(value, null, 2)}\n`, fsync);
}

/** Reads a JSON file; undefined when it is missing, not a bounded regular file, or not valid JSON. */
export function readJsonOrUndefined<T = unknown>(
  path: string,
  maxBytes = MAX_SMALL_FILE_BYTES,
): T | undefined {
  let text: string;
  try {
    text = readRegularFileSync(path, maxBytes).toString("utf8");
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/**
 * readJsonOrUndefined, for a file that steers where tapedeck reads or writes (a registry entry, an experiment's
 * link): only a file the user owns counts, checked on the descriptor; another user's is undefined.
 */
export function readOwnJsonOrUndefined<T = unknown>(
  path: string,
  maxBytes = MAX_SMALL_FILE_BYTES,
): T | undefined {
  let text: string | undefined;
  try {
    text = withRegularFile(path, (fd) =>
      ownedByUser(fstatSync(fd)) ? readWhole(fd, path, maxBytes).toString("utf8") : undefined,
    );
  } catch {
    return undefined;
  }
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** Synchronous sleep without spinning the CPU; the hook path is synchronous by design. */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function nowIso(): string {
  return new Date().toISOString();
}

/** Appends to a regular file (created 0600), never through a symlink nor into a FIFO. */
export function appendRegularSync(path: string, data: string | Buffer): void {
  const fd = openRegularSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
  try {
    writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
  } finally {
    closeSync(fd);
  }
}
