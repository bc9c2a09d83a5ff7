import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_LIMITS, type Limits } from "../../src/core/archive/bound.ts";
import type { NormalizedEvent, SessionIdentity } from "../../src/core/archive/event.ts";
import { Envelope } from "../../src/core/archive/schemas.ts";
import type { SessionSpec } from "../../src/core/archive/session-store.ts";

export { tempProject, useTempProjects } from "./temp-project.ts";

export function identity(id = "sess-1", provider = "claude"): SessionIdentity {
  return { provider, provider_session_id: id, session_id: `${provider}:${id}`, identity_source: "provider" };
}

export function spec(
  root: string,
  overrides: Partial<SessionSpec> = {},
  limits: Partial<Limits> = {},
): SessionSpec {
  return {
    projectRoot: root,
    sessionRoot: join(root, ".tapedeck", "claude-sessions"),
    identity: identity(),
    mode: "capture-only",
    capabilities: ["session_start", "user_prompt"],
    agentPid: null,
    limits: { ...DEFAULT_LIMITS, ...limits },
    ...overrides,
  };
}

export function event(
  kind: NormalizedEvent["kind"],
  id: string,
  payload: Record<string, unknown> = {},
): NormalizedEvent {
  return { kind, event_id: id, payload, terminal: kind === "session_end" };
}

/** A session directory's events.jsonl, one string per complete line. */
export function eventLines(dir: string): string[] {
  return readFileSync(join(dir, "events.jsonl"), "utf8").split("\n").filter(Boolean);
}

/** A session directory's events, each checked against the envelope schema. */
export function storedEnvelopes(dir: string) {
  return eventLines(dir).map((l) => Envelope.parse(JSON.parse(l)));
}
