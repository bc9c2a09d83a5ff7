// What one import run wrote into a session's directory: the events it appended, counted from the file itself
// when the run failed part-way (a full disk once reported `"events": 0` for a session that got 1,726), and
// the directory of a new session that failed before a single event was written, removed rather than left
// empty behind it (a full disk once left one per session found).
import { closeSync, fstatSync, lstatSync, readdirSync, readSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { openForScan } from "../core/archive/line-scan.ts";
import { acquireLock, type Lock } from "../core/archive/lock.ts";
import { SESSION_FILES } from "../core/archive/paths.ts";
import { lstatOrUndefined, unlinkQuietly } from "../core/base/fsutil.ts";

const CHUNK = 64 * 1024;

/** The files the store and the import write into a session's directory: nothing else is ever removed. */
const OWN_FILES = new Set<string>([
  SESSION_FILES.manifest,
  SESSION_FILES.events,
  SESSION_FILES.checksums,
  SESSION_FILES.recovery,
  SESSION_FILES.state,
  SESSION_FILES.ids,
  SESSION_FILES.importCursor,
  "diagnostics.jsonl",
]);

export interface RunStart {
  dir: string;
  existed: boolean;
  /** the directory did not exist before this run made it: its identity, to know it is still that one */
  created: { dev: number; ino: number } | undefined;
  /** where events.jsonl's last complete line ended when the run began (a torn tail is not a line) */
  linesFrom: number;
}

/** Notes what the session's directory holds before the run writes anything. */
export function startRun(dir: string): RunStart {
  return {
    dir,
    existed: lstatOrUndefined(dir) !== undefined,
    created: undefined,
    linesFrom: lastLineEnd(join(dir, SESSION_FILES.events)),
  };
}

/** After the run made the directory: which one it made, when it did not exist before. */
export function madeDir(start: RunStart): void {
  if (start.existed) return;
  const st = lstatSync(start.dir);
  start.created = { dev: st.dev, ino: st.ino };
}

/** The events appended since the run began: the store writes one line an event, a cut-off write none. */
export function linesWritten(start: RunStart): number {
  return withEvents(join(start.dir, SESSION_FILES.events), 0, (fd) => {
    const buf = Buffer.allocUnsafe(CHUNK);
    let lines = 0;
    for (let at = start.linesFrom; ; ) {
      const n = readSync(fd, buf, 0, CHUNK, at);
      if (n <= 0) return lines;
      for (let i = buf.indexOf(10); i >= 0 && i < n; i = buf.indexOf(10, i + 1)) lines += 1;
      at += n;
    }
  });
}

/**
 * Removes the directory of a new session whose run failed before any event was written, when this run made
 * it and it holds nothing but the store's and the import's own files, no event among them and no recorder's
 * spool. Under the session lock where one can be had; on a disk too full to create one, only while nobody
 * holds it (no writer appends without it). Anything else is left as it is. Answers whether it was removed.
 */
export function removeIfNothingWritten(start: RunStart): boolean {
  if (!start.created || !sameDir(start)) return false;
  let lock: Lock | null;
  try {
    lock = acquireLock(start.dir, { timeoutMs: 0 });
    if (!lock) return false;
  } catch {
    if (lstatOrUndefined(join(start.dir, SESSION_FILES.lock))) return false;
    lock = null;
  }
  try {
    const names = removable(start);
    if (!names) return false;
    for (const name of names) unlinkQuietly(join(start.dir, name));
  } finally {
    lock?.release();
  }
  try {
    // Fails when anything came in meanwhile: then it stays.
    rmdirSync(start.dir);
    return true;
  } catch {
    return false;
  }
}

/** The directory's files to remove, or undefined when one of them is not ours to remove. */
function removable(start: RunStart): string[] | undefined {
  let names: string[];
  try {
    names = readdirSync(start.dir);
  } catch {
    return undefined;
  }
  const out: string[] = [];
  for (const name of names) {
    if (name === SESSION_FILES.lock) continue;
    if (!OWN_FILES.has(name) || !lstatOrUndefined(join(start.dir, name))?.isFile()) return undefined;
    out.push(name);
  }
  if (lastLineEnd(join(start.dir, SESSION_FILES.events)) > 0) return undefined;
  return out;
}

function sameDir(start: RunStart): boolean {
  const st = lstatOrUndefined(start.dir);
  return !!st && st.isDirectory() && st.dev === start.created!.dev && st.ino === start.created!.ino;
}

/** Just past the file's last newline (0 for none, or no file): the end of its last complete line. */
function lastLineEnd(path: string): number {
  return withEvents(path, 0, (fd) => {
    const buf = Buffer.allocUnsafe(CHUNK);
    for (let end = fstatSync(fd).size; end > 0; ) {
      const from = Math.max(0, end - CHUNK);
      const n = readSync(fd, buf, 0, end - from, from);
      const nl = buf.subarray(0, n).lastIndexOf(10);
      if (nl >= 0) return from + nl + 1;
      end = from;
    }
    return 0;
  });
}

function withEvents<T>(path: string, fallback: T, read: (fd: number) => T): T {
  let fd: number;
  try {
    fd = openForScan(path);
  } catch {
    return fallback;
  }
  try {
    return read(fd);
  } catch {
    return fallback;
  } finally {
    closeSync(fd);
  }
}
