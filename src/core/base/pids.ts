// Whether a process id names a live process, asked with signal 0 (no /proc: macOS too).
import { readFileSync } from "node:fs";
import { isErrno } from "./fsutil.ts";

/**
 * A process that has exited but not been reaped: signal 0 still reaches it, yet it holds no port and no lock
 * any more. A killed hook server is nobody's child, and a container's init may reap it seconds later (or
 * never, when the agent is PID 1). Linux tells in /proc; without /proc (macOS) launchd reaps orphans at once.
 */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    const state = stat.charAt(stat.lastIndexOf(")") + 2);
    return state === "Z" || state === "X";
  } catch {
    return false;
  }
}

function probe(pid: number | null | undefined): "alive" | "dead" | "foreign" {
  if (!pid || !Number.isInteger(pid) || pid <= 0) return "dead";
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    if (!isErrno(error, "EPERM")) return "dead";
    return zombie(pid) ? "dead" : "foreign";
  }
  return zombie(pid) ? "dead" : "alive";
}

/** The process exists, whoever owns it: a lock or a session held by it is not stale. */
export function processExists(pid: number | null | undefined): boolean {
  return probe(pid) !== "dead";
}

/** The process exists and is this user's: the test the hook client makes (`kill -0`) before trusting a server. */
export function ownProcessAlive(pid: number | null | undefined): boolean {
  return probe(pid) === "alive";
}
