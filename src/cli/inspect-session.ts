// What `inspect` and `last` print: one session's summary (counts, duration, redactions, completion, health)
// and its Claude transcript's state.
import { inspectSession } from "../core/read/sessions.ts";
import { printJson, say } from "./common.ts";
import { resolveSessionArg, type SessionOpts } from "./session-arg.ts";
import { renderSummary, usageUnknowns } from "./summary.ts";
import { inspectTranscript } from "./transcript-check.ts";

export function inspectCommand(query: string | undefined, opts: SessionOpts): void {
  const ref = resolveSessionArg(query ?? "last", opts);
  const project = ref.project;
  const summary = inspectSession(ref);
  // A replay's transcript lives in its run's own config root (removed after the run unless --keep): not
  // the user's, and no loss.
  const transcript = ref.origin === "run" ? undefined : inspectTranscript(ref, project);
  if (opts.json) {
    printJson({
      ...summary,
      usage: { ...summary.usage, unknown: usageUnknowns(summary.usage, summary.provider) },
      ...transcript?.json,
    });
    return;
  }
  say(`${renderSummary(summary, project, { details: true })}${transcript ? `\n${transcript.line}` : ""}\n`);
}
