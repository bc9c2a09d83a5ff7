// Walking and opening the agents' own session files for `tapedeck import`, whoever planted what beside them.
// Below an agent's home directory nothing is followed: a symlink, a FIFO, a socket or device, or a file or
// directory of another user is passed over and reported, never opened (the import reads what the user's own
// agent wrote, and a link could point it at any file on the machine). The home itself may be a link (dotfile
// managers link ~/.claude): it is resolved once and must be the user's own directory. Every open is
// O_NOFOLLOW | O_NONBLOCK and checked on the descriptor (core/base/fsutil.ts openRegularSync), then its owner.
import { closeSync, constants, fstatSync, lstatSync, readSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { parseObjectLine } from "../core/archive/line-scan.ts";
import { readLines } from "../core/base/bounded-lines.ts";
import { openRegularSync, readDirEntries, UnsafePathError } from "../core/base/fsutil.ts";
import type { HistorySkip } from "./history.ts";

export const SKIP = {
  symlink: "symlink (not followed)",
  special: "not a regular file (FIFO, socket or device)",
  otherUser: "belongs to another user",
  unreadable: "cannot be read",
} as const;

/** The user this process runs as; undefined where there are no uids (never on Linux or macOS). */
function myUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

function ownedByMe(uid: number): boolean {
  const me = myUid();
  return me === undefined || uid === me;
}

export interface AgentEntry {
  name: string;
  path: string;
  dir: boolean;
}

/**
 * The regular files and directories in `dir` that belong to the user (those `want` accepts by name); every
 * other entry `want` accepts is reported to `skip` with its reason. A directory that cannot be listed gives
 * nothing.
 */
export function listOwnEntries(
  dir: string,
  skip: (s: HistorySkip) => void,
  want: (name: string, isDir: boolean) => boolean = () => true,
): AgentEntry[] {
  const out: AgentEntry[] = [];
  for (const entry of readDirEntries(dir).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    const isDir = entry.isDirectory();
    // A symlink is reported where either a file or a directory of that name would have been read.
    const link = entry.isSymbolicLink();
    if (link ? !want(entry.name, true) && !want(entry.name, false) : !want(entry.name, isDir)) continue;
    if (link) {
      skip({ source: path, reason: SKIP.symlink });
      continue;
    }
    if (!isDir && !entry.isFile()) {
      skip({ source: path, reason: SKIP.special });
      continue;
    }
    let uid: number;
    try {
      uid = lstatSync(path).uid;
    } catch {
      continue;
    }
    if (!ownedByMe(uid)) {
      skip({ source: path, reason: SKIP.otherUser });
      continue;
    }
    out.push({ name: entry.name, path, dir: isDir });
  }
  return out;
}

/** An agent's home directory (`~/.claude`, `$CODEX_HOME`), resolved; undefined unless it is the user's own directory. */
export function agentHome(path: string | undefined, skip: (s: HistorySkip) => void): string | undefined {
  if (!path) return undefined;
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  try {
    const st = lstatSync(real);
    if (!st.isDirectory()) return undefined;
    if (!ownedByMe(st.uid)) {
      skip({ source: path, reason: SKIP.otherUser });
      return undefined;
    }
  } catch {
    return undefined;
  }
  return real;
}

/**
 * Opens one of the agent's files for reading: a regular file reached without a symlink, opened without
 * blocking, owned by the user. Throws UnsafePathError (its `reason` is one of SKIP) or the open's errno error.
 */
export function openAgentFile(path: string): number {
  const fd = openRegularSync(path, constants.O_RDONLY);
  let uid: number;
  try {
    uid = fstatSync(fd).uid;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!ownedByMe(uid)) {
    closeSync(fd);
    throw new UnsafePathError(`${path} belongs to another user`, SKIP.otherUser);
  }
  return fd;
}

/** `read` of one of the agent's files (openAgentFile) and its size; undefined when it cannot be opened or read. */
function readOpened<T>(path: string, read: (fd: number, size: number) => T | undefined): T | undefined {
  let fd: number;
  try {
    fd = openAgentFile(path);
  } catch {
    return undefined;
  }
  try {
    return read(fd, fstatSync(fd).size);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Bytes [start, end) of an open file, fewer where it ends first. */
function bytesOf(fd: number, start: number, end: number): Buffer {
  const buf = Buffer.allocUnsafe(end - start);
  const n = readSync(fd, buf, 0, buf.length, start);
  return buf.subarray(0, n);
}

/** A small file of the agent's (a subagent's meta file, Gemini's .project_root), opened as safely as the transcripts. */
export function readAgentText(path: string, maxBytes: number): string | undefined {
  return readOpened(path, (fd, size) =>
    size > maxBytes ? undefined : bytesOf(fd, 0, size).toString("utf8"),
  );
}

/** The same, parsed as JSON; undefined when unreadable or not JSON. */
export function readAgentJson(path: string, maxBytes: number): unknown {
  const text = readAgentText(path, maxBytes);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Why a file could not be opened, as a skip reason. */
export function openFailure(error: unknown): string {
  if (error instanceof UnsafePathError) {
    if (error.reason === "is a symlink") return SKIP.symlink;
    if (error.reason === "is not a regular file") return SKIP.special;
    return error.reason;
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ? `${SKIP.unreadable} (${code})` : SKIP.unreadable;
}

/**
 * How far discovery reads into a file for what its first records say (a cwd, a first time, a session id):
 * far more than one big record. Claude's first record may be a pasted document or an image of several MB, and
 * a fixed 4 MiB window once left such a session "without a working directory", never importable.
 */
export const PEEK_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * The first records of a file, each parsed, until `onRecord` returns false or `PEEK_BUDGET_BYTES` are read.
 * Streamed: a record is held whole only up to the bounded reader's line limit (16 MiB), a longer one passed
 * over as it streams by, never the whole file. Returns false when the file could not be opened (`skip` was
 * told why).
 */
export function peekRecords(
  path: string,
  skip: (s: HistorySkip) => void,
  onRecord: (record: Record<string, unknown>) => boolean | undefined,
): boolean {
  let fd: number;
  try {
    fd = openAgentFile(path);
  } catch (error) {
    skip({ source: path, reason: openFailure(error) });
    return false;
  }
  try {
    for (const line of readLines(fd, 0, Math.min(fstatSync(fd).size, PEEK_BUDGET_BYTES))) {
      const record = line.bytes && parseObjectLine(line.bytes);
      if (record && onRecord(record) === false) break;
    }
    return true;
  } catch {
    return true;
  } finally {
    closeSync(fd);
  }
}

const TAIL_BYTES = 64 * 1024;
const STAMP = /"timestamp"\s*:\s*"([0-9T:.+\-Z ]{10,40})"/g;

/** The last `"timestamp":"..."` in the file's final 64 KB: when the session was last written to, cheaply. */
export function lastTimestampOf(path: string): string | undefined {
  return readOpened(path, (fd, size) => {
    const tail = bytesOf(fd, Math.max(0, size - TAIL_BYTES), size).toString("utf8");
    let last: string | undefined;
    for (const m of tail.matchAll(STAMP)) last = m[1];
    return last;
  });
}
