// Options several commands share, worded once.
import type { Command } from "commander";

export const PROJECT_HELP =
  "project directory (default: the nearest one with .tapedeck above the current directory, else the git root)";

/** --project and --provider, for the commands that act on recorded sessions. */
export function withSessionScope(c: Command): Command {
  return c
    .option("--project <dir>", PROJECT_HELP)
    .option("--provider <name>", "only sessions of this provider (claude, codex, gemini, antigravity)");
}

/** The session scope and --json. */
export function withSessionOptions(c: Command): Command {
  return withSessionScope(c).option("--json", "machine-readable output");
}
