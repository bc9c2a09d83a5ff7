import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { DEFAULT_LIMITS, type Limits } from "../../src/core/bound.ts";
import type { NormalizedEvent, SessionIdentity } from "../../src/core/event.ts";
import type { SessionSpec } from "../../src/core/store.ts";

export function tempProject(prefix = "tapedeck-test-"): { root: string; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** `project()` makes a fresh temp project; every one is removed after each test of the file. */
export function useTempProjects(prefix?: string): () => string {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });
  return () => {
    const p = tempProject(prefix);
    cleanups.push(p.cleanup);
    return p.root;
  };
}

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
