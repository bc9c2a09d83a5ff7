// Where and how a provider's session is written, from the project's config: one builder for every writer
// (the hook path, core/hook/recorder.ts, and the proxy's archive feed), so that a setting the config gains reaches
// both and the two never disagree on a session's directory or limits.
import { effectiveLimits, type ProjectConfig } from "./config.ts";
import type { SessionIdentity } from "./event.ts";
import { resolveSessionRoot } from "./paths.ts";
import type { SessionSpec } from "./session-store.ts";

/** What the writer knows about the session it appends to. */
export interface SessionOf {
  /** the provider's key in the project's config (the adapter's or reader's name) */
  provider: string;
  identity: SessionIdentity;
  capabilities: readonly string[];
  agentPid: number | null;
}

export function sessionSpecFor(projectRoot: string, config: ProjectConfig, session: SessionOf): SessionSpec {
  const providerConfig = config.providers[session.provider];
  return {
    projectRoot,
    sessionRoot: resolveSessionRoot(projectRoot, providerConfig?.session_root, session.provider),
    identity: session.identity,
    mode: providerConfig?.mode ?? "capture-only",
    capabilities: session.capabilities,
    agentPid: session.agentPid,
    limits: effectiveLimits(config),
    lockTimeoutMs: config.lock_timeout_ms,
  };
}
