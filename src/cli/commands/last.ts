// `tapedeck last`: `inspect` of the latest recorded session.
import type { Command } from "commander";
import { inspectCommand } from "../inspect-session.ts";
import { withSessionOptions } from "../options.ts";
import type { SessionOpts } from "../session-arg.ts";

export function register(program: Command): void {
  withSessionOptions(program.command("last").description("summarize the latest recorded session")).action(
    (opts: SessionOpts) => inspectCommand("last", opts),
  );
}
