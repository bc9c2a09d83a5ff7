import type { NormalizedEvent, NormalizeResult } from "../../core/event.ts";
import { derivedId, firstReadOffset, inPeriod } from "../shared.ts";
import type { ProviderAdapter } from "../types.ts";
import { normalizeClaudeHook } from "./normalize.ts";
import { type WatchedState, watchTranscript } from "./transcript-alert.ts";
import { readNewUsage } from "./transcript-usage.ts";

interface TranscriptCursor {
  offset: number;
  seen: string[];
  /**
   * Set where reading starts in a recording period: the first read drops messages stamped before the period
   * began (their lines can land after its first event). Later reads need no stamps, and a clock that drifts
   * cannot make them drop anything.
   */
  fresh?: boolean;
}

interface ClaudeState extends WatchedState {
  /** read position per transcript: the session's own and each subagent's */
  cursors?: Record<string, TranscriptCursor>;
}

/** Enough to recognise a message whose blocks straddle two reads. */
const SEEN_IDS_KEPT = 64;
/** Subagent transcripts are read once, at their SubagentStop; old cursors can go. */
const CURSORS_KEPT = 32;

function readUsage(
  path: string,
  cursors: Record<string, TranscriptCursor>,
  turnId: string | undefined,
  agentId: string | undefined,
  since: string | undefined,
): NormalizedEvent[] {
  const cursor = cursors[path] ?? { offset: 0, seen: [] };
  const read = readNewUsage(path, cursor.offset, cursor.seen);
  delete cursors[path];
  cursors[path] = {
    offset: read.offset,
    seen: [...cursor.seen, ...read.usages.map((u) => u.message_id)].slice(-SEEN_IDS_KEPT),
  };
  const periodStart = cursor.fresh ? since : undefined;
  // A message written before recording was switched on is not this period's (its first line can reach the
  // transcript after the period's first event: Claude writes it asynchronously).
  return read.usages
    .filter((u) => inPeriod(u.timestamp, periodStart))
    .map(
      (u) =>
        ({
          kind: "turn_usage",
          // Derived from the message id: losing the cursor can repeat a read, never a count.
          event_id: derivedId("turn_usage", u.message_id),
          turn_id: turnId,
          agent_id: agentId,
          payload: { message_id: u.message_id, model: u.model, request_id: u.request_id },
          usage: u.usage,
        }) satisfies NormalizedEvent,
    );
}

/**
 * At Stop, reads the usage Claude wrote to the session transcript since the
 * last Stop; at SubagentStop, the subagent's own transcript (its messages
 * never reach the main one). Each message becomes one turn_usage event.
 */
function usageFromTranscripts(result: NormalizeResult, previous: ClaudeState | undefined, since?: string) {
  const cursors: Record<string, TranscriptCursor> = { ...(previous?.cursors ?? {}) };
  const events: NormalizedEvent[] = [];
  let read = false;
  const transcript = result.context.transcript_path;
  if (previous === undefined && transcript && result.events.length > 0) {
    cursors[transcript] = { offset: firstReadOffset(result, transcript), seen: [], fresh: true };
    read = true;
  }
  for (const e of result.events) {
    if (e.kind === "assistant_message" && result.context.transcript_path && !e.agent_id) {
      events.push(...readUsage(result.context.transcript_path, cursors, e.turn_id, undefined, since));
      read = true;
    }
    const agentTranscript = e.payload.agent_transcript_path;
    if (e.kind === "subagent_stop" && typeof agentTranscript === "string" && agentTranscript.length < 4096) {
      events.push(...readUsage(agentTranscript, cursors, e.turn_id, e.agent_id, since));
      read = true;
    }
  }
  if (!read) return undefined;
  const keys = Object.keys(cursors);
  for (const key of keys.slice(0, Math.max(0, keys.length - CURSORS_KEPT))) delete cursors[key];
  return { events, state: { cursors } as Record<string, unknown> };
}

export const claudeAdapter: ProviderAdapter = {
  name: "claude",
  displayName: "Claude Code",
  normalize: (payload, env) => normalizeClaudeHook(payload, env),
  isSessionStart: (payload) =>
    (payload as { hook_event_name?: unknown } | null)?.hook_event_name === "SessionStart",
  enrich: (result, state, scope) =>
    enrichClaude(result, state as ClaudeState | undefined, scope?.recordingSince),
};

/** Usage from the transcripts, and the transcript watch (a loss found at a resume), in one state. */
function enrichClaude(result: NormalizeResult, previous: ClaudeState | undefined, since: string | undefined) {
  const usage = usageFromTranscripts(result, previous, since);
  const cursors = usage ? (usage.state as ClaudeState).cursors : previous?.cursors;
  const path = result.context.transcript_path;
  const watched = watchTranscript(result, previous, path ? cursors?.[path]?.offset : undefined);
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  // The state file is written only when something moved: most hooks (tool calls) leave it alone.
  const changed =
    watched.events.length > 0 ||
    !same(watched.state.watch, previous?.watch) ||
    !same(watched.state.transcript_loss, previous?.transcript_loss);
  if (!usage && !changed) return undefined;
  const state: ClaudeState = { ...(cursors ? { cursors } : {}), ...watched.state };
  return { events: [...(usage?.events ?? []), ...watched.events], state: state as Record<string, unknown> };
}
