// `tapedeck status`: the recording state of this project, every installed provider (or one).
import type { Command } from "commander";
import { projectFromOption } from "../common.ts";
import { PROJECT_HELP } from "../options.ts";
import { providersOf, type RecordOpts, showStatus } from "../recording-status.ts";

function statusCommand(opts: RecordOpts): void {
  const project = projectFromOption(opts.project);
  showStatus(project, providersOf(project, opts.provider), opts);
}

export function register(program: Command): void {
  program
    .command("status")
    .description("show the recording state of this project (every installed provider)")
    .option("--project <dir>", PROJECT_HELP)
    .option("--provider <name>", "only this provider (default: every installed one)")
    .option("--statusline", "print only the compact state, for status bars")
    .option("--json", "machine-readable output")
    .action(statusCommand);
}
