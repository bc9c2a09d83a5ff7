// What a provider's token figures mean, for readers that add them up across providers (src/usage/). The
// archive keeps every count as the provider reported it (inspect shows them so); each provider's folder
// states its meaning here once (providers/<name>/usage-facts.ts), so a reader never asks which provider it is.

import type { UsageSource } from "./schemas.ts";

/** A model call the provider makes that no local record shows, stated beside the figures it leaves out. */
export interface UsageGap {
  /** One sentence, as a report prints it. */
  text: string;
  /** A source whose presence in a session closes the gap (the proxy sees every call); absent: always open. */
  closed_by?: UsageSource;
}

export interface UsageFacts {
  /**
   * Its sessions record usage: a session without any then used none that a local record shows (its gaps aside).
   * False: a session's figures are unknown, never 0.
   */
  records_usage: boolean;
  /**
   * `input_tokens` includes the tokens read from the cache (OpenAI's and Gemini's counts), unlike Anthropic's,
   * which counts them apart. A report that shows them apart subtracts them.
   */
  input_includes_cache_read: boolean;
  /**
   * `output_tokens` leaves out the reasoning tokens, which are billed as output (Gemini's candidatesTokenCount
   * does; Anthropic's and OpenAI's output counts include them).
   */
  output_excludes_reasoning: boolean;
  /**
   * A record without a message id is not one response but a running total (Codex's thread totals, e.g. an
   * exec --json turn.completed), and is not added: every response its recorders write names its id.
   */
  response_needs_message_id: boolean;
  /** What each of its sources is, one line each. */
  sources: Partial<Record<UsageSource, string>>;
  gaps: readonly UsageGap[];
}

/** What a reader assumes of a provider that states nothing: Anthropic's meaning, no known gap. */
export const PLAIN_USAGE_FACTS: UsageFacts = {
  records_usage: true,
  input_includes_cache_read: false,
  output_excludes_reasoning: false,
  response_needs_message_id: false,
  sources: {},
  gaps: [],
};
