// The command line's streams and exit code, injected. `dist/cli.js` runs a command on the process's own
// stdin, stdout and stderr; a test runs the same program in its own process (test/helpers/program.ts) with
// streams of its own and reads what the command wrote and the code it answered. Every command writes through
// `io()`, reads its input from `io().stdin` (./stdin.ts) and sets its code through `setExitCode`, never
// `process.stdout`, fd 0 or `process.exitCode`, so that two ways of running it cannot differ. The run's
// context follows the command through every await (AsyncLocalStorage), which costs nothing measurable at
// start-up (a built-in, no hooks installed).
import { AsyncLocalStorage } from "node:async_hooks";
import type { Readable, Writable } from "node:stream";

export type OutStream = Writable & { isTTY?: boolean; columns?: number };
export type InStream = Readable & { isTTY?: boolean };

export interface Io {
  stdin: InStream;
  stdout: OutStream;
  stderr: OutStream;
}

interface RunContext {
  io: Io;
  /** What the command answered beyond its return (a search with no hit, the agent's own code for `run`). */
  exitCode?: number;
}

const runs = new AsyncLocalStorage<RunContext>();

const processIo: Io = {
  get stdin() {
    return process.stdin as InStream;
  },
  get stdout() {
    return process.stdout as OutStream;
  },
  get stderr() {
    return process.stderr as OutStream;
  },
};

/** The streams of the command running now: the process's own outside a run. */
export function io(): Io {
  return runs.getStore()?.io ?? processIo;
}

/** The exit code the command answers unless it fails first. */
export function setExitCode(code: number): void {
  const run = runs.getStore();
  if (run) run.exitCode = code;
  else process.exitCode = code;
}

/** Runs `fn` with `streams` as the command line's, and answers its result with the exit code it set. */
export async function withIo<T>(
  streams: Io,
  fn: () => Promise<T>,
): Promise<{ result: T; exitCode?: number }> {
  const run: RunContext = { io: streams };
  const result = await runs.run(run, fn);
  return { result, ...(run.exitCode !== undefined ? { exitCode: run.exitCode } : {}) };
}
