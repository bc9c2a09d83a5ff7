import { join } from "node:path";
import { DEFAULT_LIMITS, type Limits } from "../../src/core/bound.ts";
import type { NormalizedEvent, SessionIdentity } from "../../src/core/event.ts";
import type { SessionSpec } from "../../src/core/store.ts";

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
