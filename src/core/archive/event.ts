// What a provider adapter hands to the core: a normalized but not yet
// redacted or bounded event. The core owns redaction, bounding, sequence
// numbers and storage; an adapter owns only the mapping from its payloads.
import type { EventKind, Usage } from "./schemas.ts";

export interface NormalizedEvent {
  kind: EventKind;
  /** Stable id derived from provider identifiers, so a retried hook deduplicates. */
  event_id: string;
  /** ISO-8601 UTC with milliseconds; the recorder's clock when absent. */
  timestamp?: string;
  turn_id?: string;
  agent_id?: string;
  /** Selected provider fields, still unredacted. Never the whole opaque payload by default. */
  payload: Record<string, unknown>;
  usage?: Usage;
  /** The first terminal event finalizes the session. */
  terminal?: boolean;
  /**
   * Field names in the order they may be dropped when the event is over the
   * size limit, least important first. Required fields are never listed.
   */
  optional_fields?: string[];
}

export interface SessionIdentity {
  provider: string;
  /** The provider's own session/thread id, or null when it gave none. */
  provider_session_id: string | null;
  /** The archive's session id: `<provider>:<provider id>` or a local one. */
  session_id: string;
  /** `import`: read afterwards from the agent's own files (`tapedeck import`), not by hooks. */
  identity_source: "provider" | "local" | "import";
}

/** Context an adapter may learn from the payload or the hook's environment. */
export interface HookContext {
  identity: SessionIdentity;
  project_dir: string | null;
  agent_pid: number | null;
  transcript_path: string | null;
  capabilities: readonly string[];
}

export interface NormalizeResult<Observation = unknown> {
  context: HookContext;
  events: NormalizedEvent[];
  /**
   * Set by a fallback capture path (Codex's notify): these events report this turn, and are recorded only when
   * the provider's primary path (its hooks) did not record the turn.
   */
  fallbackForTurn?: string;
  /**
   * What normalize saw that only the same adapter's enrich step reads (Gemini: the facts of hooks that record
   * no event themselves). The recorder hands it on untouched and never writes it.
   */
  observation?: Observation;
}
