// `tapedeck inspect [session]`: one session's summary (counts, duration, redactions, completion, health) and
// its Claude transcript's state.
import type { Command } from "commander";
import { inspectSession } from "../../core/archive.ts";
import { printJson, projectFromOption, say } from "../common.ts";
import { withSessionOptions } from "../options.ts";
import { resolveRef, type SessionOpts } from "../session-arg.ts";
import { renderSummary, usageUnknowns } from "../summary.ts";
import { inspectTranscript } from "../transcript-check.ts";

export function inspectCommand(query: string | undefined, opts: SessionOpts): void {
  const project = projectFromOption(opts.project);
  const ref = resolveRef(project, query ?? "last", opts.provider);
  const summary = inspectSession(ref);
  const transcript = inspectTranscript(ref, project);
  if (opts.json) {
    printJson({
      ...summary,
      usage: { ...summary.usage, unknown: usageUnknowns(summary.usage) },
      ...transcript?.json,
    });
    return;
  }
  say(`${renderSummary(summary, project)}${transcript ? `\n${transcript.line}` : ""}\n`);
}

export function register(program: Command): void {
  withSessionOptions(
    program
      .command("inspect [session]")
      .description(
        "summarize a session: counts, duration, redactions, completion, health (default: the latest)",
      ),
  ).action(inspectCommand);
}
