// The hook server's idle work (the search index, automatic OTLP export, retention) runs as a `tapedeck`
// command in a child process at low priority: better-sqlite3 and the exporters are synchronous or heavy,
// and in-process batches held the server's event loop 24-121 ms (bench/memory-index), which a hook
// waiting on its answer would feel.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { setPriority } from "node:os";
import { fileURLToPath } from "node:url";

/** Below the agent and the server: the work is never urgent. */
const CHILD_NICE = 10;

/** dist/cli.js when this code runs from a bundle in dist/ (the server), else undefined (tests from source). */
export function builtCli(): string | undefined {
  try {
    const path = fileURLToPath(new URL("./cli.js", import.meta.url));
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `node CLI ...args` detached from the server's lifetime; `onExit` gets its exit code (null: it never ran). */
export function runCliInBackground(
  cli: string,
  args: string[],
  onExit?: (code: number | null) => void,
): void {
  const child = spawn(process.execPath, [cli, ...args], { stdio: "ignore", env: process.env });
  let reported = false;
  const report = (code: number | null) => {
    if (reported) return;
    reported = true;
    onExit?.(code);
  };
  child.on("error", () => report(null));
  child.on("exit", (code) => report(code));
  try {
    if (child.pid !== undefined) setPriority(child.pid, CHILD_NICE);
  } catch {
    // not allowed here: it runs at normal priority
  }
  child.unref();
}
