// One agent process of a run: its own process group (a timeout or Ctrl-C ends the shells and hooks it
// started too), stdin closed (an open pipe is read as more prompt by claude and codex) or, when given, the
// prompt written to it and closed, output collected.
import { spawn } from "node:child_process";
import type { Spawn } from "../core/ports/replay-driver.ts";

/** Output beyond this is dropped: the result JSON comes first in practice and the rest is the agent's noise. */
const MAX_OUTPUT_CHARS = 16 * 1024 * 1024;

export function makeSpawner(opts: { timeoutMs: number; signal?: AbortSignal }): Spawn {
  return (command, args, { cwd, env, input }) =>
    new Promise((resolve) => {
      const started = Date.now();
      let stdout = "";
      let stderr = "";
      let timedOut = false;
      let settled = false;
      const stdin = input === undefined ? "ignore" : "pipe";
      const child = spawn(command, args, { cwd, env, stdio: [stdin, "pipe", "pipe"], detached: true });
      if (child.stdin) {
        // A CLI that exits without reading its stdin makes the write fail with EPIPE: its exit code tells.
        child.stdin.on("error", () => {});
        child.stdin.end(input);
      }
      const killGroup = (sig: NodeJS.Signals) => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, sig);
        } catch {
          // already gone
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup("SIGKILL");
      }, opts.timeoutMs);
      const onAbort = () => {
        killGroup("SIGTERM");
        setTimeout(() => killGroup("SIGKILL"), 2000).unref();
      };
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      child.stdout?.setEncoding("utf8").on("data", (d: string) => {
        if (stdout.length < MAX_OUTPUT_CHARS) stdout += d;
      });
      child.stderr?.setEncoding("utf8").on("data", (d: string) => {
        if (stderr.length < MAX_OUTPUT_CHARS) stderr += d;
      });
      const finish = (code: number | null, signal: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
        resolve({ code, signal, stdout, stderr, timedOut, durationMs: Date.now() - started });
      };
      child.on("error", () => finish(null, "spawn-error"));
      child.on("close", (code, signal) => finish(code, signal));
    });
}
