// Small synchronous filesystem helpers shared by the hook hot path and the CLI.
// Everything tapedeck creates is private to the user: directories 0700, files 0600.
import {
  closeSync,
  constants,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";

export const DIR_MODE = 0o700;
export const FILE_MODE = 0o600;

export function ensureDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: DIR_MODE });
}

/** lstat that answers undefined for a missing path instead of throwing. */
export function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  }
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

let tmpCounter = 0;

/** Writes `data` to a fresh sibling temp file of `path` (O_EXCL, O_NOFOLLOW, 0600) and answers its name. */
export function writeTempSibling(path: string, data: string | Buffer, fsync = false): string {
  tmpCounter += 1;
  const tmp = `${path}.${process.pid}.${tmpCounter}.tmp`;
  const fd = openSync(
    tmp,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    FILE_MODE,
  );
  try {
    writeAll(fd, typeof data === "string" ? Buffer.from(data) : data);
    if (fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
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
    try {
      unlinkSync(tmp);
    } catch {
      // the temp file is gone already; the rename error is what matters
    }
    throw error;
  }
}

export function writeJsonAtomicSync(path: string, value: unknown, fsync = false): void {
  writeFileAtomicSync(path, `${JSON.stringify(value, null, 2)}\n`, fsync);
}

/** Reads a JSON file; undefined when it is missing or not valid JSON. */
export function readJsonOrUndefined<T = unknown>(path: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

export function parentDir(path: string): string {
  return dirname(path);
}

/** Synchronous sleep without spinning the CPU; the hook path is synchronous by design. */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export function nowIso(): string {
  return new Date().toISOString();
}
