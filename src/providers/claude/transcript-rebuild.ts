// Rebuilds the conversation of a Claude Code session from its hook archive alone, as records in the mirror's
// shape (./mirror/envelope.ts: Claude Code's own key order per record type), so that the mirror
// restore's `toTranscript` turns them into a resumable transcript exactly as it does mirror records:
// one linear uuid/parentUuid chain, one record per assistant content block, sourceToolAssistantUUID on tool
// results, a closing `last-prompt`.
//
// What the hooks see, and so what a rebuild holds (main thread only; a subagent's events carry agent_id and
// Claude Code keeps those in a sidechain file that resume does not need):
//   UserPromptSubmit        user_prompt.prompt            -> a user record with the prompt as a string
//   PreToolUse              tool_call (name, input, id)   -> an assistant tool_use block; calls with no
//                           result between them are one API message (Claude runs parallel calls first,
//                           then reports them), so they share one assistant message
//   PostToolUse(Failure)    tool_result / tool_error      -> a user tool_result record, paired by tool_use_id
//   Stop                    assistant_message.text        -> an assistant text record (the turn's last answer)
// What the hooks never see, listed by `unrecoverable` (docs/restore.md): thinking blocks, the assistant text
// written before a tool call, system-context attachments, Claude Code's enriched tool objects
// (toolUseResult) and permission decisions, and the exact tool_result content Claude sent for tools whose
// response is an object (rebuilt from the hook's tool_response).
import type { Json, JsonObject } from "../../core/base/json.ts";
import { isRecord } from "../shared.ts";
import { syntheticUuid } from "./mirror/envelope.ts";
import { ASSISTANT_KEYS, inKeyOrder, USER_PROMPT_KEYS, USER_TOOL_RESULT_KEYS } from "./transcript-keys.ts";

/** The part of an archived envelope a rebuild reads. */
export interface ArchivedEvent {
  sequence: number;
  event_id: string;
  timestamp: string;
  kind: string;
  agent_id?: string;
  payload: Record<string, unknown>;
  redactions: string[];
  omitted: string[];
  usage?: { model?: string };
}

export const ARCHIVE_SOURCE = "tapedeck-archive";
export const ARCHIVE_ENTRYPOINT = "tapedeck-archive";

/** Always missing from a rebuild: the hooks never carry it. */
export const UNRECOVERABLE = [
  "thinking blocks (the hooks never see them)",
  "assistant text written before a tool call (Stop carries only the turn's last answer)",
  "system-context attachments Claude Code replays on resume (environment, reminders)",
  "Claude Code's enriched tool results (toolUseResult) and permission decisions",
  "the exact tool_result text of tools whose response is an object (rebuilt from the hook's tool_response)",
] as const;

export interface RebuildStats {
  prompts: number;
  answers: number;
  tool_calls: number;
  tool_results: number;
  /** Tool calls the archive holds no result for (interrupted, or recorded while off): left out. */
  unanswered_calls: number;
  /** Events whose values the recording redacted: their markers are in the rebuild, never the values. */
  redacted_events: number;
  /** Events whose fields the size bound dropped (`omitted`): e.g. a tool input rebuilt as `{}`. */
  bounded_events: number;
}

export interface Rebuild {
  records: JsonObject[];
  stats: RebuildStats;
}

/**
 * The text Claude sends as a tool's result, as near as the hook's tool_response allows: Bash's stdout and
 * stderr joined as Claude joins them, text content blocks (Agent, MCP) as blocks, anything else as its JSON.
 */
export function toolResultContent(response: unknown): Json {
  if (typeof response === "string") return response;
  if (!isRecord(response)) return response === undefined ? "" : JSON.stringify(response);
  if (typeof response.stdout === "string" || typeof response.stderr === "string") {
    return [response.stdout, response.stderr]
      .filter((s): s is string => typeof s === "string" && s !== "")
      .join("\n");
  }
  const content = response.content;
  if (Array.isArray(content) && content.every((b) => isRecord(b) && b.type === "text")) {
    return content.map((b) => ({ type: "text", text: String((b as { text: unknown }).text) }));
  }
  if (typeof content === "string") return content;
  return JSON.stringify(response);
}

interface Context {
  sessionId: string;
  model: string;
  stats: RebuildStats;
}

function common(ctx: Context, ts: string): JsonObject {
  return {
    isSidechain: false,
    timestamp: ts,
    userType: "external",
    entrypoint: ARCHIVE_ENTRYPOINT,
    sessionId: ctx.sessionId,
    version: ARCHIVE_SOURCE,
    source: ARCHIVE_SOURCE,
  };
}

function userRecord(ctx: Context, e: ArchivedEvent, content: Json, toolResult: boolean): JsonObject {
  const values: JsonObject = {
    ...common(ctx, e.timestamp),
    type: "user",
    message: { role: "user", content },
    uuid: syntheticUuid(ctx.sessionId, e.timestamp, `archive:${e.event_id}`),
  };
  return inKeyOrder(values, toolResult ? USER_TOOL_RESULT_KEYS : USER_PROMPT_KEYS);
}

function assistantRecord(ctx: Context, first: ArchivedEvent, blocks: JsonObject[], stop: string): JsonObject {
  const id = `msg_tapedeck_${syntheticUuid(ctx.sessionId, first.timestamp, first.event_id).replace(/-/g, "")}`;
  const values: JsonObject = {
    ...common(ctx, first.timestamp),
    type: "assistant",
    message: {
      id,
      type: "message",
      role: "assistant",
      model: ctx.model,
      content: blocks,
      stop_reason: stop,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    },
    uuid: syntheticUuid(ctx.sessionId, first.timestamp, `archive:${first.event_id}`),
    madeBy: "model",
  };
  return inKeyOrder(values, ASSISTANT_KEYS);
}

/** The model the session used, from its usage or session_start events; resume never sends it back. */
function sessionModel(events: readonly ArchivedEvent[]): string {
  for (const e of events) {
    if (typeof e.usage?.model === "string") return e.usage.model;
    if (e.kind === "session_start" && typeof e.payload.model === "string") return e.payload.model;
  }
  return "unknown";
}

/** The main thread's conversation, in archive order, as mirror-shaped records. */
export function rebuildFromArchive(events: readonly ArchivedEvent[], sessionId: string): Rebuild {
  const stats: RebuildStats = {
    prompts: 0,
    answers: 0,
    tool_calls: 0,
    tool_results: 0,
    unanswered_calls: 0,
    redacted_events: 0,
    bounded_events: 0,
  };
  const ctx: Context = { sessionId, model: sessionModel(events), stats };
  const ordered = [...events].sort((a, b) => a.sequence - b.sequence);
  const records: JsonObject[] = [];
  const answered = new Set<string>();
  for (const e of ordered) {
    if (!e.agent_id && (e.kind === "tool_result" || e.kind === "tool_error")) {
      const id = e.payload.tool_use_id;
      if (typeof id === "string") answered.add(id);
    }
  }
  // Tool calls waiting for the first result: they were one API message.
  let pending: { first: ArchivedEvent; blocks: JsonObject[] } | undefined;
  const flushCalls = () => {
    if (pending) records.push(assistantRecord(ctx, pending.first, pending.blocks, "tool_use"));
    pending = undefined;
  };
  const used = (e: ArchivedEvent) => {
    if (e.redactions.length > 0) stats.redacted_events++;
    if (e.omitted.length > 0) stats.bounded_events++;
  };
  for (const e of ordered) {
    if (e.agent_id) continue;
    const p = e.payload;
    if (e.kind === "user_prompt" && typeof p.prompt === "string") {
      flushCalls();
      records.push(userRecord(ctx, e, p.prompt, false));
      stats.prompts++;
      used(e);
    } else if (
      e.kind === "tool_call" &&
      typeof p.tool_use_id === "string" &&
      typeof p.tool_name === "string"
    ) {
      if (!answered.has(p.tool_use_id)) {
        stats.unanswered_calls++;
        continue;
      }
      const block: JsonObject = {
        type: "tool_use",
        id: p.tool_use_id,
        name: p.tool_name,
        input: (isRecord(p.tool_input) ? p.tool_input : {}) as JsonObject,
      };
      pending ??= { first: e, blocks: [] };
      pending.blocks.push(block);
      stats.tool_calls++;
      used(e);
    } else if ((e.kind === "tool_result" || e.kind === "tool_error") && typeof p.tool_use_id === "string") {
      flushCalls();
      const error = e.kind === "tool_error";
      const content = error
        ? typeof p.error === "string"
          ? p.error
          : JSON.stringify(p.error ?? "error")
        : toolResultContent(p.tool_response);
      const block: JsonObject = { tool_use_id: p.tool_use_id, type: "tool_result", content, is_error: error };
      records.push(userRecord(ctx, e, [block], true));
      stats.tool_results++;
      used(e);
    } else if (e.kind === "assistant_message" && typeof p.text === "string" && p.text !== "") {
      flushCalls();
      records.push(assistantRecord(ctx, e, [{ type: "text", text: p.text }], "end_turn"));
      stats.answers++;
      used(e);
    }
  }
  flushCalls();
  return { records, stats };
}
