// Gemini CLI's chat recording as the events its hooks record (`tapedeck import`). The file is JSONL of upserts
// (chat-usage.ts): a header `{sessionId, startTime, kind}` (again on each resume), `{"$set": ...}` patches, and
// messages by id, a model message written again once its tool calls are attached. So every event is keyed by
// the message or tool call id it comes from: a message seen twice gives its events once (the store drops a
// repeat by id), and what a later write adds (the tool calls) is read from it.
//
// A user message is a BeforeAgent (a turn's prompt), a model message's text an answer, each tool call a
// BeforeTool and, once it has a result, an AfterTool (through the hooks' normalizer, which reads a failure from
// the shell's `Exit Code:` trailer); the chat's own tool call ids pair them, where the hooks have to guess. The
// token counts are the message's `tokens`, all of them in one turn_usage (the hook path splits them between the
// AfterModel chunk and the chat file: the sums are the same). A `$set` that rewrites the history with a
// `<state_snapshot>` is a compression.

import { basename } from "node:path";
import type { NormalizedEvent } from "../../core/archive/event.ts";
import { BoundedMap, type HistoryFile, type HistorySession, isoTime, shortString } from "../history.ts";
import { RecordMapper, setFields } from "../history-mapper.ts";
import { digest, idFor, isRecord, type Payload } from "../shared.ts";
import { chatText } from "./chat-file.ts";
import { chatTokens } from "./chat-usage.ts";
import { normalizeGeminiHook, usageFrom } from "./normalize.ts";

/** Message and tool call ids already turned into events: far more than one turn writes. */
const SEEN_KEPT = 2048;

export class GeminiHistoryMapper extends RecordMapper {
  private starts: number;
  /** When the session first started: its earliest file's header. */
  private readonly firstStart: string | undefined;
  /** `<id>:<part>` of what was emitted: `m` text, `u` usage, `c` a tool call, `r` its result. */
  private readonly seen: BoundedMap<number>;

  constructor(
    session: HistorySession,
    file: HistoryFile,
    private readonly cwd: string | null,
    state: Record<string, unknown> | undefined,
  ) {
    super(session.sessionId, state, session.firstAt);
    this.firstStart = session.firstAt;
    this.starts = typeof state?.starts === "number" && Number.isSafeInteger(state.starts) ? state.starts : 0;
    this.seen = BoundedMap.from(SEEN_KEPT, state?.seen, (v): v is number => v === 1);
    this.fileTag = basename(file.path);
  }

  /**
   * A chat file of Gemini CLI before 0.6x: one JSON document `{sessionId, startTime, lastUpdated, messages}`,
   * rewritten whole on each message. Its header and each message are read as the JSONL file's records are
   * (the messages have the same shape), each message one record of the tally.
   */
  document(doc: unknown): NormalizedEvent[] {
    this.lineNo += 1;
    this.tally.records += 1;
    if (!isRecord(doc) || !Array.isArray(doc.messages)) {
      this.tally.malformed += 1;
      this.tally.lines.malformed = [this.lineNo];
      return [];
    }
    const { messages, ...header } = doc;
    const out = this.record({ sessionId: header.sessionId, startTime: header.startTime });
    messages.forEach((message, index) => {
      this.lineNo += 1;
      this.offset = index + 1;
      this.tally.records += 1;
      if (isRecord(message)) out.push(...this.record(message));
      else this.tally.malformed += 1;
    });
    return out;
  }

  /** A header has its `startTime` instead. */
  protected override timeOf(record: Payload): string | undefined {
    return isoTime(record.timestamp) ?? isoTime(record.startTime);
  }

  protected map(record: Payload): NormalizedEvent[] {
    const out: NormalizedEvent[] = [];
    if (isRecord(record.$set)) this.patch(record.$set, out);
    else if (typeof record.sessionId === "string" && record.type === undefined) this.header(record, out);
    else if (record.type === "user") this.user(record, out);
    else if (record.type === "gemini") this.model(record, out);
    else if (record.type === "error") this.error(record, out);
    else if (record.type === "info" || record.type === "warning") this.skip(String(record.type));
    else if (record.type === undefined && typeof record.sessionId !== "string") this.skip("(no type)");
    else out.push(this.place(this.unknown(shortString(record.type, 64) ?? "(no type)", record), this.lastAt));
    return out;
  }

  state(): Record<string, unknown> {
    return setFields({
      starts: this.starts,
      seen: this.seen.entries(),
      ...this.baseState(),
    });
  }

  /**
   * The header opens the file and each resume: a SessionStart each. Gemini CLI 0.61 writes a resume's header
   * into the file named for the minute it starts, before it takes up the resumed file: in the same minute that
   * is the resumed file, later a file of its own beside it (holding only that header and the context), which a
   * resume in that same minute appends to again. So a start is told by its time, not by its place in a file:
   * the session's first (its earliest file's header, or a copy of it) is the import's start, every later one a
   * resume with an id of its own, whichever file it is in.
   */
  private header(record: Payload, out: NormalizedEvent[]): void {
    this.starts += 1;
    const started = isoTime(record.startTime);
    const timed = started !== undefined && this.firstStart !== undefined;
    const first = timed ? started <= this.firstStart : this.starts === 1;
    const fields: Payload = { source: first ? "import" : "resume" };
    if (this.cwd !== null) fields.cwd = this.cwd;
    const event = this.hook("SessionStart", fields);
    // Without a start time, the ordinal within the file keeps two starts of one millisecond apart.
    event.event_id = idFor(
      "session_start",
      first ? ["gemini-chat", this.session, 1] : ["gemini-chat", this.session, timed ? started : this.starts],
    );
    out.push(event);
  }

  private patch(set: Payload, out: NormalizedEvent[]): void {
    if (!Array.isArray(set.messages)) return;
    // A compression rewrites the history around a `<state_snapshot>`; a resume's rewrite has none.
    for (const message of set.messages) {
      if (!isRecord(message) || message.type !== "user") continue;
      const text = chatText(message.content);
      const id = shortString(message.id);
      if (!text?.includes("<state_snapshot>") || id === undefined || !this.first(id, "k")) continue;
      const at = isoTime(message.timestamp) ?? this.lastAt;
      const event: NormalizedEvent = {
        kind: "compaction",
        event_id: idFor("compaction", ["gemini-chat", this.session, id]),
        payload: {
          hook_event_name: "PreCompress",
          trigger: "auto",
          phase: "post",
          detected_by: "state_snapshot",
          summary: text,
        },
        optional_fields: ["summary"],
      };
      out.push(this.place(event, at));
    }
  }

  private user(record: Payload, out: NormalizedEvent[]): void {
    const id = shortString(record.id);
    const text = chatText(record.content);
    // A function response is the tool's result, already read from the model message's tool call.
    if (id === undefined || text === undefined || text.trim() === "" || !this.first(id, "m")) return;
    this.turn = `turn-${digest(["turn", this.session, id]).slice(0, 24)}`;
    const event = this.hook("BeforeAgent", { prompt: text }, isoTime(record.timestamp));
    event.event_id = idFor("user_prompt", ["gemini-chat", this.session, id]);
    out.push(this.place(event, event.timestamp));
  }

  private model(record: Payload, out: NormalizedEvent[]): void {
    const id = shortString(record.id);
    if (id === undefined) return;
    const at = isoTime(record.timestamp) ?? this.lastAt;
    const text = chatText(record.content);
    if (text !== undefined && text.trim() !== "" && this.first(id, "m")) {
      const event: NormalizedEvent = {
        kind: "assistant_message",
        event_id: idFor("assistant_message", ["gemini-chat", this.session, id]),
        payload: { text, message_id: id, source: "gemini-chat" },
        optional_fields: ["text"],
      };
      out.push(this.place(event, at));
    }
    if (Array.isArray(record.toolCalls))
      for (const call of record.toolCalls) if (isRecord(call)) this.toolCall(call, at, out);
    if (isRecord(record.tokens) && this.first(id, "u")) this.usage(record, id, at, out);
  }

  private toolCall(call: Payload, at: string | undefined, out: NormalizedEvent[]): void {
    const id = shortString(call.id);
    if (id === undefined) return;
    const name = typeof call.name === "string" ? call.name : undefined;
    const callAt = isoTime(call.timestamp) ?? at;
    if (this.first(id, "c")) {
      out.push(this.tool(this.hook("BeforeTool", { tool_name: name, tool_input: call.args }, at), id, at));
    }
    const done = call.status === "success" || call.status === "error" || call.status === "cancelled";
    if (!done || !this.first(id, "r")) return;
    const response: Payload = { llmContent: resultText(call.result) ?? "" };
    if (call.resultDisplay !== undefined) response.returnDisplay = call.resultDisplay;
    if (call.status !== "success") response.error = { message: `${call.status}` };
    const result = this.hook(
      "AfterTool",
      { tool_name: name, tool_input: call.args, tool_response: response },
      callAt,
    );
    out.push(this.tool(result, id, callAt));
  }

  private usage(record: Payload, id: string, at: string | undefined, out: NormalizedEvent[]): void {
    const t = chatTokens(record.tokens);
    // The chat's counts are Gemini's usageMetadata under other names: mapped as the hooks map that.
    const meta: Payload = {
      promptTokenCount: t.input,
      candidatesTokenCount: t.output,
      cachedContentTokenCount: t.cached,
      thoughtsTokenCount: t.thoughts,
      totalTokenCount: t.total,
    };
    const model = shortString(record.model, 128);
    const usage = usageFrom(meta, model);
    if (!usage) return;
    usage.source = "gemini-chat";
    usage.message_id = id;
    const event: NormalizedEvent = {
      kind: "turn_usage",
      event_id: idFor("turn_usage", ["gemini-chat-import", this.session, id]),
      payload: { source: "chat_file", message_id: id, ...(model !== undefined ? { model } : {}) },
      usage,
    };
    out.push(this.place(event, at));
  }

  private error(record: Payload, out: NormalizedEvent[]): void {
    const id = shortString(record.id);
    const text = chatText(record.content);
    if (id === undefined || text === undefined || !this.first(id, "m")) return;
    const event: NormalizedEvent = {
      kind: "provider_event",
      event_id: idFor("provider_event", ["gemini-chat", this.session, id]),
      payload: { type: "error", failure: true, error: text },
    };
    out.push(this.place(event, isoTime(record.timestamp) ?? this.lastAt));
  }

  /** Whether `<id>:<part>` is seen for the first time (and from now on remembered). */
  private first(id: string, part: string): boolean {
    const key = `${id}:${part}`;
    if (this.seen.has(key)) return false;
    this.seen.set(key, 1);
    return true;
  }

  /** A tool event paired by the chat's own call id. */
  private tool(event: NormalizedEvent, id: string, at: string | undefined): NormalizedEvent {
    event.payload.tool_use_id = id;
    event.event_id = idFor(event.kind, ["gemini-chat", this.session, id]);
    return this.place(event, at);
  }

  /** The event Gemini's hook `name` would have given, through the hooks' own normalizer. */
  private hook(name: string, fields: Payload, at: string | undefined = this.lastAt): NormalizedEvent {
    const event = normalizeGeminiHook(this.hookPayload(name, { timestamp: at, ...fields }), {}).events[0]!;
    if (at === undefined) delete event.timestamp;
    return event;
  }

  private place(event: NormalizedEvent, at: string | undefined): NormalizedEvent {
    if (at !== undefined) event.timestamp = at;
    if (this.turn !== undefined && event.kind !== "session_start") event.turn_id = this.turn;
    return event;
  }
}

/** A tool call's result parts: the function response's output, as the model got it. */
function resultText(result: unknown): string | undefined {
  if (!Array.isArray(result)) return typeof result === "string" ? result : undefined;
  const texts: string[] = [];
  for (const part of result) {
    const response =
      isRecord(part) && isRecord(part.functionResponse) ? part.functionResponse.response : undefined;
    if (!isRecord(response)) continue;
    const value = response.output ?? response.error ?? response.content;
    if (typeof value === "string") texts.push(value);
    else if (value !== undefined) texts.push(JSON.stringify(value));
  }
  return texts.length > 0 ? texts.join("\n") : undefined;
}
