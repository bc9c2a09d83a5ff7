// The adapter port lives in the core (core/hook/provider.ts), beside the NormalizeResult it returns; re-exported
// here so that the provider folders keep importing their contract from beside them.
import type { ProviderAdapter } from "../core/hook/provider.ts";

export type { Enriched, EnrichScope, ProviderAdapter } from "../core/hook/provider.ts";

/** What a provider adds to `tapedeck status --statusline` and the status-line hook (registry.ts). */
export interface StatusLinePart {
  /** The variable the agent sets to the session's id when it runs a status-line command. */
  sessionIdEnv: string;
  /** The text added after the recording state for this session ("" for nothing); never throws. */
  alert(project: string, sessionId: string): string;
}

/**
 * A capture path beside the hooks that the agent runs as `<hook entry> <provider> <flag> <json>`: the payload
 * is the last argument and stdin is empty (Codex's notify program).
 */
export interface ArgvHook {
  flag: string;
  adapter: ProviderAdapter;
}
