import { describe, expect, it } from "vitest";
import {
  MessageAccumulator,
  mergeUsage,
  messageFromJson,
} from "../../../../src/providers/claude/mirror/accumulator.ts";
import { replyJson, sseEvents } from "./helpers.ts";

function feed(acc: MessageAccumulator, events: unknown[]): void {
  for (const e of events) acc.apply(e);
}

/** The stream events of content block `index`: its start, each delta, its stop. */
function block(index: number, contentBlock: unknown, ...deltas: unknown[]): unknown[] {
  return [
    { type: "content_block_start", index, content_block: contentBlock },
    ...deltas.map((delta) => ({ type: "content_block_delta", index, delta })),
    { type: "content_block_stop", index },
  ];
}

const inputJson = (partial_json: string) => ({ type: "input_json_delta", partial_json });

const start = (usage: Record<string, unknown> = { input_tokens: 10, output_tokens: 1 }) => ({
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-opus-5-5",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage,
  },
});

describe("message accumulator", () => {
  it("rebuilds thinking (with signature), text and tool_use from a real-shaped stream", () => {
    const acc = new MessageAccumulator();
    for (const e of sseEvents({
      id: "msg_a",
      blocks: [
        { type: "thinking", thinking: "The user wants echo.", signature: "c2lnbmF0dXJl" },
        { type: "text", text: "Running the command now." },
        { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo hello", n: [1, 2] } },
      ],
      stopReason: "tool_use",
      outputTokens: 42,
    })) {
      acc.apply(e.json);
    }
    expect(acc.complete).toBe(true);
    const m = acc.snapshot();
    expect(m).toMatchObject({
      id: "msg_a",
      model: "claude-opus-5-5",
      stop_reason: "tool_use",
      stop_sequence: null,
      stop_details: null,
    });
    expect(m?.content).toEqual([
      { type: "thinking", thinking: "The user wants echo.", signature: "c2lnbmF0dXJl" },
      { type: "text", text: "Running the command now." },
      { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo hello", n: [1, 2] } },
    ]);
    expect(m?.usage).toEqual({
      input_tokens: 2817,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 42,
      service_tier: "standard",
    });
  });

  it("merges message_delta usage without letting nulls erase message_start values", () => {
    const usage = { input_tokens: 5, output_tokens: 1, server_tool_use: { web_search_requests: 0 } };
    mergeUsage(usage, {
      output_tokens: 99,
      input_tokens: null,
      server_tool_use: { web_search_requests: 2 },
      cache_creation: { ephemeral_5m_input_tokens: 3 },
      new_null: null,
    });
    expect(usage).toEqual({
      input_tokens: 5,
      output_tokens: 99,
      server_tool_use: { web_search_requests: 2 },
      cache_creation: { ephemeral_5m_input_tokens: 3 },
      new_null: null,
    });
  });

  it("takes stop_reason, stop_sequence and stop_details from message_delta", () => {
    const acc = new MessageAccumulator();
    feed(acc, [
      start(),
      {
        type: "message_delta",
        delta: { stop_reason: "stop_sequence", stop_sequence: "END", stop_details: { type: "x" } },
        usage: { output_tokens: 3 },
      },
      { type: "message_stop" },
    ]);
    expect(acc.snapshot()).toMatchObject({
      stop_reason: "stop_sequence",
      stop_sequence: "END",
      stop_details: { type: "x" },
      usage: { input_tokens: 10, output_tokens: 3 },
    });
  });

  it("accumulates citations_delta into the text block's citations", () => {
    const acc = new MessageAccumulator();
    const cite = (n: number) => ({ type: "char_location", cited_text: `c${n}`, document_index: 0 });
    feed(acc, [
      start(),
      ...block(
        0,
        { type: "text", text: "" },
        { type: "text_delta", text: "As cited" },
        { type: "citations_delta", citation: cite(1) },
        { type: "citations_delta", citation: cite(2) },
      ),
    ]);
    expect(acc.snapshot()?.content[0]).toEqual({
      type: "text",
      text: "As cited",
      citations: [cite(1), cite(2)],
    });
  });

  it("keeps server tool blocks generically: server_tool_use input JSON and complete result blocks", () => {
    const acc = new MessageAccumulator();
    const result = {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_1",
      content: [{ type: "web_search_result", url: "https://example.com", title: "Example" }],
    };
    feed(acc, [
      start(),
      ...block(
        0,
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
        inputJson('{"query":'),
        inputJson('"tapedeck"}'),
      ),
      ...block(1, result),
      ...block(2, { type: "redacted_thinking", data: "opaque" }),
      ...block(3, { type: "future_block", log: "a" }, { type: "future_delta", log: "bc", extra: 1 }),
    ]);
    expect(acc.snapshot()?.content).toEqual([
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "tapedeck" } },
      result,
      { type: "redacted_thinking", data: "opaque" },
      { type: "future_block", log: "abc", extra: 1 },
    ]);
  });

  it("keeps an input that does not parse as the raw string", () => {
    const acc = new MessageAccumulator();
    feed(acc, [
      start(),
      ...block(0, { type: "tool_use", id: "t", name: "X", input: {} }, inputJson('{"a": tru')),
    ]);
    expect(acc.snapshot()?.content[0]?.input).toBe('{"a": tru');
  });

  it("a tool_use with no input deltas keeps its start input", () => {
    const acc = new MessageAccumulator();
    feed(acc, [start(), ...block(0, { type: "tool_use", id: "t", name: "X", input: {} })]);
    expect(acc.snapshot()?.content[0]?.input).toEqual({});
  });

  it("an interrupted snapshot settles unfinished inputs and marks stop_reason interrupted", () => {
    const acc = new MessageAccumulator();
    const events = sseEvents({
      id: "m",
      blocks: [
        { type: "text", text: "abcdef" },
        { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls -la /tmp" } },
      ],
    });
    const cut = events.findIndex(
      (e) => (e.json as { delta?: { type?: string } }).delta?.type === "input_json_delta",
    );
    for (const e of events.slice(0, cut + 1)) acc.apply(e.json);
    expect(acc.started).toBe(true);
    expect(acc.complete).toBe(false);
    const m = acc.snapshot({ interrupted: true });
    expect(m?.stop_reason).toBe("interrupted");
    expect(m?.content[0]).toEqual({ type: "text", text: "abcdef" });
    expect(typeof m?.content[1]?.input).toBe("string");
  });

  it("before message_start there is nothing to snapshot", () => {
    const acc = new MessageAccumulator();
    acc.apply({ type: "ping" });
    acc.apply(null);
    acc.apply("garbage");
    expect(acc.started).toBe(false);
    expect(acc.snapshot({ interrupted: true })).toBeUndefined();
  });

  it("records an error event and keeps unknown message_start fields", () => {
    const acc = new MessageAccumulator();
    const s = start();
    (s.message as Record<string, unknown>).container = { id: "c1" };
    feed(acc, [s, { type: "error", error: { type: "overloaded_error" } }]);
    expect(acc.sawError).toBe(true);
    expect(acc.snapshot()?.extra).toEqual({ container: { id: "c1" } });
  });

  it("snapshots are copies, and a `__proto__` key in the stream stays an own key", () => {
    const acc = new MessageAccumulator();
    const toolUse = JSON.parse(
      '{"type":"tool_use","id":"t1","name":"n","input":{"__proto__":{"x":1},"a":[1]}}',
    );
    feed(acc, [start(), ...block(0, toolUse)]);
    const first = acc.snapshot()!;
    const input = first.content[0]!.input as Record<string, unknown>;
    expect(Object.getPrototypeOf(input)).toBe(Object.prototype);
    expect(Object.keys(input)).toEqual(["__proto__", "a"]);
    expect(JSON.stringify(input)).toBe('{"__proto__":{"x":1},"a":[1]}');
    (input.a as number[]).push(2);
    first.content[0]!.name = "changed";
    const second = acc.snapshot()!;
    expect(second.content[0]).toEqual({
      type: "tool_use",
      id: "t1",
      name: "n",
      input: JSON.parse('{"__proto__":{"x":1},"a":[1]}'),
    });
  });

  it("messageFromJson reads a non-streaming response body", () => {
    // The body a non-streaming call returns (end_turn, the default model).
    const body = replyJson({
      id: "msg_j",
      blocks: [{ type: "text", text: "hi" }],
      inputTokens: 1,
      outputTokens: 2,
    });
    const m = messageFromJson(body);
    expect(m).toMatchObject({
      id: "msg_j",
      stop_reason: "end_turn",
      content: [{ type: "text", text: "hi" }],
    });
    expect(messageFromJson({ type: "error", error: {} })).toBeUndefined();
    expect(messageFromJson("x")).toBeUndefined();
  });
});
