import type { NormalizedEvent, NormalizeResult } from "../../core/archive/event.ts";
import { afterReads, type ReadCursor, readFrom, startCursor } from "../read-cursors.ts";
import { derivedId, inPeriod, responseTime } from "../shared.ts";
import type { ProviderAdapter } from "../types.ts";
import { claudeIdentity } from "./identity.ts";
import { normalizeClaudeHook, promptEventId } from "./normalize.ts";
import { type WatchedState, watchTranscript } from "./transcript-alert.ts";
import { readTranscriptTail } from "./transcript-usage.ts";

/**
 * A fresh cursor's first read drops messages stamped before the period began (their lines can land after its
 * first event). Later reads need no stamps, and a clock that drifts cannot make them drop anything.
 */
interface TranscriptCursor extends ReadCursor {
  /** The turn (prompt id) the last record read belongs to: a response written after its Stop is still its turn's. */
  turn?: string;
  /** Queued prompts handed on to a turn whose prompt record was not read yet. */
  dequeued?: number;
}

interface ClaudeState extends WatchedState {
  /** read position per transcript: the session's own and each subagent's */
  cursors?: Record<string, TranscriptCursor>;
}

/**
 * Reads what was appended to a transcript since its cursor. In the session's own transcript each message is
 * counted in the turn the transcript puts it in, and queued prompts are read too; a subagent's messages are its
 * SubagentStop's turn.
 */
function readTail(
  path: string,
  cursors: Record<string, TranscriptCursor>,
  hook: { turnId: string | undefined; agentId: string | undefined; main: boolean; session?: string | null },
  since: string | undefined,
): NormalizedEvent[] {
  const { read, next, periodStart } = readFrom(cursors, path, readTranscriptTail, "message_id", since);
  if (hook.main && read.turn !== undefined) next.turn = read.turn;
  if (hook.main && read.dequeued !== undefined) next.dequeued = read.dequeued;
  // A message written before recording was switched on is not this period's (its first line can reach the
  // transcript after the period's first event: Claude writes it asynchronously).
  const usages = read.usages.filter((u) => inPeriod(u.timestamp, periodStart));
  const events: NormalizedEvent[] = usages.map((u) => {
    const event: NormalizedEvent = {
      kind: "turn_usage",
      // Derived from the message id: losing the cursor can repeat a read, never a count.
      event_id: derivedId("turn_usage", u.message_id),
      turn_id: (hook.main ? u.turn_id : undefined) ?? hook.turnId,
      agent_id: hook.agentId,
      payload: { message_id: u.message_id, model: u.model, request_id: u.request_id },
      usage: u.usage,
    };
    const at = responseTime(u.timestamp);
    if (at !== undefined) event.timestamp = at;
    return event;
  });
  if (!hook.main) return events;
  for (const q of read.prompts.filter((p) => inPeriod(p.timestamp, periodStart))) {
    events.push({
      kind: "user_prompt",
      // A re-read never records the prompt twice: the id is the record's uuid or, for a prompt that starts
      // its own turn, the one UserPromptSubmit gives that turn's prompt (print mode fires it for such prompts).
      event_id:
        q.prompt_id !== undefined
          ? promptEventId(hook.session ?? null, q.prompt_id)
          : derivedId("user_prompt", q.uuid),
      turn_id: q.turn_id ?? hook.turnId,
      payload: { source: "claude-transcript", queued: true, prompt: q.prompt, queued_at: q.timestamp },
      optional_fields: ["prompt"],
    });
  }
  return events;
}

/**
 * At Stop, reads the usage Claude wrote to the session transcript since the
 * last Stop; at SubagentStop, the subagent's own transcript (its messages
 * never reach the main one). Each message becomes one turn_usage event.
 * SessionEnd reads the session transcript once more: the last turn's final
 * response can reach the file after its Stop hook ran, and nothing reads later.
 */
function usageFromTranscripts(result: NormalizeResult, previous: ClaudeState | undefined, since?: string) {
  const cursors: Record<string, TranscriptCursor> = { ...(previous?.cursors ?? {}) };
  const events: NormalizedEvent[] = [];
  const transcript = result.context.transcript_path;
  let read = startCursor(cursors, result, transcript, previous !== undefined);
  for (const e of result.events) {
    const turnEnd = e.kind === "assistant_message" || e.kind === "session_end";
    if (turnEnd && transcript && !e.agent_id) {
      const session = result.context.identity.provider_session_id;
      const hook = { turnId: e.turn_id, agentId: undefined, main: true, session };
      events.push(...readTail(transcript, cursors, hook, since));
      read = true;
    }
    const agentTranscript = e.payload.agent_transcript_path;
    if (e.kind === "subagent_stop" && typeof agentTranscript === "string" && agentTranscript.length < 4096) {
      const hook = { turnId: e.turn_id, agentId: e.agent_id, main: false };
      events.push(...readTail(agentTranscript, cursors, hook, since));
      read = true;
    }
  }
  return afterReads(read, events, cursors);
}

export const claudeAdapter: ProviderAdapter = {
  name: claudeIdentity.name,
  displayName: claudeIdentity.displayName,
  projectDirEnv: "CLAUDE_PROJECT_DIR",
  agentPidEnv: "CLAUDE_PID",
  normalize: (payload, env) => normalizeClaudeHook(payload, env),
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
