// What Gemini's model said, from its chat recording, where its hooks cannot tell it.
//
// Measured with Gemini CLI 0.61: AfterModel fires once per streamed chunk and its `llm_response.text` is that
// chunk's text only (a response's text is spread over its chunks; the final chunk of a response that calls a
// tool has none). No other hook carries model text but AfterAgent, whose `prompt_response` is every response
// of the turn in one string (each response's chunks joined with " ", the responses with "\n"). So a text said
// before a tool call would only appear, merged into the answer, after the call. Gemini writes each response's
// whole text to the chat file as a model message (`{id, timestamp, type:"gemini", content}`) as soon as its
// stream ends, before it schedules the response's tool calls: at BeforeTool the text is there, and becomes an
// event before the call's. The adapter keeps no text in its state (it is on disk, unredacted), only this
// reader's cursor.
import type { NormalizedEvent } from "../../core/archive/event.ts";
import { hookTime } from "../hook-normalizer.ts";
import { idFor, isRecord } from "../shared.ts";
import { type ChatCursor, chatText, keptSeen, scanChatFile } from "./chat-file.ts";

interface SaidMessage {
  id: string;
  timestamp: string;
  text: string;
}

function saidMessage(line: Buffer): SaidMessage | undefined {
  // Cheap prefilter: only model messages are parsed.
  if (line.indexOf('"type":"gemini"') < 0) return undefined;
  let rec: unknown;
  try {
    rec = JSON.parse(line.toString("utf8"));
  } catch {
    return undefined;
  }
  if (!isRecord(rec) || rec.type !== "gemini" || typeof rec.id !== "string" || rec.id.length > 256)
    return undefined;
  // Canonical, as the hooks' timestamps it is compared with.
  const timestamp = hookTime(rec.timestamp);
  const text = chatText(rec.content);
  if (timestamp === undefined || text === undefined || text.trim() === "") return undefined;
  return { id: rec.id, timestamp, text };
}

/**
 * The event of a model message's text: the id and payload `tapedeck import` gives the same message
 * (history-map.ts), as the import's events match the hooks' wherever the file has what their ids are made of.
 */
function saidEvent(message: SaidMessage, session: string): NormalizedEvent {
  return {
    kind: "assistant_message",
    event_id: idFor("assistant_message", ["gemini-chat", session, message.id]),
    timestamp: message.timestamp,
    payload: { text: message.text, message_id: message.id, source: "gemini-chat" },
    optional_fields: ["text"],
  };
}

/**
 * The texts of the model messages written to `path` since `cursor` and stamped at or after `since` (the
 * turn's start: a cursor that starts over, on a file rewritten or first read, must not bring back an earlier
 * turn's texts), in the order written, each once; and the new cursor. undefined when the file cannot be read.
 */
export function readChatTexts(
  path: string,
  cursor: ChatCursor | undefined,
  session: string,
  since: string,
): { events: NormalizedEvent[]; cursor: ChatCursor } | undefined {
  const found = new Map<string, SaidMessage>();
  const offset = scanChatFile(path, cursor, (line) => {
    const message = saidMessage(line);
    // The first write of a message holds its text; a later one (tool calls attached) only repeats it.
    if (message && !found.has(message.id)) found.set(message.id, message);
  });
  if (offset === undefined) return undefined;
  const seen = new Set(cursor?.path === path ? cursor.seen : []);
  const events: NormalizedEvent[] = [];
  for (const message of found.values()) {
    if (seen.has(message.id) || message.timestamp < since) continue;
    seen.add(message.id);
    events.push(saidEvent(message, session));
  }
  return { events, cursor: { path, offset, seen: keptSeen(seen) } };
}
