// The token counts Gemini's hooks leave out, from its chat recording.
//
// AfterModel hands a hook only promptTokenCount, candidatesTokenCount and
// totalTokenCount (measured with 0.61: the API's cachedContentTokenCount and
// thoughtsTokenCount never reach it), so the hooks alone would show a cache
// read of 0 where Gemini reported 500. The chat file (`transcript_path`)
// records each model message with `tokens{input,output,cached,thoughts,tool,
// total}`. At the end of a turn (AfterAgent) and of a session, the messages
// written since the last read become one turn_usage each, carrying only the
// counts the hooks lack (cache read, reasoning): input and output are already
// in the AfterModel turn_usage, and summing them twice would double them.
//
// The file is read from a cursor (chat-file.ts), messages keyed by id: a
// message written again when its tool calls are attached counts once, and
// `$set` records are skipped: they only repeat messages already written. Only
// messages stamped at or after the moment recording was switched on count
// (off means off).
import type { NormalizedEvent } from "../../core/archive/event.ts";
import type { Usage } from "../../core/archive/schemas.ts";
import { idFor } from "../shared.ts";
import { type ChatCursor, keptSeen, scanChatFile } from "./chat-file.ts";

/** A model message's `tokens` (Gemini's usageMetadata: input = promptTokenCount, cached a part of it). */
export interface ChatTokens {
  input?: number;
  output?: number;
  cached?: number;
  thoughts?: number;
  total?: number;
}

interface ChatMessage {
  id: string;
  timestamp?: string;
  model?: string;
  tokens: ChatTokens;
}

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

function modelMessage(line: Buffer): ChatMessage | undefined {
  // Cheap prefilter: only model messages with token counts are parsed.
  if (line.indexOf('"tokens"') < 0 || line.indexOf('"type":"gemini"') < 0) return undefined;
  let rec: unknown;
  try {
    rec = JSON.parse(line.toString("utf8"));
  } catch {
    return undefined;
  }
  if (!rec || typeof rec !== "object") return undefined;
  const r = rec as Record<string, unknown>;
  if (r.type !== "gemini" || typeof r.id !== "string" || r.id.length > 256) return undefined;
  if (!r.tokens || typeof r.tokens !== "object") return undefined;
  const message: ChatMessage = { id: r.id, tokens: chatTokens(r.tokens) };
  if (typeof r.timestamp === "string" && r.timestamp.length <= 64) message.timestamp = r.timestamp;
  if (typeof r.model === "string" && r.model.length <= 128) message.model = r.model;
  return message;
}

/** The counts of a model message's `tokens`; also what `tapedeck import` reads (gemini/history-map.ts). */
export function chatTokens(raw: unknown): ChatTokens {
  const tokens: ChatTokens = {};
  if (!raw || typeof raw !== "object") return tokens;
  const t = raw as Record<string, unknown>;
  for (const key of ["input", "output", "cached", "thoughts", "total"] as const) {
    const value = t[key];
    if (isCount(value)) tokens[key] = value;
  }
  return tokens;
}

function usageEvent(message: ChatMessage, session: string): NormalizedEvent {
  const usage: Usage = { source: "gemini-chat", message_id: message.id };
  if (message.model !== undefined) usage.model = message.model;
  if (message.tokens.cached !== undefined) usage.cache_read_input_tokens = message.tokens.cached;
  if (message.tokens.thoughts !== undefined) usage.reasoning_output_tokens = message.tokens.thoughts;
  const event: NormalizedEvent = {
    kind: "turn_usage",
    event_id: idFor("turn_usage", ["gemini-chat", session, message.id]),
    payload: {
      source: "chat_file",
      message_id: message.id,
      ...(message.model ? { model: message.model } : {}),
    },
    usage,
  };
  if (message.timestamp !== undefined) event.timestamp = message.timestamp;
  return event;
}

/**
 * The turn_usage events of the model messages written to `path` since `cursor`, and the new cursor. Any
 * failure to read (gone, not a regular file, a FIFO) gives no events and keeps the cursor: usage is never
 * worth disturbing the hook.
 */
export function readChatUsage(
  path: string,
  cursor: ChatCursor | undefined,
  session: string,
  since: string | undefined,
): { events: NormalizedEvent[]; cursor: ChatCursor | undefined } {
  const found = new Map<string, ChatMessage>();
  const offset = scanChatFile(path, cursor, (line) => {
    const message = modelMessage(line);
    if (message) found.set(message.id, message);
  });
  if (offset === undefined) return { events: [], cursor };
  const seen = new Set(cursor?.path === path ? cursor.seen : []);
  const events: NormalizedEvent[] = [];
  for (const message of found.values()) {
    if (seen.has(message.id)) continue;
    if (since !== undefined && (message.timestamp === undefined || message.timestamp < since)) continue;
    seen.add(message.id);
    events.push(usageEvent(message, session));
  }
  return { events, cursor: { path, offset, seen: keptSeen(seen) } };
}
