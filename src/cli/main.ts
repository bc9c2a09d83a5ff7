import { Command, CommanderError } from "commander";
import { registerArchiveCommands } from "./archive-commands.ts";
import { registerRestoreCommand } from "./commands/restore.ts";
import { CliError, EXIT, note } from "./common.ts";
import { registerDemoCommand } from "./demo-command.ts";
import { registerDoctorCommand } from "./doctor-command.ts";
import { registerHookCommand } from "./hook-command.ts";
import { registerInstallCommands } from "./install-command.ts";
import { registerMcpCommand } from "./mcp-command.ts";
import { registerProxyCommands } from "./proxy-command.ts";
import { registerRecordCommands } from "./record-command.ts";
import { registerRedactCommand } from "./redact-command.ts";

const VERSION = "0.1.0";

export function buildProgram(): Command {
  const program = new Command()
    .name("tapedeck")
    .description("A local flight recorder for AI coding agents: opt-in, per project, redacted, append-only.")
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();
  registerHookCommand(program);
  registerInstallCommands(program);
  registerRecordCommands(program);
  registerArchiveCommands(program);
  registerRedactCommand(program);
  registerProxyCommands(program);
  registerRestoreCommand(program);
  registerDemoCommand(program);
  registerDoctorCommand(program);
  registerMcpCommand(program, VERSION);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return EXIT.ok;
      if (error.code === "commander.help") return EXIT.ok;
      return EXIT.usage;
    }
    if (error instanceof CliError) {
      // Messages name ids and paths from the archive and the project: printed through the terminal filter.
      note(`tapedeck: ${error.message}\n`);
      return error.exitCode;
    }
    // An unexpected error: say what kind without echoing data that may be sensitive.
    const e = error as NodeJS.ErrnoException;
    note(`tapedeck: unexpected ${e?.code ?? e?.name ?? "error"}${e?.path ? ` at ${e.path}` : ""}\n`);
    if (process.env.TAPEDECK_DEBUG) process.stderr.write(`${e?.stack ?? ""}\n`);
    return EXIT.failed;
  }
}

main(process.argv).then((code) => {
  // A command that runs another program (`run`) sets that program's exit code itself.
  if (code !== EXIT.ok || process.exitCode === undefined) process.exitCode = code;
});
