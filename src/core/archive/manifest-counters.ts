// What `tapedeck list` shows beside the recorder's own counters, kept in the
// manifest so listing 3,000 sessions reads 3,000 small files and no events:
// the first prompt (as recorded: redacted and bounded, cut to a title), the
// subagents' prompts (to tell turns from them), the
// tokens of turn_usage events, and the first failed turn (a provider event the
// adapter flags `failure`, Claude's StopFailure). Counts by kind come from the
// state, which every append persists.
import type { Manifest } from "./schemas.ts";

export const TITLE_CHARS = 120;

export interface ManifestTokens {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /**
   * The reasoning tokens a provider counts apart from its output (Gemini's thoughts), as recorded; absent in a
   * manifest written before it was kept.
   */
  reasoning_output_tokens?: number;
}

/** The manifest with the list counters (all optional: a manifest written before them has none). */
export type ManifestWithCounters = Manifest & {
  title?: string | null;
  counts_by_kind?: Record<string, number>;
  tokens?: ManifestTokens;
  failure?: string | null;
  /** user_prompt events of subagents, which counts_by_kind counts with the session's turns */
  subagent_prompt_count?: number;
};

/** The token counts a usage event carries and the manifest sums. */
export const TOKEN_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
] as const;

/** The counts a session's sums keep as recorded: the four, and the reasoning tokens some providers give apart. */
export const RECORDED_FIELDS = [...TOKEN_FIELDS, "reasoning_output_tokens"] as const;

/** The four counts at zero, in TOKEN_FIELDS' order (the order they print in as JSON). */
export function zeroTokens(): ManifestTokens {
  return { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Folds one appended event into the manifest's list counters; answers whether the manifest changed in a way
 * that must be written now (the manifest is otherwise refreshed at most every 250 ms, and an unwritten sum is
 * lost with the process).
 */
export function foldListCounters(
  m: ManifestWithCounters,
  e: { kind: string; agent_id?: string; payload: Record<string, unknown>; usage?: unknown },
): boolean {
  if (e.kind === "user_prompt" && e.agent_id !== undefined) {
    // A subagent's prompt (Codex fires UserPromptSubmit in the child thread) is not a turn of the session.
    m.subagent_prompt_count = (m.subagent_prompt_count ?? 0) + 1;
    return true;
  }
  if (e.kind === "user_prompt" && !m.title && typeof e.payload.prompt === "string") {
    const title = oneLine(e.payload.prompt, TITLE_CHARS);
    if (!title) return false;
    m.title = title;
    return true;
  }
  if (e.kind === "turn_usage" && e.usage && typeof e.usage === "object") {
    const u = e.usage as Record<string, unknown>;
    const tokens = m.tokens ?? { ...zeroTokens(), reasoning_output_tokens: 0 };
    for (const f of RECORDED_FIELDS) {
      const n = u[f];
      if (typeof n === "number" && Number.isFinite(n) && n > 0) tokens[f] = (tokens[f] ?? 0) + n;
    }
    m.tokens = tokens;
    return true;
  }
  if (e.kind === "provider_event" && e.payload.failure === true && !m.failure) {
    const error = e.payload.error;
    m.failure =
      oneLine(typeof error === "string" ? error : (JSON.stringify(error) ?? "failed"), TITLE_CHARS) ||
      "failed";
    return true;
  }
  return false;
}
