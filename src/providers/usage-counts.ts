// What the readers of the agents' own usage records (Claude's transcript, Codex's rollout) share: which usage
// fields hold a token count, and what a number from the agent's file must be to count. Hot path (the
// adapters' enrichment reads them): no imports.

/** The usage fields that hold a token count. */
export type UsageCountField =
  | "input_tokens"
  | "output_tokens"
  | "cache_creation_input_tokens"
  | "cache_read_input_tokens"
  | "reasoning_output_tokens"
  | "total_tokens";

/** A non-negative safe integer, else undefined: what a count in an agent's file is taken as. */
export function countOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}
