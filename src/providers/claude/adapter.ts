import type { NormalizedEvent, NormalizeResult } from "../../core/event.ts";
import type { ProviderAdapter } from "../types.ts";
import { normalizeClaudeHook } from "./normalize.ts";
import { readNewUsage } from "./transcript-usage.ts";

interface ClaudeState {
  transcript_path?: string;
  transcript_offset?: number;
  seen_message_ids?: string[];
}

/** Enough to recognise a message whose blocks straddle two Stop reads. */
const SEEN_IDS_KEPT = 64;

/**
 * At Stop, reads the usage Claude wrote to its transcript since the last
 * Stop. Each message id becomes one turn_usage event whose id is derived from
 * the message id, so losing this state can repeat a read but never a count.
 */
function usageAtStop(result: NormalizeResult, previous: ClaudeState | undefined) {
  const stop = result.events.find((e) => e.kind === "assistant_message");
  const transcript = result.context.transcript_path;
  if (!stop || !transcript) return undefined;
  const sameFile = previous?.transcript_path === transcript;
  const from = sameFile ? (previous?.transcript_offset ?? 0) : 0;
  const seen = sameFile ? (previous?.seen_message_ids ?? []) : [];
  const read = readNewUsage(transcript, from, seen);
  const events: NormalizedEvent[] = read.usages.map((u) => ({
    kind: "turn_usage",
    event_id: `turn_usage:${u.message_id}`,
    turn_id: stop.turn_id,
    agent_id: stop.agent_id,
    payload: { message_id: u.message_id, model: u.model, request_id: u.request_id },
    usage: u.usage,
  }));
  const state: ClaudeState = {
    transcript_path: transcript,
    transcript_offset: read.offset,
    seen_message_ids: [...seen, ...read.usages.map((u) => u.message_id)].slice(-SEEN_IDS_KEPT),
  };
  return { events, state: state as Record<string, unknown> };
}

export const claudeAdapter: ProviderAdapter = {
  name: "claude",
  displayName: "Claude Code",
  normalize: (payload, env) => normalizeClaudeHook(payload, env),
  enrich: (result, state) => usageAtStop(result, state as ClaudeState | undefined),
};
