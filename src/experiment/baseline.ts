// The baseline of a replay: its identity and the user prompts of its main agent, in order, read from the
// archive only (never the provider's transcript). The prompts are as recorded, so redacted.

import type { Manifest } from "../core/archive/schemas.ts";
import { resolveSession } from "../core/read/session-resolve.ts";
import { readEvents, type SessionRef } from "../core/read/sessions.ts";

export interface Baseline {
  ref: SessionRef;
  manifest: Manifest;
  /** The archive id (`claude:<id>`). */
  sessionId: string;
  provider: string;
  projectRoot: string;
  revision: string | null;
  prompts: string[];
  /** What a reader of the results must know about the prompts (cut or redacted when recorded). */
  notes?: string[];
}

export class BaselineError extends Error {
  override name = "BaselineError";
}

/** A prompt the agent saw: a subagent's task or an empty prompt is no prompt of the user's. */
export function mainPrompts(events: ReturnType<typeof readEvents>["events"]): string[] {
  return mainPromptEvents(events).map((e) => e.payload.prompt as string);
}

function mainPromptEvents(events: ReturnType<typeof readEvents>["events"]) {
  return events.filter(
    (e) =>
      e.kind === "user_prompt" &&
      !e.agent_id &&
      typeof e.payload.prompt === "string" &&
      e.payload.prompt.trim() !== "",
  );
}

/** A prompt the recorder cut or redacted is replayed as recorded: the results must say so. */
export function promptNotes(events: ReturnType<typeof readEvents>["events"]): string[] {
  const notes: string[] = [];
  mainPromptEvents(events).forEach((e, i) => {
    if (e.truncations.some((t) => t.path.startsWith("payload.prompt")))
      notes.push(`prompt ${i + 1} was cut when recorded: the replay sends what was kept`);
    if (e.redactions.some((r) => r.startsWith("payload.prompt")))
      notes.push(`prompt ${i + 1} had a credential redacted when recorded: the replay sends the marker`);
  });
  return notes;
}

/** The baseline a SESSION argument names: a recording of the project, or one of its replays' sessions. */
export function loadBaseline(project: string, query: string, provider?: string): Baseline {
  const ref = resolveSession({ project }, query);
  const manifest = ref.manifest;
  if (provider && manifest.provider !== provider) {
    throw new BaselineError(
      `${manifest.session_id} is a ${manifest.provider} session, not ${provider}: replay it with --provider ${manifest.provider}`,
    );
  }
  const events = readEvents(ref.dir).events;
  const prompts = mainPrompts(events);
  if (prompts.length === 0) {
    throw new BaselineError(`${manifest.session_id} has no recorded user prompt: there is nothing to replay`);
  }
  return {
    ref,
    manifest,
    sessionId: manifest.session_id,
    provider: manifest.provider,
    projectRoot: project,
    revision: manifest.repository_revision,
    prompts,
    notes: promptNotes(events),
  };
}
