// `tapedeck inspect [session]`: one session's summary (counts, duration, redactions, completion, health) and
// its Claude transcript's state.
import type { Command } from "commander";
import { inspectCommand } from "../inspect-session.ts";
import { withSessionOptions } from "../options.ts";
import { withAllProjects } from "../session-arg.ts";

export function register(program: Command): void {
  withAllProjects(
    withSessionOptions(
      program
        .command("inspect [session]")
        .description(
          "summarize a session: counts, duration, redactions, completion, health (default: the latest)",
        ),
    ),
  ).action(inspectCommand);
}
