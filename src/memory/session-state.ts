// Which memory items a session's agent has already been given since its context last started afresh, so that
// the next prompt is not handed them again. On the hook path (Node built-ins only), and on disk rather than in
// the hook server's memory: the server restarts (idle exit, upgrade, crash), the command transport has no
// server at all, and the http client's fallback runs a prompt hook in a process of its own.
//
// One small append-only file per session, `.tapedeck/retrieval/<hash of the session id>`, a line per prompt
// that was given items: `<prompt event id> <item id>,<item id>…`. Item ids and event ids are hashes: the file
// holds nothing of a prompt or an item. A compaction (or a cleared context) removes the file: the agent lost
// what it was given. A retried prompt hook finds its own line and is given the same items again, never fewer
// (its first attempt's output may never have reached the agent).
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  appendRegularSync,
  ensureRealDirUnder,
  isErrno,
  openRegularSync,
  unlinkQuietly,
} from "../core/fsutil.ts";
import { tapedeckDir } from "../core/paths.ts";

export const STATE_DIR = "retrieval";
/** A session's file is read from its end, at most this much: ~25,000 prompts' worth of lines. */
const MAX_READ_BYTES = 1024 * 1024;
/** Past this many files a new one clears those of sessions idle for STALE_MS. */
const PRUNE_ABOVE = 256;
const STALE_MS = 30 * 24 * 3600 * 1000;
const ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;

export interface SessionMemory {
  /** Items given to this session's agent by other prompts since its context started afresh. */
  given: Set<string>;
  /** What this very prompt was given by an earlier attempt of its hook (a retry), if anything. */
  again?: string[];
}

function stateDir(projectRoot: string): string {
  return join(tapedeckDir(projectRoot), STATE_DIR);
}

export function statePath(projectRoot: string, sessionId: string): string {
  const name = createHash("sha256").update(sessionId).digest("hex").slice(0, 32);
  return join(stateDir(projectRoot), name);
}

/** What the session was given so far; an unreadable or planted file counts as nothing given. */
export function readSessionMemory(
  projectRoot: string,
  sessionId: string,
  promptEventId: string,
): SessionMemory {
  const out: SessionMemory = { given: new Set() };
  const text = readTail(statePath(projectRoot, sessionId));
  if (text === undefined) return out;
  for (const line of text.split("\n")) {
    const space = line.indexOf(" ");
    if (space <= 0) continue;
    const ids = line
      .slice(space + 1)
      .split(",")
      .filter((id) => ID_RE.test(id));
    if (line.slice(0, space) === promptEventId) out.again = ids;
    else for (const id of ids) out.given.add(id);
  }
  return out;
}

/** Notes the items this prompt was given (once per prompt: a retry that finds its line adds nothing). */
export function noteGiven(
  projectRoot: string,
  sessionId: string,
  promptEventId: string,
  ids: readonly string[],
): void {
  const safe = ids.filter((id) => ID_RE.test(id));
  if (safe.length === 0 || !ID_RE.test(promptEventId)) return;
  const dir = stateDir(projectRoot);
  ensureRealDirUnder(projectRoot, dir, true);
  const path = statePath(projectRoot, sessionId);
  const fresh = statOrUndefined(path) === undefined;
  appendRegularSync(path, `${promptEventId} ${safe.join(",")}\n`);
  if (fresh) pruneStale(dir);
}

/** The agent's context started afresh (a compaction, a cleared conversation): everything may be given again. */
export function forgetGiven(projectRoot: string, sessionId: string): void {
  const path = statePath(projectRoot, sessionId);
  // Under a real .tapedeck/retrieval only: never an unlink through a planted symlinked directory.
  try {
    if (!ensureRealDirUnder(projectRoot, stateDir(projectRoot), false)) return;
  } catch {
    return;
  }
  unlinkQuietly(path);
}

function readTail(path: string): string | undefined {
  let fd: number;
  try {
    fd = openRegularSync(path, constants.O_RDONLY);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    // A symlink, a FIFO, a directory in its place: nothing given, and nothing followed.
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, MAX_READ_BYTES);
    const buf = Buffer.allocUnsafe(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buf, read, length - read, size - length + read);
      if (n <= 0) break;
      read += n;
    }
    return buf.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  return statSync(path, { throwIfNoEntry: false });
}

/** Files of sessions nobody prompted for a month, once there are many: a session's file is its own. */
function pruneStale(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  if (names.length <= PRUNE_ABOVE) return;
  const cutoff = Date.now() - STALE_MS;
  for (const name of names) {
    if (!/^[0-9a-f]{32}$/.test(name)) continue;
    const path = join(dir, name);
    const st = statOrUndefined(path);
    if (st?.isFile() && st.mtimeMs < cutoff) unlinkQuietly(path);
  }
}
