// The program of the `tapedeck` entry (./main.ts, dist/cli.js). It knows the commands only by the table
// in ./catalog.ts and loads the one command it runs: with every command
// imported up front, `tapedeck --version` took 2.46x `node -e 0`, most of it
// in modules the command never used (undici, the proxy, the archive); see
// bench/cli.bench.ts for the figures now. The other commands are registered as
// names and descriptions only, enough for `tapedeck --help`, the "did you
// mean" of a typo and the exit codes commander gives.
import { Command, CommanderError, Help } from "commander";
import { fields, printable, printableText } from "../core/base/printable.ts";
import { CATALOG, catalogEntry } from "./catalog.ts";
import { CliError, EXIT } from "./cli-error.ts";
import { groupIndex, HELP_GROUPS } from "./help-groups.ts";
import { type Io, io, withIo } from "./io.ts";
import { VERSION } from "./version.ts";

/**
 * The command argv runs, found as commander finds it: the program's own options (--version, --help) take no
 * value and come first (positional options), so the first operand is the command; `help X` shows X's help.
 */
export function commandNameOf(args: readonly string[]): string | undefined {
  const operands: string[] = [];
  for (let i = 0; i < args.length && operands.length < 2; i += 1) {
    const a = args[i]!;
    if (a === "--") {
      operands.push(...args.slice(i + 1, i + 3));
      break;
    }
    if (a.length > 1 && a.startsWith("-") && operands.length === 0) continue;
    operands.push(a);
  }
  return operands[0] === "help" ? operands[1] : operands[0];
}

/** The program with `only` defined in full (or every command, for a test), the others as catalog entries. */
export async function buildProgram(only: string | "all" | undefined): Promise<Command> {
  const program = new Command()
    .name("tapedeck")
    .description("A local flight recorder for AI coding agents: opt-in, per project, redacted, append-only.")
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride()
    // `run` passes the agent's options through: options after a command belong to that command. The program's
    // only own options are --version and --help, which go first anyway.
    .enablePositionalOptions()
    // Through the run's streams (./io.ts): help, usage errors and the version are the command's output too.
    .configureOutput({
      writeOut: (text) => io().stdout.write(text),
      writeErr: (text) => io().stderr.write(text),
      // As commander's own: a terminal's width, else its default (commander reads undefined as 80).
      getOutHelpWidth: () => (io().stdout.isTTY ? io().stdout.columns : undefined) as number,
      getErrHelpWidth: () => (io().stderr.isTTY ? io().stderr.columns : undefined) as number,
    });
  const standard = new Help();
  program.configureHelp({
    // A command known only by its entry has no options yet: its term in the list comes from the catalog.
    subcommandTerm: (cmd) =>
      (cmd.parent === program ? catalogEntry(cmd.name())?.term : undefined) ?? standard.subcommandTerm(cmd),
  });
  // Registered group by group (the catalog's order within one): commander lists groups as they first appear.
  const entries = CATALOG.map((e, i) => ({ e, i })).sort(
    (a, b) => groupIndex(a.e.name) - groupIndex(b.e.name) || a.i - b.i,
  );
  const modules = await Promise.all(
    entries.map(({ e }) => (only === "all" || e.name === only ? e.load() : undefined)),
  );
  entries.forEach(({ e: entry }, i) => {
    const module = modules[i];
    if (module) module.register(program);
    else program.command(entry.name).description(entry.description);
    program.commands.at(-1)?.helpGroup(HELP_GROUPS[groupIndex(entry.name)]!.heading);
  });
  // `help [command]` goes with the internal commands, last.
  program.commandsGroup(HELP_GROUPS.at(-1)!.heading).helpCommand(true);
  return program;
}

/** Help is shown (`--help`, `-h`, `help X`, or no command at all): only then are the examples loaded. */
function asksForHelp(args: readonly string[]): boolean {
  if (args.length === 0 || args[0] === "help") return true;
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** The built page through `man` (a path with a slash is read as a file, by man-db and macOS's man alike). */
async function showManual(): Promise<number> {
  const { builtFile } = await import("../core/base/built-file.ts");
  const { spawnSync } = await import("node:child_process");
  const page = builtFile("tapedeck.1");
  const shown = spawnSync("man", [page], { stdio: "inherit" });
  if (shown.error || shown.status === null) {
    note(`tapedeck: man is not available here; the page is ${page}\n`);
    return EXIT.failed;
  }
  return shown.status;
}

/** Through the terminal filter: messages name ids and paths from the archive and the project. */
function note(text: string): void {
  io().stderr.write(printableText(text));
}

/**
 * Runs the program on `argv` with `streams` as its stdin, stdout and stderr (the process's own by default):
 * the binary's way and the tests' (test/helpers/program.ts). Answers the exit code: the command's own
 * (setExitCode: a search with no hit, the agent's code for `run`) unless it failed.
 */
export async function main(argv: string[], streams: Io = io()): Promise<number> {
  const { result, exitCode } = await withIo(streams, () => runArgv(argv));
  return result === EXIT.ok && exitCode !== undefined ? exitCode : result;
}

async function runArgv(argv: string[]): Promise<number> {
  // `tapedeck help --man`: the manual page, wherever npm did or did not link it for `man tapedeck`.
  if (argv[2] === "help" && argv[3] === "--man" && argv.length === 4) return showManual();
  try {
    const program = await buildProgram(commandNameOf(argv.slice(2)));
    if (asksForHelp(argv.slice(2))) (await import("./help-extras.ts")).addHelpExtras(program);
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return EXIT.ok;
      if (error.code === "commander.help") return EXIT.ok;
      return EXIT.usage;
    }
    if (error instanceof CliError) {
      note(`tapedeck: ${error.lines ? error.message : printable(error.message)}\n`);
      return error.exitCode;
    }
    // A planted link or FIFO where tapedeck reads or writes: one message for every command. Known by its
    // name, not its class: importing core/base/fsutil.ts here would load it on every start, --version included.
    if ((error as Error | undefined)?.name === "UnsafePathError") {
      note(fields`tapedeck: refusing an unsafe path: ${(error as Error).message}\n`);
      return EXIT.failed;
    }
    // An unexpected error: say what kind without echoing data that may be sensitive.
    const e = error as NodeJS.ErrnoException;
    note(fields`tapedeck: unexpected ${e?.code ?? e?.name ?? "error"}${e?.path ? ` at ${e.path}` : ""}\n`);
    if (process.env.TAPEDECK_DEBUG) io().stderr.write(`${e?.stack ?? ""}\n`);
    return EXIT.failed;
  }
}
