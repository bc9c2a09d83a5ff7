// One validator command: /bin/sh -c in the arm's work tree, in a process group of its own so its timeout
// ends everything it started (a `sleep &` keeps the pipes open and would hang the run), stdin closed, and
// its output bounded as it streams (head and tail kept, the middle only counted: a validator writing
// 100 MB costs 8 KiB of memory) and redacted before it is evidence anywhere.
import { spawn } from "node:child_process";
import { redactText } from "@tapedeck/redact";
import type { Validator } from "./schema.ts";

export const OUTPUT_HEAD_BYTES = 4096;
export const OUTPUT_TAIL_BYTES = 4096;

export interface ValidatorOutcome {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Bytes the command wrote (stdout and stderr), all of them, kept or not. */
  outputBytes: number;
  /** Bounded and redacted. */
  output: string;
  durationMs: number;
}

/** Keeps the first and last bytes of a stream of any length. */
class Bounded {
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);
  total = 0;

  add(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.head.length < OUTPUT_HEAD_BYTES) {
      const take = chunk.subarray(0, OUTPUT_HEAD_BYTES - this.head.length);
      this.head = Buffer.concat([this.head, take]);
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    const joined = Buffer.concat([this.tail, chunk.subarray(Math.max(0, chunk.length - OUTPUT_TAIL_BYTES))]);
    this.tail = joined.subarray(Math.max(0, joined.length - OUTPUT_TAIL_BYTES));
  }

  text(): string {
    const kept = this.head.length + this.tail.length;
    const cut = this.total - kept;
    const middle = cut > 0 ? `\n[… ${cut} bytes not kept …]\n` : "";
    // toString replaces a character cut in half at either edge: the evidence stays valid text.
    return redactText(`${this.head.toString("utf8")}${middle}${this.tail.toString("utf8")}`).text;
  }
}

/** Variables that would make a validator act as tapedeck's own hook or a replay's arm. */
const DROPPED = /^(TAPEDECK_|CLAUDECODE$|CLAUDE_CODE_SESSION_ID$)/;

export function runValidator(v: Validator, cwd: string, env: NodeJS.ProcessEnv): Promise<ValidatorOutcome> {
  return new Promise((resolve) => {
    const started = Date.now();
    const out = new Bounded();
    let timedOut = false;
    const clean: Record<string, string> = {};
    for (const [k, val] of Object.entries(env)) if (val !== undefined && !DROPPED.test(k)) clean[k] = val;
    const child = spawn("/bin/sh", ["-c", v.command], {
      cwd,
      env: clean,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // the group is gone already
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, v.timeout_s * 1000);
    child.stdout.on("data", (d: Buffer) => out.add(d));
    child.stderr.on("data", (d: Buffer) => out.add(d));
    let settled = false;
    const finish = (code: number | null, signal: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // What it left running in the background goes with it.
      killGroup();
      resolve({
        exitCode: code,
        signal,
        timedOut,
        outputBytes: out.total,
        output: out.text(),
        durationMs: Date.now() - started,
      });
    };
    child.on("error", () => finish(null, "spawn-error"));
    child.on("close", (code, signal) => finish(code, signal));
  });
}
