// What Gemini's model says before a tool call, recorded where it said it (issue 41, item 6), through the real
// hook path (runHook: normalize, enrich, store). The payloads and the chat file have the shapes Gemini CLI 0.61
// gives them: AfterModel once per streamed chunk, its `llm_response.text` that chunk's text without thoughts
// (`parts` holds the thoughts too, as plain strings); the chat file gets the response's whole text as a model
// message when the stream ends, before BeforeTool; AfterAgent's prompt_response joins every response of the
// turn (the chunks of each with " ", the responses with "\n").
import { appendFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeConfig } from "../../../src/core/archive/config.ts";
import { runHook } from "../../../src/core/hook/recorder.ts";
import { geminiAdapter } from "../../../src/providers/gemini/adapter.ts";
import { normalizeGeminiHook } from "../../../src/providers/gemini/normalize.ts";
import { tempProject } from "../../helpers/session.ts";

// biome-ignore lint/suspicious/noExplicitAny: assertions reach into arbitrary payload shapes
type Loose = Record<string, any>;

const SESSION = "5b0c2f8e-1d7a-4c3e-9f62-7a1e0d4b9c21";
const SAID = "Running the command now.";
const ANSWER = "Done: hi";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

/** A project recording Gemini, its chat file (not written yet) and a clock for the hooks and the chat. */
function setup() {
  const p = tempProject();
  cleanups.push(p.cleanup);
  writeConfig(p.root, {
    schema_version: 1,
    providers: { gemini: { recording: "on", mode: "capture-only" } },
  });
  const env = { GEMINI_PROJECT_DIR: p.root, TAPEDECK_HOME: join(p.root, "home") };
  const chat = join(p.root, `session-2026-12-01T10-00-${SESSION.slice(0, 8)}.jsonl`);
  let clock = Date.parse("2026-12-01T10:00:00.000Z");
  const now = () => {
    clock += 9;
    return new Date(clock).toISOString();
  };
  const hook = (name: string, fields: Loose = {}) => {
    const payload = {
      session_id: SESSION,
      transcript_path: chat,
      cwd: p.root,
      hook_event_name: name,
      timestamp: now(),
      ...fields,
    };
    const out = runHook(geminiAdapter, { data: Buffer.from(JSON.stringify(payload)), overflow: false }, env);
    expect(out.status).toBe("recorded");
  };
  const write = (record: Loose) => appendFileSync(chat, `${JSON.stringify(record)}\n`);
  const said = (id: string, content: string, extra: Loose = {}) =>
    write({
      id,
      timestamp: now(),
      type: "gemini",
      content,
      thoughts: [],
      model: "gemini-3.8-flash",
      ...extra,
    });
  const events = (): Loose[] =>
    readFileSync(join(p.root, ".tapedeck", "gemini-sessions", SESSION, "events.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Loose);
  return { hook, write, said, events, chat };
}

/** One streamed chunk as AfterModel hands it over; `final` gives it the finishReason and the whole usage. */
function chunk(text: string, parts: string[], final = false): Loose {
  return {
    llm_request: {
      model: "gemini-3.8-flash",
      messages: [{ role: "user", content: "SCENARIO_BASH echo hi" }],
    },
    llm_response: {
      text,
      candidates: [
        { content: { role: "model", parts }, index: 0, ...(final ? { finishReason: "STOP" } : {}) },
      ],
      usageMetadata: final
        ? { promptTokenCount: 1200, candidatesTokenCount: 26, totalTokenCount: 1226 }
        : { promptTokenCount: 1200, totalTokenCount: 1200 },
    },
  };
}

const CALL = {
  tool_name: "run_shell_command",
  tool_input: { command: "echo hi", description: "Run a command" },
};
const RESULT = {
  ...CALL,
  tool_response: { llmContent: "Output: hi\nProcess Group PGID: 4242", returnDisplay: "hi" },
};

/**
 * A turn as Gemini runs it: a thought, the text in two chunks, the call (whose chunk has no text), the call,
 * then the answer. `speak` false: the response before the call says nothing but its thought.
 */
function turn(s: ReturnType<typeof setup>, ids: [string, string], speak = true) {
  s.hook("BeforeAgent", { prompt: "SCENARIO_BASH echo hi" });
  s.hook("AfterModel", chunk("", ["I should run echo hi."]));
  if (speak) {
    s.hook("AfterModel", chunk("Running the ", ["Running the "]));
    s.hook("AfterModel", chunk("command now.", ["command now."]));
  }
  s.hook("AfterModel", chunk("", [], true));
  s.said(ids[0], speak ? SAID : "", {
    tokens: { input: 1200, output: 26, cached: 0, thoughts: 5, total: 1231 },
  });
  s.hook("BeforeTool", CALL);
  s.said(ids[0], speak ? SAID : "", {
    toolCalls: [{ id: "call-1", name: "run_shell_command", args: CALL.tool_input }],
  });
  s.hook("AfterTool", RESULT);
  s.write({
    id: `${ids[1]}-u`,
    timestamp: new Date().toISOString(),
    type: "user",
    content: [{ functionResponse: {} }],
  });
  s.hook("AfterModel", chunk(ANSWER, [ANSWER], true));
  s.said(ids[1], ANSWER);
  const reply = speak ? ` Running the  command now. \n${ANSWER}` : ANSWER;
  s.hook("AfterAgent", { prompt: "SCENARIO_BASH echo hi", prompt_response: reply, stop_hook_active: false });
}

const texts = (events: Loose[]) => events.filter((e) => e.kind === "assistant_message");
const calls = (events: Loose[]) => events.filter((e) => e.kind === "tool_call");

describe("gemini: the text said before a tool call", () => {
  it("is an assistant_message before the call, from the chat file; the answer is only what followed", () => {
    const s = setup();
    s.hook("SessionStart", { source: "startup" });
    turn(s, ["m1", "m2"]);
    s.hook("SessionEnd", { reason: "exit" });
    const events = s.events();
    const [said, answer] = texts(events);
    expect(texts(events)).toHaveLength(2);
    // The response's whole text, not the chunk the final AfterModel carried (none) nor one chunk of it.
    expect(said!.payload).toEqual({ text: SAID, message_id: "m1", source: "gemini-chat" });
    expect(said!.sequence).toBe(calls(events)[0]!.sequence - 1);
    expect(said!.turn_id).toBe(calls(events)[0]!.turn_id);
    // The reply Gemini handed AfterAgent repeats the text with the answer: the answer is the chat's own.
    expect(answer!.payload).toEqual({
      hook_event_name: "AfterAgent",
      text: ANSWER,
      text_from: "chat_file",
      stop_hook_active: false,
    });
    expect(events.map((e) => e.kind)).toEqual([
      "session_start",
      "user_prompt",
      "turn_usage",
      "assistant_message",
      "tool_call",
      "tool_result",
      "turn_usage",
      "assistant_message",
      // The chat's counts of the first message (the second has none in this fixture).
      "turn_usage",
      "session_end",
    ]);
  });

  it("is said once per turn of a resumed session, the earlier turn's texts not again", () => {
    const s = setup();
    s.hook("SessionStart", { source: "startup" });
    turn(s, ["m1", "m2"]);
    s.hook("SessionStart", { source: "resume" });
    turn(s, ["m3", "m4"]);
    const said = texts(s.events());
    expect(said.map((e) => [e.payload.message_id, e.payload.text])).toEqual([
      ["m1", SAID],
      [undefined, ANSWER],
      ["m3", SAID],
      [undefined, ANSWER],
    ]);
  });

  it("a session first recorded mid-way: the chat's earlier texts are not said in this turn", () => {
    const s = setup();
    // Before recording: a turn Gemini wrote to its chat file, with a text and an answer.
    s.said("old-1", "An earlier text.");
    s.said("old-2", "An earlier answer.");
    turn(s, ["m1", "m2"]);
    expect(texts(s.events()).map((e) => e.payload.text)).toEqual([SAID, ANSWER]);
  });

  it("a response that said nothing before its call leaves the turn as the hooks have it", () => {
    const s = setup();
    s.hook("SessionStart", { source: "startup" });
    turn(s, ["m1", "m2"], false);
    const said = texts(s.events());
    expect(said.map((e) => e.payload)).toEqual([
      { hook_event_name: "AfterAgent", text: ANSWER, stop_hook_active: false },
    ]);
  });

  it("without a readable chat file at the turn's end, the answer is Gemini's reply: nothing is lost", () => {
    const s = setup();
    s.hook("SessionStart", { source: "startup" });
    s.hook("BeforeAgent", { prompt: "SCENARIO_BASH echo hi" });
    s.hook("AfterModel", chunk(SAID, [SAID]));
    s.hook("AfterModel", chunk("", [], true));
    s.said("m1", SAID);
    s.hook("BeforeTool", CALL);
    s.hook("AfterTool", RESULT);
    rmSync(s.chat);
    const reply = ` ${SAID} \n${ANSWER}`;
    s.hook("AfterAgent", {
      prompt: "SCENARIO_BASH echo hi",
      prompt_response: reply,
      stop_hook_active: false,
    });
    expect(texts(s.events()).map((e) => e.payload.text)).toEqual([SAID, reply]);
  });
});

describe("gemini normalize: an AfterModel chunk that says something", () => {
  const observe = (payload: Loose) =>
    normalizeGeminiHook({ session_id: SESSION, hook_event_name: "AfterModel", ...payload }, {}).observation;

  it("is told by llm_response.text, not by parts, which hold the thoughts too", () => {
    expect(observe(chunk("", ["I should run echo hi."])).spoke).toBeUndefined();
    expect(observe(chunk("  ", ["  "])).spoke).toBeUndefined();
    expect(observe(chunk("Running the ", ["Running the "])).spoke).toBe(true);
    // Nothing of a chunk is recorded as text: the chat file holds the response whole.
    expect(
      normalizeGeminiHook({ session_id: SESSION, hook_event_name: "AfterModel", ...chunk("x", ["x"]) }, {})
        .events,
    ).toEqual([]);
  });
});
