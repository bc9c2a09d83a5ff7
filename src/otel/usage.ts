// Token counts as the GenAI conventions define them, from the archive's per-response usage records. The
// conventions want `gen_ai.usage.input_tokens` to include cached tokens. What a provider's counts mean is its
// own usage facts (providers/<name>/usage-facts.ts): where input leaves the cache reads and writes out
// (Anthropic's), they are added back; where it already includes them (OpenAI's, Gemini's), it is kept. A
// provider's running totals (a record without a response id, where its facts say every response names one)
// are never used as a response's figures.

import { usageFactsOf as factsOf } from "../providers/usage-facts.ts";

export interface GenAiUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

function count(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined;
}

/** True when a usage record can stand for one model response of this provider. */
export function isPerResponse(provider: string, u: Record<string, unknown>): boolean {
  if (!factsOf(provider).response_needs_message_id) return true;
  return typeof u.message_id === "string" && u.message_id !== "";
}

export function normalizeUsage(provider: string, u: Record<string, unknown>): GenAiUsage {
  if (!isPerResponse(provider, u)) return {};
  const input = count(u.input_tokens);
  const output = count(u.output_tokens);
  const cacheRead = count(u.cache_read_input_tokens);
  const cacheWrite = count(u.cache_creation_input_tokens);
  const reasoning = count(u.reasoning_output_tokens);
  const out: GenAiUsage = {};
  if (!factsOf(provider).input_includes_cache_read) {
    // A record with no input figure at all stays without one rather than claiming the cache alone.
    if (input !== undefined) out.input = input + (cacheRead ?? 0) + (cacheWrite ?? 0);
  } else if (input !== undefined) out.input = input;
  if (output !== undefined) out.output = output;
  if (cacheRead !== undefined) out.cacheRead = cacheRead;
  if (cacheWrite !== undefined) out.cacheWrite = cacheWrite;
  if (reasoning !== undefined) out.reasoning = reasoning;
  return out;
}

/** Adds b's counts into a (a figure missing on both sides stays missing). */
export function addUsage(a: GenAiUsage, b: GenAiUsage): void {
  for (const k of ["input", "output", "cacheRead", "cacheWrite", "reasoning"] as const) {
    if (b[k] !== undefined) a[k] = (a[k] ?? 0) + b[k];
  }
}

/** Fills the figures a lacks from b: Gemini's chat file supplies the cache and reasoning counts its hooks omit. */
export function fillUsage(a: GenAiUsage, b: GenAiUsage): void {
  for (const k of ["input", "output", "cacheRead", "cacheWrite", "reasoning"] as const) {
    if (a[k] === undefined && b[k] !== undefined) a[k] = b[k];
  }
}
