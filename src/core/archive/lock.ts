// A per-session writer lock that works across unrelated hook processes.
//
// Node has no flock(), so the lock is a file created with O_EXCL holding the
// owner's pid and a random token. A lock whose owner is dead (or that is far
// older than any append takes) is stale and may be broken; breaking goes
// through a second O_EXCL file so that two waiters cannot both decide to
// break it and then delete each other's fresh locks.
import { randomBytes } from "node:crypto";
import { linkSync, lstatSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import {
  isErrno,
  readRegularFileSync,
  sleepSync,
  UnsafePathError,
  unlinkQuietly,
  writeNewFileSync,
} from "../base/fsutil.ts";
import { processExists } from "../base/pids.ts";
import { SESSION_FILES } from "./paths.ts";

export interface LockOptions {
  /**
   * Give up after this long; the caller then spools instead of blocking the
   * agent. 0 never sleeps: one attempt (plus breaking a stale lock), then null.
   */
  timeoutMs: number;
  /** A lock held longer than this by a live process is treated as abandoned. */
  staleMs?: number;
}

export interface Lock {
  release(): void;
}

const DEFAULT_STALE_MS = 30_000;
const BREAKER_STALE_MS = 5_000;
/** Immediate retries (a stale lock broken, a lock gone between two syscalls) before waiting or giving up. */
const IMMEDIATE_RETRIES = 3;
/** What a lock path holding a symlink, FIFO or directory reads as: never ours, always breakable. */
const NOT_A_LOCK = "\u0000not-a-lock";
const MAX_LOCK_BYTES = 256;

/**
 * Claims `path` with its content in place from the first moment: the content goes to a private file that is
 * then hard-linked to `path` (link fails if `path` exists). Created empty and written after, a claimer
 * stalled between the two calls for longer than BREAKER_STALE_MS had its lock broken as abandoned by a
 * waiter and then resumed, holding it together with that waiter: two writers appended at once (a sequence
 * number given twice, seen under CI load; test/core/lock-claim.isolated.test.ts).
 */
function createExclusive(path: string, content: string): boolean {
  const claim = `${path}.claim-${process.pid}-${randomBytes(6).toString("hex")}`;
  if (!writeNewFile(claim, content)) return false;
  try {
    linkSync(claim, path);
    return true;
  } catch (error) {
    if (isErrno(error, "EEXIST")) return false;
    // A filesystem without hard links: the claim in two steps, as before.
    if (isErrno(error, "EPERM") || isErrno(error, "ENOTSUP") || isErrno(error, "EOPNOTSUPP"))
      return writeNewFile(path, content);
    throw error;
  } finally {
    unlinkQuietly(claim);
  }
}

/** Creates `path` (never through a link, never over a file) holding `content`; false when it exists. */
function writeNewFile(path: string, content: string): boolean {
  try {
    // A lock left empty (disk full) made every writer spool for the next 5 s: a failed claim removes itself.
    writeNewFileSync(path, content);
    return true;
  } catch (error) {
    if (isErrno(error, "EEXIST")) return false;
    throw error;
  }
}

/** The lock's content; a FIFO planted as the lock once blocked this read forever. */
function readOrEmpty(path: string): string | undefined {
  try {
    return readRegularFileSync(path, MAX_LOCK_BYTES).toString("utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    if (error instanceof UnsafePathError) return NOT_A_LOCK;
    throw error;
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - lstatSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function isStale(content: string, path: string, staleMs: number): boolean {
  if (content === NOT_A_LOCK) return true;
  const pid = Number.parseInt(content.split(" ")[0] ?? "", 10);
  // An empty file is a lock whose owner has not written its pid yet: young
  // means "being created", old means its creator died in between.
  if (!content) return ageMs(path) > BREAKER_STALE_MS;
  if (!processExists(pid)) return true;
  return ageMs(path) > staleMs;
}

function tryBreak(lockPath: string, breakerPath: string, observed: string): void {
  const token = `${process.pid} ${randomBytes(8).toString("hex")}`;
  if (!createExclusive(breakerPath, token)) {
    const content = readOrEmpty(breakerPath) ?? "";
    if (ageMs(breakerPath) > BREAKER_STALE_MS || (content && !processExists(Number.parseInt(content, 10)))) {
      try {
        unlinkSync(breakerPath);
      } catch {
        // someone else cleaned it up
      }
    }
    return;
  }
  try {
    // Only the lock we judged stale may go; a fresh one created meanwhile stays.
    if (readOrEmpty(lockPath) === observed) unlinkSync(lockPath);
  } catch (error) {
    if (!isErrno(error, "ENOENT")) throw error;
  } finally {
    try {
      if (readOrEmpty(breakerPath) === token) unlinkSync(breakerPath);
    } catch {
      // breaker removed by a waiter that judged it stale
    }
  }
}

export function acquireLock(sessionDir: string, options: LockOptions): Lock | null {
  const lockPath = join(sessionDir, SESSION_FILES.lock);
  const breakerPath = join(sessionDir, SESSION_FILES.breaker);
  const staleMs = options.staleMs ?? DEFAULT_STALE_MS;
  const token = `${process.pid} ${randomBytes(12).toString("hex")}`;
  const deadline = Date.now() + options.timeoutMs;
  let backoff = 1;
  let retries = 0;
  for (;;) {
    if (createExclusive(lockPath, token)) {
      return {
        release() {
          try {
            if (readOrEmpty(lockPath) === token) unlinkSync(lockPath);
          } catch {
            // already broken by a waiter that judged us stale; nothing to undo
          }
        },
      };
    }
    const observed = readOrEmpty(lockPath);
    if (observed !== undefined && isStale(observed, lockPath, staleMs)) {
      tryBreak(lockPath, breakerPath, observed);
      if (Date.now() < deadline || retries++ < IMMEDIATE_RETRIES) continue;
    }
    // Released between our create and our read: worth an immediate retry, even with no time to wait.
    if (observed === undefined && retries++ < IMMEDIATE_RETRIES) continue;
    if (Date.now() >= deadline) return null;
    sleepSync(backoff);
    backoff = Math.min(backoff * 2, 8);
  }
}
