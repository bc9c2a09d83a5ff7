// Sessions recorded through the core's real store, where the session resolver looks for them: a project's own
// recordings, a replay's session under .tapedeck/experiments/<id>/runs/<run>/sessions/, and an experiment made
// with --experiment-root elsewhere, found through its link file.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { writeExperimentLink } from "../../src/core/read/experiment-links.ts";
import { event, identity, spec } from "./session.ts";

export interface Recorded {
  id: string;
  dir: string;
}

const at = (minute: number) => `2026-11-30T10:${String(minute).padStart(2, "0")}:00.000Z`;

/** A finished session of a few events in `sessionRoot` (the project's claude root by default). */
export function recordSession(
  project: string,
  id: string,
  opts: { sessionRoot?: string; replayOf?: string; minute?: number; extra?: ReturnType<typeof event>[] } = {},
): Recorded {
  const minute = opts.minute ?? 0;
  const events = [
    event("session_start", `${id}-start`, { hook_event_name: "SessionStart", source: "startup" }),
    event("user_prompt", `${id}-prompt`, { hook_event_name: "UserPromptSubmit", prompt: `prompt of ${id}` }),
    ...(opts.extra ?? []),
    event("assistant_message", `${id}-answer`, { hook_event_name: "Stop", text: `answer of ${id}` }),
    event("session_end", `${id}-end`, { hook_event_name: "SessionEnd", reason: "other" }),
  ].map((e, i) => ({ ...e, timestamp: `${at(minute).slice(0, 17)}${String(i).padStart(2, "0")}.000Z` }));
  const out = recordEvents(
    spec(project, {
      identity: identity(id),
      ...(opts.sessionRoot ? { sessionRoot: opts.sessionRoot } : {}),
      ...(opts.replayOf ? { runType: "replay" as const, replayOf: opts.replayOf, arm: "replay" } : {}),
    }),
    events,
  );
  return { id, dir: out.sessionDir };
}

/** The sessions directory of a run of an experiment under the project's .tapedeck. */
export function runSessionsDir(project: string, experiment: string, run = "replay-r1"): string {
  const dir = join(project, ".tapedeck", "experiments", experiment, "runs", run, "sessions");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** An experiment made outside the project (--experiment-root), with its experiment.json and the project's link. */
export function externalExperiment(
  project: string,
  root: string,
  experiment: string,
  baselineProject = project,
) {
  mkdirSync(join(root, "runs", "replay-r1", "sessions"), { recursive: true, mode: 0o700 });
  writeFileSync(
    join(root, "experiment.json"),
    JSON.stringify({
      schema_version: 1,
      experiment_id: experiment,
      baseline: { project_root: baselineProject },
    }),
    { mode: 0o600 },
  );
  writeExperimentLink(project, experiment, root);
  return join(root, "runs", "replay-r1", "sessions");
}
