// The command line in the test's own process: the program of src/cli/program.ts, built from the catalog as
// the binary builds it, run on streams of the test's making, in an environment and working directory of the
// test's choosing. What it answers is what test/helpers/cli-run.ts's runCli answers for dist/cli.js (exit
// code, stdout, stderr), without a build and without a Node start per command.
//
// The program reads process.env and the working directory where the binary would, so a run sets both for its
// duration and puts them back after: runs in one file go one at a time (vitest runs a file's tests in order).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import type { InStream, Io, OutStream } from "../../src/cli/io.ts";
import { main } from "../../src/cli/program.ts";
import type { CliResult } from "./cli-run.ts";

export interface ProgramOptions {
  /** Set over the test process's own environment for the run. */
  env?: Record<string, string | undefined>;
  /** The working directory of the run (the test process's own by default). */
  cwd?: string;
  /** What the command reads on stdin: never a terminal. */
  stdin?: string;
}

/** A stream that keeps what is written to it, as a pipe's reader would. */
function collector(): { stream: OutStream; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new PassThrough() as PassThrough & OutStream;
  stream.isTTY = false;
  stream.on("data", (c: Buffer) => chunks.push(Buffer.from(c)));
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

let running = false;

/** Runs `tapedeck ...args` in process and answers its exit code and output. */
export async function runProgram(args: string[], opts: ProgramOptions = {}): Promise<CliResult> {
  if (running) throw new Error("runProgram: one run at a time (it sets the process's env and cwd)");
  running = true;
  const out = collector();
  const err = collector();
  const stdin = Readable.from([Buffer.from(opts.stdin ?? "")]) as InStream;
  stdin.isTTY = false;
  const streams: Io = { stdin, stdout: out.stream, stderr: err.stream };
  const savedEnv = process.env;
  const savedCwd = process.cwd();
  process.env = { ...savedEnv, ...opts.env };
  for (const [k, v] of Object.entries(opts.env ?? {})) if (v === undefined) delete process.env[k];
  try {
    if (opts.cwd) process.chdir(opts.cwd);
    const code = await main(["node", "tapedeck", ...args], streams);
    // Let the streams hand over their last chunks.
    await new Promise((resolve) => setImmediate(resolve));
    return { code, stdout: out.text(), stderr: err.text() };
  } finally {
    process.chdir(savedCwd);
    process.env = savedEnv;
    running = false;
  }
}

/**
 * runCli's signature in process: the user's tapedeck home and mirror in `home`, so a command that reads the
 * registry or the mirror never sees (nor removes) the real ones.
 */
export function runCliInProcess(
  args: string[],
  home: string,
  env: Record<string, string> = {},
  opts: Omit<ProgramOptions, "env"> = {},
): Promise<CliResult> {
  mkdirSync(home, { recursive: true });
  return runProgram(args, {
    ...opts,
    env: {
      HOME: home,
      TAPEDECK_HOME: join(home, ".tapedeck"),
      TAPEDECK_MIRROR_DIR: join(home, "mirror"),
      ...env,
    },
  });
}
