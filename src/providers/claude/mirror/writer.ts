// Mirror files on disk. Layout under the mirror root:
//
//   <root>/session-mirror-events.jsonl         what the writer did (no content), rotated at 5 MB to .1
//   <root>/<session>/<timestamp>.jsonl          main thread, a new file each time the active one is full
//   <root>/<session>/agents/<agent>/<timestamp>.jsonl   one subagent (x-claude-code-agent-id)
//
// <session> and <agent> are mirrorDirName() of the header values, so no id
// can name a path outside the root; every directory below the root is
// lstat-checked (a symlink is refused, never followed) and files are opened
// with O_NOFOLLOW | O_NONBLOCK. The root and every directory below it must be
// the user's private directories, and a file appended to the user's private
// regular file, checked on the descriptor (core/base/fsutil.ts's owner rule): the
// mirror holds the conversation. Each message is ONE append of all its lines, so a crash
// leaves either the whole message or (at worst) one torn last line, which
// the next append steps over with a newline.
//
// Appends for one file are serialized: the parentUuid chain is linear in file
// order only if the record that reads the chain head also writes next. No
// method returns a rejecting promise: a backup must never become the reason a
// proxy process dies of an unhandled rejection.
import { constants, type Dirent } from "node:fs";
import { lstat, mkdir, open, readdir, rename, rmdir, unlink } from "node:fs/promises";
import { basename, join } from "node:path";
import { storedId } from "../../../core/archive/identity.ts";
import { isInside, sessionDirName, UnsafePathError } from "../../../core/archive/paths.ts";
import { errorCode } from "../../../core/base/diagnostics.ts";
import { assertOwnDir, assertOwnFile, DIR_MODE, FILE_MODE, isErrno } from "../../../core/base/fsutil.ts";
import { SWEEP_INTERVAL_MS } from "./dedup.ts";

export const EVENTS_FILE = "session-mirror-events.jsonl";
export const EVENTS_MAX_BYTES = 5 * 1024 * 1024;
export const AGENTS_DIR = "agents";
const DAY_MS = 86_400_000;

/**
 * Directory name of a session or agent id: the id as the archive stores it
 * (storedId: a credential-like id becomes `redacted-<hash>`, so a token sent
 * as a session header never lands on disk), then sessionDirName() (safe ids
 * pass unchanged, anything else becomes `h-<hash>`), except that a name which
 * would shadow the events log is hashed too. Every id that is not
 * credential-like keeps the name it had before storedId was applied.
 */
export function mirrorDirName(id: string): string {
  return legacyMirrorDirName(storedId(id));
}

/** The name before storedId: only restore uses it, to still find a mirror written under it. */
export function legacyMirrorDirName(id: string): string {
  const name = sessionDirName(id);
  return name.startsWith("session-mirror-events") ? sessionDirName(`\0${id}`) : name;
}

const APPEND_FLAGS =
  constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface MirrorTarget {
  sessionId: string;
  /** Subagent id, or null for the main thread. */
  agentId: string | null;
}

/** The chain position an append continues from. */
export interface ChainHead {
  /**
   * uuid of the target's last record (from memory, or the tail of its newest
   * file), null for a target with nothing written yet.
   */
  lastUuid: string | null;
}

export interface AppendBatch {
  records: readonly { uuid: string }[];
  /** Runs after the write succeeded and before the next append of the target starts. */
  onWritten?: () => void;
}

export type AppendResult =
  | { ok: true; file: string; bytes: number; records: number }
  | { ok: true; skipped: true }
  | { ok: false; stage: string; code: string };

/** The one I/O step that tests replace to simulate a failing disk. */
export interface MirrorIo {
  appendFile(path: string, data: Buffer): Promise<void>;
}

export interface MirrorEvent {
  action: "open" | "rotate" | "sweep" | "error";
  session?: string;
  agent?: string;
  file?: string;
  rotations?: number;
  bytes?: number;
  files?: number;
  dirs?: number;
  stage?: string;
  code?: string;
}

export interface MirrorWriterOptions {
  root: string;
  maxBytes: number;
  retentionDays: number;
  /** Bound on cached chain heads (LRU); an evicted head is re-read from disk. */
  maxTargets?: number;
  now?: () => number;
  io?: Partial<MirrorIo>;
  eventsMaxBytes?: number;
}

interface Head {
  dir: string;
  file: string | null;
  bytes: number;
  lastUuid: string | null;
  /** False when the file ends in a torn line, which must not swallow the next record. */
  endsWithNewline: boolean;
  rotations: number;
}

async function writeAllTo(path: string, data: Buffer): Promise<void> {
  const fh = await open(path, APPEND_FLAGS, FILE_MODE).catch((e: unknown) => {
    if (isErrno(e, "ELOOP")) throw new UnsafePathError("mirror file is a symlink", "is a symlink");
    if (isErrno(e, "ENXIO")) throw new UnsafePathError("mirror file is not a regular file");
    throw e;
  });
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new UnsafePathError("mirror file is not a regular file");
    assertOwnFile(path, st);
    let offset = 0;
    while (offset < data.length) {
      const { bytesWritten } = await fh.write(data, offset, data.length - offset);
      offset += bytesWritten;
    }
  } finally {
    await fh.close();
  }
}

const defaultIo: MirrorIo = { appendFile: writeAllTo };

/** Refuses a symlink, a non-directory or another user's directory at `path`; creates it (0700) when missing. */
async function ensureRealDir(path: string, recursive = false): Promise<void> {
  let st = await lstat(path).catch((e: unknown) => {
    if (isErrno(e, "ENOENT")) return undefined;
    throw e;
  });
  if (!st) {
    await mkdir(path, { mode: DIR_MODE, recursive }).catch((e: unknown) => {
      if (!isErrno(e, "EEXIST")) throw e;
    });
    st = await lstat(path);
  }
  if (st.isSymbolicLink()) throw new UnsafePathError("mirror directory is a symlink; refusing to follow it");
  if (!st.isDirectory()) throw new UnsafePathError("mirror path exists and is not a directory");
  assertOwnDir(path, st);
}

/** `2026-11-29T18-40-22-865Z`: sortable, and free of `:` which some file systems refuse. */
export function fileStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[:.]/g, "-");
}

const FILE_NAME = /^(.+?)(?:\.(\d+))?\.jsonl$/;

/** Orders mirror files oldest first: by timestamp, then by the `.N` suffix of same-millisecond files. */
export function compareMirrorFiles(a: string, b: string): number {
  const ma = FILE_NAME.exec(a);
  const mb = FILE_NAME.exec(b);
  const ba = ma?.[1] ?? a;
  const bb = mb?.[1] ?? b;
  if (ba !== bb) return ba < bb ? -1 : 1;
  return Number(ma?.[2] ?? 0) - Number(mb?.[2] ?? 0);
}

/** Mirror files of one directory (regular files only, never symlinks), oldest first. */
export async function listMirrorFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((e: unknown) => {
    if (isErrno(e, "ENOENT")) return [] as Dirent[];
    throw e;
  });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
    .map((e) => e.name)
    .sort(compareMirrorFiles);
}

function nextFileName(latest: string | null, now: number): string {
  const stamp = fileStamp(now);
  if (latest === null) return `${stamp}.jsonl`;
  const m = FILE_NAME.exec(latest);
  const base = m?.[1] ?? stamp;
  // A clock that stepped back (or two files in one millisecond) must still sort after the current file.
  if (stamp > base) return `${stamp}.jsonl`;
  return `${base}.${Number(m?.[2] ?? 0) + 1}.jsonl`;
}

const UUID_IN_TEXT = /"uuid":"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"/g;
const TAIL_FIRST = 64 * 1024;
const TAIL_MAX = 4 * 1024 * 1024;

function lastRecordUuid(lines: string[]): string | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    if (!line) continue;
    try {
      const rec = JSON.parse(line) as { uuid?: unknown };
      if (typeof rec?.uuid === "string") return rec.uuid;
    } catch {
      // a torn line: the record before it is the chain head
    }
  }
  return null;
}

/**
 * The chain head of an existing file: the uuid of its last complete record.
 * Reads backwards from the end in growing windows, so a cold start stays
 * cheap; a last record longer than 4 MB (a huge tool result) falls back to
 * the last `"uuid":"…"` key in the tail, which is that record's own uuid
 * because user and assistant records put it after `message`.
 */
async function readTail(path: string, size: number): Promise<{ lastUuid: string | null; newline: boolean }> {
  if (size === 0) return { lastUuid: null, newline: true };
  const fh = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    let window = Math.min(size, TAIL_FIRST);
    for (;;) {
      const buf = Buffer.alloc(window);
      await fh.read(buf, 0, window, size - window);
      const text = buf.toString("utf8");
      const newline = text.endsWith("\n");
      const lines = text.split("\n");
      // The first piece is part of an earlier line unless the window reaches the start of the file.
      const lastUuid = lastRecordUuid(window === size ? lines : lines.slice(1));
      if (lastUuid !== null || window === size) return { lastUuid, newline };
      if (window >= TAIL_MAX) {
        let found: string | null = null;
        for (const m of text.slice(-8192).matchAll(UUID_IN_TEXT)) found = m[1] ?? null;
        return { lastUuid: found, newline };
      }
      window = Math.min(size, window * 4);
    }
  } finally {
    await fh.close();
  }
}

/** Content-free log of what the writer did, rotated (single tier) at 5 MB. */
export class EventsLog {
  readonly path: string;
  private size: number | undefined;
  private queue: Promise<void> = Promise.resolve();
  private warnedUnsafeRoot = false;

  constructor(
    private readonly root: string,
    private readonly maxBytes = EVENTS_MAX_BYTES,
    private readonly now: () => number = Date.now,
  ) {
    this.path = join(root, EVENTS_FILE);
  }

  log(event: MirrorEvent): void {
    const line = Buffer.from(`${JSON.stringify({ ts: new Date(this.now()).toISOString(), ...event })}\n`);
    this.queue = this.queue.then(() => this.write(line)).catch(() => this.unwritable());
  }

  /** Resolves once every logged event was written or given up on. */
  idle(): Promise<void> {
    return this.queue;
  }

  private async write(line: Buffer): Promise<void> {
    await ensureRealDir(this.root, true);
    if (this.size === undefined) {
      const st = await lstat(this.path).catch(() => undefined);
      this.size = st?.isFile() ? st.size : 0;
    }
    if (this.size > 0 && this.size + line.length > this.maxBytes) {
      await rename(this.path, `${this.path}.1`);
      this.size = 0;
    }
    await writeAllTo(this.path, line);
    this.size += line.length;
  }

  private unwritable(): void {
    // Nowhere on disk to report to. Say so once on stderr, without details that could hold content.
    this.size = undefined;
    if (this.warnedUnsafeRoot) return;
    this.warnedUnsafeRoot = true;
    process.stderr.write("tapedeck mirror: cannot write the events log under the mirror root\n");
  }
}

export interface SweepResult {
  files: number;
  bytes: number;
  dirs: number;
}

export class MirrorWriter {
  readonly root: string;
  readonly events: EventsLog;
  private readonly maxBytes: number;
  private readonly retentionMs: number;
  private readonly maxTargets: number;
  private readonly now: () => number;
  private readonly io: MirrorIo;
  private readonly heads = new Map<string, Head>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private lastSweep = 0;
  private sweeping: Promise<void> | undefined;

  constructor(opts: MirrorWriterOptions) {
    this.root = opts.root;
    this.maxBytes = opts.maxBytes;
    this.retentionMs = opts.retentionDays * DAY_MS;
    this.maxTargets = opts.maxTargets ?? 1024;
    this.now = opts.now ?? Date.now;
    this.io = { ...defaultIo, ...opts.io };
    this.events = new EventsLog(opts.root, opts.eventsMaxBytes ?? EVENTS_MAX_BYTES, this.now);
  }

  /** Directory of a target, made only of sanitized names below the root. */
  targetDir(target: MirrorTarget): string {
    const session = join(this.root, mirrorDirName(target.sessionId));
    return target.agentId === null ? session : join(session, AGENTS_DIR, mirrorDirName(target.agentId));
  }

  private targetKey(target: MirrorTarget): string {
    return this.targetDir(target);
  }

  private labels(target: MirrorTarget): Pick<MirrorEvent, "session" | "agent"> {
    const out: Pick<MirrorEvent, "session" | "agent"> = { session: mirrorDirName(target.sessionId) };
    if (target.agentId !== null) out.agent = mirrorDirName(target.agentId);
    return out;
  }

  /**
   * Calls `build` with the target's chain head and appends the records it
   * returns as one write. Serialized per target; never rejects.
   */
  append(target: MirrorTarget, build: (head: ChainHead) => AppendBatch | null): Promise<AppendResult> {
    const key = this.targetKey(target);
    const prev = this.queues.get(key) ?? Promise.resolve();
    const run = prev.then(() => this.appendNow(target, key, build));
    const settled = run.catch(
      (error: unknown): AppendResult => ({ ok: false, stage: "append", code: errorCode(error) }),
    );
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return settled;
  }

  /** Resolves when every queued append and event has finished. */
  async idle(): Promise<void> {
    while (this.queues.size > 0 || this.sweeping) {
      await Promise.all([...this.queues.values(), this.sweeping]);
    }
    await this.events.idle();
  }

  private async appendNow(
    target: MirrorTarget,
    key: string,
    build: (head: ChainHead) => AppendBatch | null,
  ): Promise<AppendResult> {
    let stage = "open";
    try {
      const head = await this.loadHead(target, key);
      stage = "build";
      const batch = build({ lastUuid: head.lastUuid });
      if (!batch || batch.records.length === 0) return { ok: true, skipped: true };
      let text = batch.records.map((r) => `${JSON.stringify(r)}\n`).join("");
      if (!head.endsWithNewline && head.bytes > 0) text = `\n${text}`;
      const data = Buffer.from(text);

      stage = "rotate";
      if (head.file === null || (head.bytes > 0 && head.bytes + data.length > this.maxBytes)) {
        await this.startFile(target, head);
      }
      const file = head.file as string;
      stage = "write";
      try {
        await this.writeData(file, data);
      } catch (error) {
        // A sweep may have pruned the directory between load and write: recreate it once.
        if (!isErrno(error, "ENOENT")) throw error;
        await this.ensureTargetDir(target);
        await this.writeData(file, data);
      }
      head.bytes += data.length;
      head.endsWithNewline = true;
      head.lastUuid = batch.records[batch.records.length - 1]?.uuid ?? head.lastUuid;
      stage = "commit";
      batch.onWritten?.();
      return { ok: true, file, bytes: data.length, records: batch.records.length };
    } catch (error) {
      // How much reached the file is unknown: re-read the head from disk next time.
      this.heads.delete(key);
      const code = errorCode(error);
      this.events.log({ action: "error", ...this.labels(target), stage, code });
      return { ok: false, stage, code };
    }
  }

  /** The io step is called inside a promise chain so that a synchronous throw becomes a rejection. */
  private async writeData(path: string, data: Buffer): Promise<void> {
    await this.io.appendFile(path, data);
  }

  private async ensureTargetDir(target: MirrorTarget): Promise<string> {
    const dir = this.targetDir(target);
    if (!isInside(this.root, dir)) throw new UnsafePathError("mirror path escapes the root");
    await ensureRealDir(this.root, true);
    const sessionDir = join(this.root, mirrorDirName(target.sessionId));
    await ensureRealDir(sessionDir);
    if (target.agentId !== null) {
      await ensureRealDir(join(sessionDir, AGENTS_DIR));
      await ensureRealDir(dir);
    }
    return dir;
  }

  private async loadHead(target: MirrorTarget, key: string): Promise<Head> {
    const cached = this.heads.get(key);
    if (cached) {
      this.heads.delete(key);
      this.heads.set(key, cached);
      return cached;
    }
    const dir = await this.ensureTargetDir(target);
    const files = await listMirrorFiles(dir);
    const latest = files[files.length - 1];
    const head: Head = {
      dir,
      file: null,
      bytes: 0,
      lastUuid: null,
      endsWithNewline: true,
      rotations: Math.max(files.length - 1, 0),
    };
    if (latest !== undefined) {
      const path = join(dir, latest);
      const st = await lstat(path);
      const tail = await readTail(path, st.size);
      head.file = path;
      head.bytes = st.size;
      head.lastUuid = tail.lastUuid;
      head.endsWithNewline = tail.newline;
      if (st.size < this.maxBytes) {
        this.events.log({ action: "open", ...this.labels(target), file: latest, bytes: st.size });
      }
    }
    this.heads.set(key, head);
    while (this.heads.size > this.maxTargets) {
      this.heads.delete(this.heads.keys().next().value as string);
    }
    return head;
  }

  /** Opens the next file of a target: the first one, or a rotation when the active file is full. */
  private async startFile(target: MirrorTarget, head: Head): Promise<void> {
    const previous = head.file;
    const name = nextFileName(previous === null ? null : basename(previous), this.now());
    head.file = join(head.dir, name);
    head.endsWithNewline = true;
    if (previous !== null) {
      head.rotations += 1;
      this.events.log({
        action: "rotate",
        ...this.labels(target),
        file: name,
        rotations: head.rotations,
        bytes: head.bytes,
      });
    } else {
      this.events.log({ action: "open", ...this.labels(target), file: name, bytes: 0 });
    }
    head.bytes = 0;
  }

  /** Starts a retention sweep if the last one is more than a minute old. Never throws. */
  maybeSweep(): void {
    const now = this.now();
    if (this.sweeping || now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    this.sweeping = this.sweep()
      .then(() => undefined)
      .catch((error: unknown) => {
        this.events.log({ action: "error", stage: "sweep", code: errorCode(error) });
      })
      .finally(() => {
        this.sweeping = undefined;
      });
  }

  /**
   * Unlinks every mirror file (rotated or active) whose mtime is past the
   * retention window, so an abandoned session's active file goes too, then
   * prunes directories left empty. Symlinks are skipped, never followed.
   */
  async sweep(): Promise<SweepResult> {
    const cutoff = this.now() - this.retentionMs;
    const result: SweepResult = { files: 0, bytes: 0, dirs: 0 };
    const sessions = await readdir(this.root, { withFileTypes: true }).catch(() => [] as Dirent[]);
    for (const s of sessions) {
      if (!s.isDirectory()) continue;
      const sessionDir = join(this.root, s.name);
      const agentsDir = join(sessionDir, AGENTS_DIR);
      const agents = await readdir(agentsDir, { withFileTypes: true }).catch(() => [] as Dirent[]);
      let agentsChanged = false;
      for (const a of agents) {
        if (a.isDirectory() && (await this.sweepDir(join(agentsDir, a.name), cutoff, false, result))) {
          agentsChanged = true;
        }
      }
      const agentsGone =
        agents.length > 0 && (await this.pruneIfEmpty(agentsDir, cutoff, agentsChanged, result));
      await this.sweepDir(sessionDir, cutoff, agentsGone, result);
    }
    if (result.files > 0) {
      this.events.log({ action: "sweep", files: result.files, bytes: result.bytes, dirs: result.dirs });
    }
    return result;
  }

  /** Returns whether anything in `dir` (or `dir` itself) was removed. */
  private async sweepDir(dir: string, cutoff: number, childRemoved: boolean, result: SweepResult) {
    let removed = childRemoved;
    for (const name of await listMirrorFiles(dir)) {
      const path = join(dir, name);
      const st = await lstat(path).catch(() => undefined);
      if (!st?.isFile() || st.mtimeMs >= cutoff) continue;
      try {
        await unlink(path);
      } catch {
        continue;
      }
      removed = true;
      result.files += 1;
      result.bytes += st.size;
      for (const [key, head] of this.heads) if (head.file === path) this.heads.delete(key);
    }
    return (await this.pruneIfEmpty(dir, cutoff, removed, result)) || removed;
  }

  /**
   * An empty directory goes if this sweep emptied it or it has been idle past
   * the window; a directory that was just created for a first write is
   * empty too, and must stay.
   */
  private async pruneIfEmpty(dir: string, cutoff: number, emptiedNow: boolean, result: SweepResult) {
    const st = await lstat(dir).catch(() => undefined);
    if (!st?.isDirectory()) return false;
    if (!emptiedNow && st.mtimeMs >= cutoff) return false;
    try {
      await rmdir(dir);
    } catch {
      return false; // not empty (or already gone): nothing to prune
    }
    result.dirs += 1;
    for (const [key, head] of this.heads) if (isInside(dir, head.dir)) this.heads.delete(key);
    return true;
  }
}
