// The Gemini adapter's stateful step: tool pairing, turns, compaction
// detection and unfinished responses, driven hook by hook with the state
// round-tripped through JSON as the recorder stores it.
import { describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../../src/core/archive/event.ts";
import { enrichGemini, geminiAdapter, loadGeminiState } from "../../../src/providers/gemini/adapter.ts";
import { normalizeGeminiHook } from "../../../src/providers/gemini/normalize.ts";
import { type Json, providerFixtures } from "../../helpers/fixtures.ts";
import { CAPTURED_FIRST_RUN, CAPTURED_FIRST_RUN_KINDS } from "./captured-turn.ts";

const fixture = providerFixtures("gemini").json;

/** A hook sequence against one stored state, as consecutive hook processes see it. */
function session(initial?: Record<string, unknown>) {
  let state = initial;
  let clock = Date.parse("2026-11-29T18:49:22.500Z");
  const run = (payload: Json, stamp = true): NormalizedEvent[] => {
    clock += 7;
    const p = stamp ? { ...payload, timestamp: new Date(clock).toISOString() } : payload;
    const result = geminiAdapter.normalize(p, {});
    const extra = geminiAdapter.enrich?.(result, state);
    if (extra) state = JSON.parse(JSON.stringify(extra.state)) as Record<string, unknown>;
    return [...result.events, ...(extra?.events ?? [])];
  };
  return { run, state: () => state };
}

const base = fixture("BeforeTool.json");
const sessionId = base.session_id as string;

function hook(name: string, fields: Json = {}): Json {
  return {
    session_id: sessionId,
    transcript_path: base.transcript_path,
    cwd: base.cwd,
    hook_event_name: name,
    ...fields,
  };
}

const prompt = (text = "do it") => hook("BeforeAgent", { prompt: text });
const call = (command: string) =>
  hook("BeforeTool", { tool_name: "run_shell_command", tool_input: { command } });
const result = (command: string, llmContent = "Output: ok\nProcess Group PGID: 1") =>
  hook("AfterTool", {
    tool_name: "run_shell_command",
    tool_input: { command },
    tool_response: { llmContent, returnDisplay: "ok" },
  });

function messages(n: number, snapshot?: string): Json[] {
  const out: Json[] = [{ role: "user", content: "<session_context>ctx</session_context>" }];
  if (snapshot !== undefined) {
    out.push({ role: "user", content: `<state_snapshot>${snapshot}</state_snapshot>` });
    out.push({ role: "model", content: "Got it. Thanks for the additional context!" });
  }
  while (out.length < n) out.push({ role: out.length % 2 ? "user" : "model", content: `m${out.length}` });
  return out;
}

const model = (n: number, snapshot?: string) =>
  hook("BeforeModel", { llm_request: { model: "gemini-3.8-flash", messages: messages(n, snapshot) } });
const compress = (trigger = "auto") => hook("PreCompress", { trigger });
const chunk = (usageMetadata: Json, finishReason?: string) =>
  hook("AfterModel", {
    llm_request: { model: "gemini-3.8-flash", messages: messages(2) },
    llm_response: {
      text: "",
      candidates: [
        { content: { role: "model", parts: [] }, index: 0, ...(finishReason ? { finishReason } : {}) },
      ],
      usageMetadata,
    },
  });

const kinds = (events: NormalizedEvent[]) => events.map((e) => e.kind);
const toolId = (events: NormalizedEvent[]) => events[0]?.payload.tool_use_id as string;

describe("geminiAdapter: a captured turn, hook by hook", () => {
  it("records each event once, pairs the tool, and puts the turn on the turn's events", () => {
    const s = session();
    const sequence = CAPTURED_FIRST_RUN;
    const byFile = new Map(sequence.map((file) => [file, s.run(fixture(file), false)]));
    const all = [...byFile.values()].flat();
    expect(kinds(all)).toEqual(CAPTURED_FIRST_RUN_KINDS);
    const callEvent = byFile.get("BeforeTool.json")![0]!;
    const resultEvent = byFile.get("AfterTool.json")![0]!;
    expect(callEvent.payload.tool_use_id).toMatch(/^gemini-tool-[0-9a-f]{24}$/);
    expect(resultEvent.payload.tool_use_id).toBe(callEvent.payload.tool_use_id);
    expect(callEvent.event_id).toMatch(/^tool_call-[0-9a-f]{32}$/);
    expect(resultEvent.event_id).toMatch(/^tool_result-[0-9a-f]{32}$/);

    const turn = byFile.get("BeforeAgent.json")![0]!.turn_id;
    expect(turn).toMatch(/^turn-[0-9a-f]{24}$/);
    for (const event of all) {
      if (event.kind === "session_start" || event.kind === "session_end")
        expect(event.turn_id).toBeUndefined();
      else expect(event.turn_id, event.kind).toBe(turn);
    }
    const usage = all.filter((e) => e.kind === "turn_usage");
    expect(usage).toHaveLength(1);
    expect(usage[0]!.usage).toMatchObject({ input_tokens: 171, output_tokens: 26, total_tokens: 206 });
    // SessionEnd again (it fires three times on /quit): the same id, which the store keeps once.
    const again = s.run({ ...fixture("SessionEnd.json"), timestamp: "2026-11-29T18:49:23.990Z" }, false);
    expect(again[0]!.event_id).toBe(byFile.get("SessionEnd.json")![0]!.event_id);
  });

  it("is the same id for a retried hook whose state was not saved", () => {
    const s = session();
    s.run(prompt());
    const before = s.state();
    const first = geminiAdapter.normalize(call("ls"), {});
    geminiAdapter.enrich?.(first, before);
    const retry = geminiAdapter.normalize(call("ls"), {});
    geminiAdapter.enrich?.(retry, before);
    // Different timestamps (call() is not stamped here), same state: same pairing id.
    expect(retry.events[0]!.payload.tool_use_id).toBe(first.events[0]!.payload.tool_use_id);
  });
});

describe("geminiAdapter: tool pairing", () => {
  it("gives two identical calls in one turn different ids, each paired with its result", () => {
    const s = session();
    s.run(prompt());
    const call1 = toolId(s.run(call("ls")));
    const result1 = toolId(s.run(result("ls")));
    const call2 = toolId(s.run(call("ls")));
    const result2 = toolId(s.run(result("ls")));
    expect(result1).toBe(call1);
    expect(result2).toBe(call2);
    expect(call2).not.toBe(call1);
  });

  it("pairs interleaved calls with different inputs by their input", () => {
    const s = session();
    s.run(prompt());
    const a = toolId(s.run(call("a")));
    const b = toolId(s.run(call("b")));
    expect(toolId(s.run(result("b")))).toBe(b);
    expect(toolId(s.run(result("a")))).toBe(a);
    expect(a).not.toBe(b);
  });

  it("a call that never got a result does not take the result of its identical retry", () => {
    const s = session();
    s.run(prompt());
    toolId(s.run(call("rm -rf build"))); // blocked by another hook: no AfterTool
    const retry = toolId(s.run(call("rm -rf build")));
    expect(toolId(s.run(result("rm -rf build")))).toBe(retry);
  });

  it("gives the same call in another turn, or another session, another id", () => {
    const s = session();
    s.run(prompt("first"));
    const first = toolId(s.run(call("ls")));
    s.run(result("ls"));
    s.run(prompt("second"));
    const second = toolId(s.run(call("ls")));
    expect(second).not.toBe(first);
    const other = session();
    other.run({ ...prompt("first"), session_id: "other" });
    expect(toolId(other.run({ ...call("ls"), session_id: "other" }))).not.toBe(first);
  });

  it("keeps two identical calls in the same millisecond as two events", () => {
    const s = session();
    s.run(prompt());
    const same = { ...call("cat a"), timestamp: "2026-11-29T18:49:30.000Z" };
    const one = s.run(same, false)[0]!;
    const two = s.run(same, false)[0]!;
    expect(one.event_id).not.toBe(two.event_id);
    expect(one.payload.tool_use_id).not.toBe(two.payload.tool_use_id);
  });

  it("a result without a recorded call still gets an id, and a failure keeps it", () => {
    const s = session();
    s.run(prompt());
    const orphan = s.run(result("make", "Output: no\nExit Code: 2\nProcess Group PGID: 3"));
    expect(orphan[0]!.kind).toBe("tool_error");
    expect(toolId(orphan)).toMatch(/^gemini-tool-/);
    expect(toolId(s.run(call("make")))).not.toBe(toolId(orphan));
  });

  it("keeps the state bounded", () => {
    const s = session();
    s.run(prompt());
    for (let i = 0; i < 300; i += 1) s.run(call(`echo ${i}`));
    const tools = s.state()?.tools as Record<string, { open: number[] }>;
    expect(Object.keys(tools).length).toBeLessThanOrEqual(256);
    for (let i = 0; i < 40; i += 1) s.run(call("same"));
    const slot = Object.values(s.state()?.tools as Record<string, { n: number; open: number[] }>).at(-1)!;
    expect(slot.n).toBe(40);
    expect(slot.open.length).toBeLessThanOrEqual(32);
  });
});

describe("geminiAdapter: compaction", () => {
  it("does not record the PreCompress that fires before every model call", () => {
    const s = session();
    s.run(prompt());
    const events = [model(2), compress(), model(4), compress(), model(6)].flatMap((p) => s.run(p));
    expect(events).toEqual([]);
  });

  it("records an automatic compression once the next request carries a new state snapshot", () => {
    const s = session();
    s.run(prompt());
    s.run(model(2));
    s.run(compress());
    s.run(model(6));
    s.run(prompt("again"));
    s.run(compress());
    const events = s.run(model(4, "goal: run echo hello"));
    expect(kinds(events)).toEqual(["compaction"]);
    expect(events[0]!.payload).toEqual({
      hook_event_name: "PreCompress",
      trigger: "auto",
      phase: "post",
      detected_by: "state_snapshot",
      messages_before: 6,
      messages_after: 4,
      pre_compress_at: expect.stringMatching(/^2026-11-29T18:49:2\d\.\d{3}Z$/),
    });
    expect(events[0]!.turn_id).toBe(s.run(hook("Notification", { message: "x" }))[0]!.turn_id);
    // The snapshot stays in every later request: not a new compaction.
    s.run(compress());
    expect(s.run(model(6, "goal: run echo hello"))).toEqual([]);
    // A second compression writes a new snapshot.
    s.run(compress());
    expect(s.run(model(4, "goal: v2"))[0]!.payload.detected_by).toBe("state_snapshot");
  });

  it("records a compression seen as fewer messages, without a snapshot", () => {
    const s = session();
    s.run(prompt());
    s.run(model(10));
    s.run(compress());
    const events = s.run(model(5));
    expect(events[0]!.payload).toMatchObject({
      detected_by: "message_count",
      messages_before: 10,
      messages_after: 5,
    });
  });

  it("needs a PreCompress since the previous request, and a previous request", () => {
    const s = session();
    s.run(prompt());
    s.run(model(10));
    expect(s.run(model(5))).toEqual([]); // history shrank without a PreCompress: not claimed
    const fresh = session();
    fresh.run(prompt());
    fresh.run(compress());
    // The first request seen in this session already carries a snapshot: compressed before we recorded.
    expect(fresh.run(model(4, "old"))).toEqual([]);
  });

  it("records /compress once, at the PreCompress, and not again at the next request", () => {
    const s = session();
    s.run(prompt());
    s.run(model(8));
    const manual = s.run(compress("manual"));
    expect(manual[0]).toMatchObject({ kind: "compaction", payload: { trigger: "manual", phase: "pre" } });
    s.run(prompt("next"));
    s.run(compress());
    expect(s.run(model(4, "after manual"))).toEqual([]);
  });

  it("detects the captured resume-then-compress session across the resume", () => {
    // chat.resumed-and-compressed.sample.jsonl: a first run, then `--resume` whose first model
    // call is preceded by a compression (the history becomes context, snapshot, "Got it").
    const s = session();
    s.run(fixture("SessionStart.resume.json"), false);
    s.run(prompt());
    s.run(compress());
    s.run(model(2));
    s.run(compress());
    s.run(model(4));
    s.run(hook("AfterAgent", { prompt_response: "The command printed: hello" }));
    s.run(hook("SessionEnd", { reason: "exit" }));
    // The next run: same session id, resumed.
    expect(kinds(s.run({ ...fixture("SessionStart.resume.json"), session_id: sessionId }, false))).toEqual([
      "session_start",
    ]);
    s.run(prompt("SCENARIO_TEXT again"));
    s.run(compress());
    const events = s.run(model(4, "Mock goal: run echo hello."));
    expect(events.map((e) => e.payload.detected_by)).toEqual(["state_snapshot"]);
  });

  it("a new (not resumed) session start is no baseline for the next request", () => {
    const s = session();
    s.run(prompt());
    s.run(model(12));
    s.run(hook("SessionStart", { source: "clear" }));
    s.run(prompt());
    s.run(compress());
    expect(s.run(model(2))).toEqual([]);
  });
});

describe("geminiAdapter: responses that never finished", () => {
  it("records the last chunk's usage, marked incomplete, when the next call starts", () => {
    const s = session();
    s.run(prompt());
    const turn = s.run(hook("Notification", { message: "x" }))[0]!.turn_id;
    s.run(model(2));
    expect(s.run(chunk({ promptTokenCount: 300, totalTokenCount: 300 }))).toEqual([]);
    expect(s.run(chunk({ promptTokenCount: 300, candidatesTokenCount: 5, totalTokenCount: 305 }))).toEqual(
      [],
    );
    const events = s.run(model(2));
    expect(kinds(events)).toEqual(["turn_usage"]);
    expect(events[0]!.payload).toMatchObject({ hook_event_name: "AfterModel", complete: false });
    expect(events[0]!.usage).toEqual({
      source: "gemini-hook",
      model: "gemini-3.8-flash",
      input_tokens: 300,
      output_tokens: 5,
      total_tokens: 305,
    });
    expect(events[0]!.turn_id).toBe(turn);
    // Closed once.
    expect(s.run(hook("AfterAgent", { prompt_response: "" }))).toHaveLength(1);
  });

  it("records nothing extra for a response that finished", () => {
    const s = session();
    s.run(prompt());
    s.run(model(2));
    s.run(chunk({ promptTokenCount: 10, totalTokenCount: 10 }));
    expect(
      kinds(s.run(chunk({ promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 }, "STOP"))),
    ).toEqual(["turn_usage"]);
    expect(kinds(s.run(hook("AfterAgent", { prompt_response: "done" })))).toEqual(["assistant_message"]);
    expect(kinds(s.run(hook("SessionEnd", { reason: "exit" })))).toEqual(["session_end"]);
  });

  it("keeps an unfinished response of the previous turn in that turn", () => {
    const s = session();
    const firstTurn = s.run(prompt("one"))[0]!.turn_id;
    s.run(model(2));
    s.run(chunk({ promptTokenCount: 10, totalTokenCount: 10 }));
    const events = s.run(prompt("two"));
    expect(kinds(events)).toEqual(["user_prompt", "turn_usage"]);
    expect(events[1]!.turn_id).toBe(firstTurn);
    expect(events[0]!.turn_id).not.toBe(firstTurn);
  });
});

describe("geminiAdapter: robustness", () => {
  it("does nothing for a result it did not normalize itself", () => {
    const { observation: _, ...result } = normalizeGeminiHook(fixture("BeforeTool.json"), {});
    expect(geminiAdapter.enrich?.(result, undefined)).toBeUndefined();
    expect(enrichGemini(result, undefined)).toBeUndefined();
  });

  it("starts over from a malformed state instead of failing", () => {
    for (const bad of [
      { version: 2, epoch: 5 },
      { version: 1, epoch: -1, tools: "x", messages: "9", response: 3 },
      {
        version: 1,
        tools: { k: { n: 1, open: ["x"] } },
        response: { usage: { source: "evil", input_tokens: 9 } },
      },
    ]) {
      const s = session(bad as Record<string, unknown>);
      expect(kinds(s.run(call("ls")))).toEqual(["tool_call"]);
      expect(kinds(s.run(model(3)))).toEqual([]);
    }
    const loaded = loadGeminiState({
      version: 1,
      response: { usage: { source: "evil", input_tokens: 9 }, timestamp: 5 },
    });
    expect(loaded.response).toBeUndefined();
    const kept = loadGeminiState({
      version: 1,
      response: {
        timestamp: "2026-11-29T18:49:23.062Z",
        usage: { source: "gemini-hook", input_tokens: 9, x: 1 },
      },
    });
    expect(kept.response).toEqual({
      timestamp: "2026-11-29T18:49:23.062Z",
      usage: { source: "gemini-hook", input_tokens: 9 },
    });
  });

  it("handles payloads that are not objects", () => {
    const s = session();
    expect(kinds(s.run(null as unknown as Json, false))).toEqual(["provider_event"]);
    expect(s.state()).toBeUndefined();
  });

  it("is named", () => {
    expect(geminiAdapter.name).toBe("gemini");
    expect(geminiAdapter.displayName).toBe("Gemini CLI");
  });
});
