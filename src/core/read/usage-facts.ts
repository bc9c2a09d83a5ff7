// What a provider's token figures mean, for readers that add them up across providers (src/usage/). The
// archive keeps every count as the provider reported it (inspect shows them so); each provider's folder
// states its meaning here once (providers/<name>/usage-facts.ts), so a reader never asks which provider it is.

import type { UsageSource } from "../archive/schemas.ts";

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
  sources: Readonly<Record<UsageSource, string>>;
  /**
   * The counts a source never carries (Gemini's hooks: no cache read, which only its chat file gives): a
   * session whose every source leaves a count out does not know it, which a sum would show as 0.
   */
  omits?: Readonly<Record<UsageSource, readonly UsageCount[]>>;
  /**
   * A source whose records complete another source's, one for one and in order, instead of standing for a
   * response of their own (Gemini's chat file: the cache reads and thinking tokens of the response its hook
   * reported), by the source they complete.
   */
  completes?: Readonly<Record<UsageSource, UsageSource>>;
  /** The provider meters its plans in windows of this many hours from a first request (`usage blocks`). */
  usage_window_hours?: number;
  gaps: readonly UsageGap[];
}

/** The four counts every usage record of the archive may carry. */
export type UsageCount =
  | "input_tokens"
  | "output_tokens"
  | "cache_read_input_tokens"
  | "cache_creation_input_tokens";

/** A session's or a turn's four counts, as the archive keeps them. */
export type UsageCounts = Record<UsageCount, number>;

/** The counts as recorded: the four, and the reasoning tokens a provider may give apart from its output. */
export type RecordedCounts = UsageCounts & { reasoning_output_tokens?: number };

/** The four counts in the one meaning every command shows, and their total. */
export type OneMeaning = UsageCounts & { total_tokens: number };

/**
 * THE rule every command applies to a provider's counts (list, show, inspect, usage, the viewer, the exports),
 * so that one session reads one figure everywhere: Anthropic's meaning. Input leaves out the tokens read from
 * the cache where the provider counts them inside it (OpenAI, Gemini); output holds the reasoning tokens where
 * the provider counts them apart (Gemini's thoughts, billed as output). The total is the four added: each
 * token once.
 */
export function inOneMeaning(facts: UsageFacts, t: RecordedCounts): OneMeaning {
  const input = facts.input_includes_cache_read
    ? Math.max(0, t.input_tokens - t.cache_read_input_tokens)
    : t.input_tokens;
  const output = outputInOneMeaning(facts, t.output_tokens, t.reasoning_output_tokens ?? 0);
  return {
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: t.cache_read_input_tokens,
    cache_creation_input_tokens: t.cache_creation_input_tokens,
    total_tokens: input + output + t.cache_read_input_tokens + t.cache_creation_input_tokens,
  };
}

/** The output part of the rule, for a reader that splits input its own way (the usage report's cells). */
export function outputInOneMeaning(facts: UsageFacts, output: number, reasoning: number): number {
  return facts.output_excludes_reasoning ? output + reasoning : output;
}

/** Every token a provider's counts stand for, each once (inOneMeaning's total). */
export function totalTokens(facts: UsageFacts, t: RecordedCounts): number {
  return inOneMeaning(facts, t).total_tokens;
}

/** The source whose records a record of `source` completes (`completes`); undefined: it is a response's own. */
export function completedSource(facts: UsageFacts, source: string | undefined): string | undefined {
  return source !== undefined && facts.completes && Object.hasOwn(facts.completes, source)
    ? facts.completes[source]
    : undefined;
}

/** The counts no source of these reported (each source's `omits`): unknown, not 0. */
export function unknownCounts(facts: UsageFacts, sources: readonly string[]): UsageCount[] {
  if (sources.length === 0) return [];
  // A source is a name the archive gives (`constructor` is one of its shape): only a provider's own key counts.
  const omitted = sources.map(
    (s) => new Set(facts.omits && Object.hasOwn(facts.omits, s) ? facts.omits[s] : []),
  );
  const counts: UsageCount[] = [
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
  ];
  return counts.filter((c) => omitted.every((o) => o.has(c)));
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

/**
 * A provider's facts in `facts`, PLAIN_USAGE_FACTS for a name none has. Own keys only: a manifest's provider is
 * the archive's text, and `constructor` or `__proto__` must not find Object's.
 */
export function factsFor(facts: Readonly<Record<string, UsageFacts>>, provider: string): UsageFacts {
  return (Object.hasOwn(facts, provider) ? facts[provider] : undefined) ?? PLAIN_USAGE_FACTS;
}
