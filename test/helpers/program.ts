// The command line in the test's own process: the program of src/cli/program.ts, built from the catalog as
// the binary builds it, run on streams of the test's making, in an environment and working directory of the
// test's choosing. What it answers is what test/helpers/cli-run.ts's runCli answers for dist/cli.js (exit
// code, stdout, stderr), without a build and without a Node start per command.
//
// The program reads process.env and the working directory where the binary would, so a run sets both for its
// duration and puts them back after: runs in one file go one at a time (vitest runs a file's tests in order).
// The variables are set in the process's own environment, not in a copy put in process.env's place: Node reads
// some of them from there (os.tmpdir() TMPDIR, os.homedir() HOME, the clock TZ), never from the object.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import type { InStream, Io, OutStream } from "../../src/cli/io.ts";
import { main } from "../../src/cli/program.ts";
import type { CliResult } from "./cli-run.ts";

export interface ProgramOptions {
  /** Set over the test process's own environment for the run. */
  env?: Record<string, string | undefined>;
  /** false: the run sees `env` alone, as a child started with exactly that environment would. */
  inheritEnv?: boolean;
  /** The working directory of the run (the test process's own by default). */
  cwd?: string;
  /** What the command reads on stdin (typed on the terminal when there is one). */
  stdin?: string;
  /**
   * The three streams as a terminal of this many columns, as a pseudo-terminal would make them (pipes by
   * default): what a command changes on a terminal (colour, fitting to the width, asking before it acts) reads
   * the streams' isTTY and columns, nothing else of them.
   */
  terminalColumns?: number;
}

/** A stream that keeps what is written to it, as a pipe's reader would. */
function collector(columns?: number): { stream: OutStream; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new PassThrough() as PassThrough & OutStream;
  stream.isTTY = columns !== undefined;
  if (columns !== undefined) stream.columns = columns;
  stream.on("data", (c: Buffer) => chunks.push(Buffer.from(c)));
  return { stream, text: () => Buffer.concat(chunks).toString("utf8") };
}

let running = false;

/** Runs `tapedeck ...args` in process and answers its exit code and output. */
export async function runProgram(args: string[], opts: ProgramOptions = {}): Promise<CliResult> {
  if (running) throw new Error("runProgram: one run at a time (it sets the process's env and cwd)");
  running = true;
  const out = collector(opts.terminalColumns);
  const err = collector(opts.terminalColumns);
  const stdin = Readable.from([Buffer.from(opts.stdin ?? "")]) as InStream;
  stdin.isTTY = opts.terminalColumns !== undefined;
  const streams: Io = { stdin, stdout: out.stream, stderr: err.stream };
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  setEnv({ ...(opts.inheritEnv === false ? {} : savedEnv), ...opts.env });
  try {
    if (opts.cwd) process.chdir(opts.cwd);
    const code = await main(["node", "tapedeck", ...args], streams);
    // Let the streams hand over their last chunks.
    await new Promise((resolve) => setImmediate(resolve));
    return { code, stdout: out.text(), stderr: err.text() };
  } finally {
    process.chdir(savedCwd);
    setEnv(savedEnv);
    running = false;
  }
}

/** Makes the process's environment exactly `env` (an undefined value: the variable unset). */
function setEnv(env: Record<string, string | undefined>): void {
  for (const k of Object.keys(process.env)) if (env[k] === undefined) delete process.env[k];
  for (const [k, v] of Object.entries(env)) if (v !== undefined && process.env[k] !== v) process.env[k] = v;
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
