// `tapedeck mirror restore <session>`: the proxy mirror's copy written back as Claude Code's transcript.
import type { Command } from "commander";
import { fields } from "../../core/base/printable.ts";
import { RestoreError, restoreMirror } from "../../providers/claude/mirror/restore.ts";
import { CliError, EXIT } from "../cli-error.ts";
import { printJson, projectFromOption, say } from "../common.ts";
import { providerSessionIdArg } from "../session-arg.ts";

interface RestoreOpts {
  project?: string;
  claudeHome?: string;
  mirrorDir?: string;
  force?: boolean;
  json?: boolean;
}

function restoreCommand(sessionArg: string, opts: RestoreOpts): void {
  const project = projectFromOption(opts.project);
  // SESSION as everywhere else: an id, a unique prefix or `last`.
  const sessionId = providerSessionIdArg(project, sessionArg, "claude");
  try {
    const result = restoreMirror({
      sessionId,
      projectDir: project,
      claudeHome: opts.claudeHome,
      mirrorDir: opts.mirrorDir,
      force: opts.force,
    });
    if (opts.json) printJson(result);
    else {
      // The path is made of the recorded cwd, the id is the archive's: each on its own line.
      say(
        fields`Restored ${result.records} records from ${result.files} mirror file(s) to ${result.path}` +
          `${result.backup ? fields`\nThe previous transcript was kept as ${result.backup}` : ""}\n` +
          fields`Resume with: claude --resume ${sessionId}\n`,
      );
    }
  } catch (error) {
    if (error instanceof RestoreError) {
      throw new CliError(error.message, error.code === "not_found" ? EXIT.notFound : EXIT.failed);
    }
    throw error;
  }
}

export function register(program: Command): void {
  const mirror = program.command("mirror").description("the proxy's transcript mirror");
  mirror
    .command("restore <session>")
    .description("write a session's mirror back as Claude Code's transcript so `claude --resume` works again")
    .option("--project <dir>", "the project the session ran in (default: current directory)")
    .option("--claude-home <dir>", "Claude's config directory (default: ~/.claude)")
    .option("--mirror-dir <dir>", "mirror root (default: the configured one)")
    .option("--force", "replace an existing transcript (it is backed up first)")
    .option("--json", "machine-readable output")
    .action(restoreCommand);
}
