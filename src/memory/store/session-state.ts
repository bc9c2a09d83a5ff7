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
//
// Cost: a process keeps each session's lines parsed and, on the next prompt, reads only what was appended
// since (one lstat when nothing was): parsing the whole file each time grew with the session, ~0.9 ms at a
// thousand prompts on a loaded machine. A process that has not seen the session (a one-shot hook) reads it once.
import { createHash } from "node:crypto";
import { fstatSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { tapedeckDir } from "../../core/archive/paths.ts";
import { readRange } from "../../core/base/byte-range.ts";
import {
  appendRegularSync,
  ensureOwnDirUnder,
  ensureRealDirUnder,
  pruneStaleFiles,
  unlinkQuietly,
  withRegularFile,
} from "../../core/base/fsutil.ts";

export const STATE_DIR = "retrieval";
/** A session's file is read from its end, at most this much: ~25,000 prompts' worth of lines. */
const MAX_READ_BYTES = 1024 * 1024;
/** Past this many files a new one clears those of sessions idle for STALE_MS. */
const PRUNE_ABOVE = 256;
const STALE_MS = 30 * 24 * 3600 * 1000;
const ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;
/** A session's state file: the hash of its id (statePath). */
const SESSION_FILE = /^[0-9a-f]{32}$/;
/** Sessions a process keeps parsed; past it the cache starts over (each is read again once). */
const CACHED_SESSIONS = 512;

/** What a session was given, as a process knows it. */
interface Known {
  ino: number;
  /** Bytes of the file parsed so far (up to the last whole line). */
  parsed: number;
  /** Item id → the prompts it was given to. */
  items: Map<string, number>;
  /** Prompt event id → the items it was given. */
  prompts: Map<string, string[]>;
}

const known = new Map<string, Known>();
const paths = new Map<string, string>();

export interface SessionMemory {
  /** Whether another prompt of this session was given the item since its context started afresh. */
  has(id: string): boolean;
  /** What this very prompt was given by an earlier attempt of its hook (a retry), if anything. */
  again?: string[];
}

const NOTHING: SessionMemory = { has: () => false };

function stateDir(projectRoot: string): string {
  return join(tapedeckDir(projectRoot), STATE_DIR);
}

export function statePath(projectRoot: string, sessionId: string): string {
  const key = `${projectRoot}\u0000${sessionId}`;
  let path = paths.get(key);
  if (path === undefined) {
    if (paths.size >= CACHED_SESSIONS) paths.clear();
    const name = createHash("sha256").update(sessionId).digest("hex").slice(0, 32);
    path = join(stateDir(projectRoot), name);
    paths.set(key, path);
  }
  return path;
}

/** Forgets what this process parsed (what a newly started process knows): for measuring a cold read. */
export function dropParsedSessions(): void {
  known.clear();
}

/** What the session was given so far; an unreadable or planted file (a symlink, a FIFO) counts as nothing. */
export function readSessionMemory(
  projectRoot: string,
  sessionId: string,
  promptEventId: string,
): SessionMemory {
  const path = statePath(projectRoot, sessionId);
  const state = refresh(path);
  if (!state) return NOTHING;
  const mine = state.prompts.get(promptEventId);
  return {
    has: (id) => (state.items.get(id) ?? 0) - (mine?.includes(id) ? 1 : 0) > 0,
    ...(mine ? { again: [...mine] } : {}),
  };
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
  // Under a real .tapedeck/retrieval only: a planted symlink in its place never takes the write elsewhere.
  ensureRealDirUnder(projectRoot, dir, true);
  const path = statePath(projectRoot, sessionId);
  const fresh = lstatSync(path, { throwIfNoEntry: false }) === undefined;
  appendRegularSync(path, `${promptEventId} ${safe.join(",")}\n`);
  // Files of sessions nobody prompted for a month, once there are many: a session's file is its own.
  if (fresh) pruneStaleFiles(dir, SESSION_FILE, PRUNE_ABOVE, STALE_MS);
}

/** The agent's context started afresh (a compaction, a cleared conversation): everything may be given again. */
export function forgetGiven(projectRoot: string, sessionId: string): void {
  const path = statePath(projectRoot, sessionId);
  known.delete(path);
  try {
    if (!ensureOwnDirUnder(projectRoot, stateDir(projectRoot), false)) return;
  } catch {
    return;
  }
  unlinkQuietly(path);
}

/** The session's lines, parsed: what this process knew, plus what was appended since. */
function refresh(path: string): Known | undefined {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st?.isFile()) {
    known.delete(path);
    return undefined;
  }
  let state = known.get(path);
  if (state && state.ino === st.ino && state.parsed === st.size) return state;
  if (!state || state.ino !== st.ino || st.size < state.parsed) {
    if (known.size >= CACHED_SESSIONS) known.clear();
    state = {
      ino: st.ino,
      parsed: Math.max(0, st.size - MAX_READ_BYTES),
      items: new Map(),
      prompts: new Map(),
    };
    known.set(path, state);
  }
  const text = readFrom(path, state.parsed, st.size);
  if (text === undefined) return state;
  // Up to the last whole line: a line being appended right now is read next time.
  const end = text.lastIndexOf("\n");
  if (end < 0) return state;
  for (const line of text.slice(0, end).split("\n")) parseLine(state, line);
  state.parsed += Buffer.byteLength(text.slice(0, end + 1));
  return state;
}

function parseLine(state: Known, line: string): void {
  const space = line.indexOf(" ");
  if (space <= 0) return;
  const prompt = line.slice(0, space);
  if (state.prompts.has(prompt)) return;
  const ids = line
    .slice(space + 1)
    .split(",")
    .filter((id) => id.length > 0 && id.length <= 128);
  state.prompts.set(prompt, ids);
  for (const id of ids) state.items.set(id, (state.items.get(id) ?? 0) + 1);
}

/** Gone, or a symlink or a FIFO put in its place since the lstat: undefined, and nothing followed. */
function readFrom(path: string, from: number, to: number): string | undefined {
  return withRegularFile(path, (fd) =>
    readRange(fd, from, Math.min(to, fstatSync(fd).size)).toString("utf8"),
  );
}
