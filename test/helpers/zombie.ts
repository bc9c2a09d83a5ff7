// A process that has exited but not been reaped: a short sleep exits under a parent (a long sleep, exec'd
// over the shell) that never waits for it; it ends after the exec, so the shell cannot have reaped it first. Its pid still answers signal 0, as a killed hook server's does until init reaps
// it. Linux's /proc tells its state (the tests that use it run where CI does).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";

/** The state letter of `pid` (R, S, Z, ...), or "" when there is no such process. */
export function processState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.charAt(stat.lastIndexOf(")") + 2);
  } catch {
    return "";
  }
}

/** A zombie's pid, and its parent to kill when the test ends (the zombie goes with it). */
export async function zombie(): Promise<{ pid: number; parent: ChildProcess }> {
  const parent = spawn("sh", ["-c", "sleep 0.1 & echo $!; exec sleep 60"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const pid = await new Promise<number>((resolve) => {
    parent.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim())));
  });
  for (let i = 0; i < 500 && processState(pid) !== "Z"; i += 1) await new Promise((r) => setTimeout(r, 10));
  return { pid, parent };
}
