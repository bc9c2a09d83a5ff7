// What `inspect` and `last` print: one session's summary (counts, duration, redactions, completion, health)
// and, where its provider checks one (the catalog entry's `transcripts`), the agent's own transcript's state.

import type { ScopedSession } from "../core/read/session-scope.ts";
import { inspectSession } from "../core/read/sessions.ts";
import { CATALOG } from "../providers/catalog.ts";
import type { TranscriptReport } from "../providers/transcripts.ts";
import { printJson, say } from "./common.ts";
import { resolveSessionArg, type SessionOpts } from "./session-arg.ts";
import { renderSummary, usageJson } from "./summary.ts";

/** The transcript's state; never fails the inspect it is part of. */
async function transcriptOf(ref: ScopedSession, project: string): Promise<TranscriptReport | undefined> {
  // A replay's transcript lives in its run's own config root (removed after the run unless --keep): not
  // the user's, and no loss.
  const provider = ref.manifest.provider;
  if (ref.origin === "run" || !Object.hasOwn(CATALOG, provider)) return undefined;
  const load = CATALOG[provider]?.transcripts;
  try {
    return load ? (await load()).inspect(ref, project) : undefined;
  } catch {
    return undefined;
  }
}

export async function inspectCommand(query: string | undefined, opts: SessionOpts): Promise<void> {
  const ref = resolveSessionArg(query ?? "last", opts);
  const project = ref.project;
  const summary = inspectSession(ref);
  const transcript = await transcriptOf(ref, project);
  if (opts.json) {
    printJson({
      ...summary,
      usage: usageJson(summary.usage, summary.provider),
      ...transcript?.json,
    });
    return;
  }
  say(`${renderSummary(summary, project, { details: true })}${transcript ? `\n${transcript.line}` : ""}\n`);
}
