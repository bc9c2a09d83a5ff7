// Whether a process id names a live process, asked with signal 0 (no /proc: macOS too).
import { isErrno } from "./fsutil.ts";

function probe(pid: number | null | undefined): "alive" | "dead" | "foreign" {
  if (!pid || !Number.isInteger(pid) || pid <= 0) return "dead";
  try {
    process.kill(pid, 0);
    return "alive";
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return isErrno(error, "EPERM") ? "foreign" : "dead";
  }
}

/** The process exists, whoever owns it: a lock or a session held by it is not stale. */
export function processExists(pid: number | null | undefined): boolean {
  return probe(pid) !== "dead";
}

/** The process exists and is this user's: the test the hook client makes (`kill -0`) before trusting a server. */
export function ownProcessAlive(pid: number | null | undefined): boolean {
  return probe(pid) === "alive";
}
