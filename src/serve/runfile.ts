// Where a running hook server says how to reach it: one small file per
// project under the user's tapedeck home (0700), "PORT PID TOKEN REPLY\n", 0600.
// Not in the project: a file planted there (a cloned repository can carry a
// `.tapedeck/`) must never steer the hook client to someone else's port. The
// token is new for every server run and exists nowhere else, so no file
// another user can read lets them write into the archive. REPLY is the
// server's proof to the client: the client sends TOKEN with every payload (so
// a squatter on the port learns it), but never REPLY, and prints a server's
// output for the agent (retrieval's added context) only from an answer that
// carries REPLY: nobody else's text ever reaches the agent's context.
import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, openSync, readSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { tapedeckHome } from "../core/archive/session-registry.ts";
import { isErrno, writeFileAtomicSync } from "../core/base/fsutil.ts";
import { ownProcessAlive } from "../core/base/pids.ts";
import { ensureRunDir } from "../core/ports/run-dir.ts";

export interface RunInfo {
  port: number;
  pid: number;
  token: string;
  /** The server's proof in an answer with output; absent in a run file of a server from before it. */
  reply?: string;
}

/** The run file of `project` (a realpath), as the installer bakes it into the hook command. */
export function runFilePath(project: string, env: Record<string, string | undefined> = process.env): string {
  const key = createHash("sha256").update(project).digest("hex").slice(0, 32);
  return join(tapedeckHome(env), "run", `${key}.endpoint`);
}

export function newToken(): string {
  return randomBytes(24).toString("hex");
}

export function writeRunFile(path: string, info: RunInfo): void {
  ensureRunDir(path);
  const fields = [info.port, info.pid, info.token, ...(info.reply ? [info.reply] : [])];
  writeFileAtomicSync(path, `${fields.join(" ")}\n`);
}

/** Reads the run file without following a symlink or blocking on a FIFO; undefined when absent or malformed. */
export function readRunFile(path: string): RunInfo | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const m = /^(\d{1,5}) (\d{1,10}) ([0-9a-f]{16,128})(?: ([0-9a-f]{16,128}))?\n$/.exec(
      buf.subarray(0, n).toString("latin1"),
    );
    if (!m) return undefined;
    return { port: Number(m[1]), pid: Number(m[2]), token: m[3]!, ...(m[4] ? { reply: m[4] } : {}) };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Removes the run file if it still names `pid` (a newer server may have replaced it). */
export function removeRunFile(path: string, pid: number): void {
  if (readRunFile(path)?.pid !== pid) return;
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isErrno(error, "ENOENT")) throw error;
  }
}

/** The server named by the run file, if its process is alive (the same test the hook client makes). */
export function liveServer(path: string): RunInfo | undefined {
  const info = readRunFile(path);
  return info && ownProcessAlive(info.pid) ? info : undefined;
}
