// Token counts as a turn, a subagent or a session sums them: what the archive's turn_usage events say, added
// field by field, with where the counts came from and which models answered.
import { zeroTokens } from "../../archive/manifest-counters.ts";
import { inOneMeaning, type UsageFacts } from "../usage-facts.ts";

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /**
   * The reasoning tokens a provider counts apart from its output (Gemini's thoughts), as recorded: 0 once the
   * counts are in the one meaning (inMeaning), whose output holds them.
   */
  reasoning_output_tokens: number;
  /** where the counts come from (a transcript, a hook payload, the proxy, ...) */
  sources: string[];
  models: string[];
}

/** Sources and models listed at most: a session that names more says nothing new with them. */
const MAX_NAMES = 16;

export function emptyUsage(): Usage {
  return { ...zeroTokens(), reasoning_output_tokens: 0, sources: [], models: [] };
}

/** A count as the archive holds it; anything that is not a finite, non-negative number counts 0. */
export function tokenCount(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : 0;
}

function addUnique(list: string[], v: unknown): void {
  if (typeof v === "string" && v !== "" && !list.includes(v) && list.length < MAX_NAMES) list.push(v);
}

/** Adds one turn_usage event's `usage` object. */
export function addUsage(into: Usage, u: Record<string, unknown>): void {
  into.input_tokens += tokenCount(u.input_tokens);
  into.output_tokens += tokenCount(u.output_tokens);
  into.cache_read_input_tokens += tokenCount(u.cache_read_input_tokens);
  into.cache_creation_input_tokens += tokenCount(u.cache_creation_input_tokens);
  into.reasoning_output_tokens += tokenCount(u.reasoning_output_tokens);
  addUnique(into.sources, u.source);
  addUnique(into.models, u.model);
}

export function mergeUsage(into: Usage, from: Usage): void {
  into.input_tokens += from.input_tokens;
  into.output_tokens += from.output_tokens;
  into.cache_read_input_tokens += from.cache_read_input_tokens;
  into.cache_creation_input_tokens += from.cache_creation_input_tokens;
  into.reasoning_output_tokens += from.reasoning_output_tokens;
  for (const s of from.sources) addUnique(into.sources, s);
  for (const m of from.models) addUnique(into.models, m);
}

export function usageTokens(u: Usage): number {
  return u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
}

/** The counts in the one meaning every command shows (core/read/usage-facts.ts inOneMeaning), a new object. */
export function inMeaning(u: Usage, facts: UsageFacts): Usage {
  const { total_tokens: _total, ...counts } = inOneMeaning(facts, u);
  return { ...counts, reasoning_output_tokens: 0, sources: [...u.sources], models: [...u.models] };
}
