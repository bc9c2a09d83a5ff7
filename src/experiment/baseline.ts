// The baseline of a replay: its identity and the user prompts of its main agent, in order, read from the
// archive only (never the provider's transcript). The prompts are as recorded, so redacted.
import { findSession, readEvents, type SessionRef } from "../core/archive.ts";
import type { Manifest } from "../core/schemas.ts";

export interface Baseline {
  ref: SessionRef;
  manifest: Manifest;
  /** The archive id (`claude:<id>`). */
  sessionId: string;
  provider: string;
  projectRoot: string;
  revision: string | null;
  prompts: string[];
}

export class BaselineError extends Error {
  override name = "BaselineError";
}

/** A prompt the agent saw: a subagent's task or an empty prompt is no prompt of the user's. */
export function mainPrompts(events: ReturnType<typeof readEvents>["events"]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.kind !== "user_prompt" || e.agent_id) continue;
    const prompt = e.payload.prompt;
    if (typeof prompt === "string" && prompt.trim() !== "") out.push(prompt);
  }
  return out;
}

export function loadBaseline(project: string, query: string, provider?: string): Baseline {
  const ref = findSession(project, query);
  const manifest = ref.manifest;
  if (provider && manifest.provider !== provider) {
    throw new BaselineError(
      `${manifest.session_id} is a ${manifest.provider} session, not ${provider}: replay it with --provider ${manifest.provider}`,
    );
  }
  const prompts = mainPrompts(readEvents(ref.dir).events);
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
  };
}
