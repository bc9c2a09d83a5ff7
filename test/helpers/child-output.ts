// A spawned child's whole output, for tests that must not block this process while it runs (spawnSync would:
// servers under test live in it, or two children run at once).
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";

export interface ChildOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What the child wrote, as text, and its exit code, once it has closed its output (`close`) or exited. */
export function outputOf(
  child: ChildProcessByStdio<Writable | null, Readable, Readable>,
  until: "close" | "exit" = "close",
): Promise<ChildOutput> {
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve) => child.on(until, (code) => resolve({ code, stdout, stderr })));
}
