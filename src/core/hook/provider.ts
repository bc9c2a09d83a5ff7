// The port every provider plugs into: the recorder (core/hook/recorder.ts) drives
// an adapter and knows nothing else about the agent it records. It sits in the
// core beside NormalizeResult, so that the core imports nothing from
// providers/; each provider's folder implements it (providers/*/adapter.ts).
import type { NormalizedEvent, NormalizeResult } from "../archive/event.ts";

/**
 * A provider adapter maps hook payloads to normalized events. It knows
 * nothing about storage: opaque per-session state (such as how far a
 * transcript has been read) is handed in and handed back by the caller.
 */
export interface ProviderAdapter<Observation = unknown> {
  name: string;
  displayName: string;
  normalize(payload: unknown, env: Record<string, string | undefined>): NormalizeResult<Observation>;
  /**
   * A fallback capture path (Codex's notify): it records only in projects where it was installed as one
   * (ProviderConfig.fallback), because only there do the hooks mark the turns they already recorded.
   */
  fallback?: boolean;
  /**
   * The variable the agent sets to its project directory in a hook's environment (Claude's CLAUDE_PROJECT_DIR,
   * Gemini's GEMINI_PROJECT_DIR). Only this provider's own: an agent started inside another agent's session
   * (codex run from Claude's Bash tool) inherits the outer one's variable, which names the wrong project.
   */
  projectDirEnv?: string;
  /**
   * The variable the agent sets to its own process id in a hook's environment (Claude's CLAUDE_PID): a hook
   * server started for the agent's hooks exits with it. Only this provider's own, as projectDirEnv.
   */
  agentPidEnv?: string;
  /**
   * Extra events derived outside the payload (e.g. usage read from a transcript).
   * Called before anything is appended; it may also complete `result.events`
   * in place (ids that need the per-session state), which are recorded after it.
   * The recorder guards it: whatever it throws, the payload's own events are
   * still recorded, so an adapter need not catch its own failures.
   */
  enrich?(
    result: NormalizeResult<Observation>,
    state: Record<string, unknown> | undefined,
    scope?: EnrichScope,
  ): Enriched | undefined;
}

/** What enrich adds: events recorded after the payload's own, and the next state. */
export interface Enriched {
  events: NormalizedEvent[];
  /**
   * Events that happened before what the payload reports, recorded before its own events in the same append
   * (Gemini: what the model said before the tool call a BeforeTool announces, which no earlier hook could
   * record). Readers order a session by sequence, so this is where they show.
   */
  before?: NormalizedEvent[];
  state: Record<string, unknown>;
}

/** What the recorder knows that bounds enrichment. */
export interface EnrichScope {
  /**
   * When recording was last switched on (ISO 8601): what the agent's own files say happened earlier (usage of a
   * message written before, a command that ended before) is not recorded.
   */
  recordingSince?: string;
}
