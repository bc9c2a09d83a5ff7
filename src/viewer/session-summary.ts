// The cheap per-session summary `list` (and the viewer's session list) show, from the manifest alone. Its own
// module with no imports: list loads this and no timeline code.

function count(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : 0;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

export interface SessionTokens {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** the reasoning tokens a provider counts apart from its output (Gemini's thoughts), as recorded */
  reasoning_output_tokens: number;
}

export interface SessionSummaryLine {
  session_id: string;
  provider: string;
  title: string | null;
  status: string;
  failed: boolean;
  failure: string | null;
  started_at: string;
  ended_at: string | null;
  turns: number;
  tool_calls: number;
  tool_errors: number;
  events: number;
  bytes: number;
  /** as recorded: a reader puts them in the one meaning (core/read/usage-facts.ts inOneMeaning) */
  tokens: SessionTokens | null;
}

/**
 * The cheap per-session summary, from the manifest alone: the counters the recorder keeps there
 * (title, turns, tool errors, tokens, failure). A session recorded before they existed reads null/0.
 */
export function summarizeManifest(m: Record<string, unknown>): SessionSummaryLine {
  const counts = (m.counts_by_kind && typeof m.counts_by_kind === "object" ? m.counts_by_kind : {}) as Record<
    string,
    unknown
  >;
  const tokens = m.tokens && typeof m.tokens === "object" ? (m.tokens as Record<string, unknown>) : null;
  const failure = str(m.failure) ?? null;
  return {
    session_id: str(m.session_id) ?? "",
    provider: str(m.provider) ?? "",
    title: str(m.title) ?? null,
    status: str(m.status) ?? "unknown",
    failed: failure !== null,
    failure,
    started_at: str(m.started_at) ?? "",
    ended_at: str(m.ended_at) ?? str(m.last_event_at) ?? null,
    turns: Math.max(0, count(counts.user_prompt) - count(m.subagent_prompt_count)),
    tool_calls: count(counts.tool_call),
    tool_errors: count(counts.tool_error),
    events: count(m.event_count),
    bytes: count(m.byte_count),
    tokens: tokens
      ? {
          input_tokens: count(tokens.input_tokens),
          output_tokens: count(tokens.output_tokens),
          cache_read_input_tokens: count(tokens.cache_read_input_tokens),
          cache_creation_input_tokens: count(tokens.cache_creation_input_tokens),
          reasoning_output_tokens: count(tokens.reasoning_output_tokens),
        }
      : null,
  };
}
