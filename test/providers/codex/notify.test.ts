import { describe, expect, it } from "vitest";
import { normalizeCodexHook } from "../../../src/providers/codex/normalize.ts";
import {
  CODEX_NOTIFY_CAPABILITIES,
  isTuiTitleThread,
  normalizeCodexNotify,
} from "../../../src/providers/codex/notify.ts";
import { type Json, providerFixtures } from "../../helpers/fixtures.ts";

// Captured Codex CLI 0.171.0 `notify` calls (the project's reference notes on the real clients, section 2).
// notify.agent-turn-complete.json wraps the argument as the capture script saw it
// ({argv_last_element, stdin}); the other two files are the argument itself.
const fixture = providerFixtures("codex").json;
const NOW = "2026-11-29T18:47:22.865Z";
const now = () => NOW;

const TURN = fixture("notify.agent-turn-complete.json").argv_last_element as Json;
const SUBAGENT = fixture("notify.agent-turn-complete.subagent.json");
const TITLE = fixture("notify.agent-turn-complete.tui-title-thread.json");

function notify(value: unknown, env: Record<string, string | undefined> = {}) {
  return normalizeCodexNotify(typeof value === "string" ? value : JSON.stringify(value), env, now);
}

describe("normalizeCodexNotify: agent-turn-complete", () => {
  it("records the input messages as user prompts and the reply as the assistant message", () => {
    const { context, events } = notify(TURN);
    expect(context).toEqual({
      identity: {
        provider: "codex",
        provider_session_id: "01a228a1-6c99-7571-8a54-9987d351bd37",
        session_id: "codex:01a228a1-6c99-7571-8a54-9987d351bd37",
        identity_source: "provider",
      },
      project_dir: "/home/user/project",
      agent_pid: null,
      transcript_path: null,
      capabilities: CODEX_NOTIFY_CAPABILITIES,
    });
    expect(events).toEqual([
      {
        kind: "user_prompt",
        event_id: expect.stringMatching(/^user_prompt-[0-9a-f]{32}$/),
        timestamp: NOW,
        turn_id: "01a228a1-6cb3-7542-97f2-313b7fba6131",
        payload: {
          hook_event_name: "notify",
          notify_type: "agent-turn-complete",
          prompt: "SCENARIO_BASH run echo hello",
          input_index: 0,
        },
        optional_fields: ["prompt"],
      },
      {
        kind: "assistant_message",
        event_id: expect.stringMatching(/^assistant_message-[0-9a-f]{32}$/),
        timestamp: NOW,
        turn_id: "01a228a1-6cb3-7542-97f2-313b7fba6131",
        payload: {
          hook_event_name: "notify",
          notify_type: "agent-turn-complete",
          text: "The command printed: hello",
          client: "codex_exec",
          input_message_count: 1,
        },
        optional_fields: ["text"],
      },
    ]);
  });

  it("lands in the same archive session as the hooks of that thread", () => {
    const hook = normalizeCodexHook(fixture("Stop.json"), {});
    expect(notify(TURN).context.identity.session_id).toBe(hook.context.identity.session_id);
  });

  it("files a subagent's turn under the child thread: notify names no parent", () => {
    const { context, events } = notify(SUBAGENT);
    expect(context.identity.session_id).toBe("codex:01a228a2-0b5c-7b01-81dd-afb8f8b3c75e");
    expect(events.map((e) => e.kind)).toEqual(["user_prompt", "assistant_message"]);
    expect(events[1]!.payload).not.toHaveProperty("client");
    for (const e of events) expect(e.agent_id).toBeUndefined();
  });

  it("gives each input message its own id, stable across retries", () => {
    const many = { ...TURN, "input-messages": ["same text", "same text", "other"] };
    const first = notify(many).events;
    const retry = notify(many).events;
    expect(first.map((e) => e.event_id)).toEqual(retry.map((e) => e.event_id));
    expect(new Set(first.map((e) => e.event_id)).size).toBe(4);
    expect(first.slice(0, 3).map((e) => e.payload.input_index)).toEqual([0, 1, 2]);
  });

  it("the same text in another turn or thread gets different ids", () => {
    const ids = (value: Json) => notify(value).events.map((e) => e.event_id);
    const base = ids(TURN);
    const otherTurn = ids({ ...TURN, "turn-id": "01a228a1-a58d-7980-85e8-61eadc2c2ab1" });
    const otherThread = ids({ ...TURN, "thread-id": "another-thread" });
    for (const other of [otherTurn, otherThread]) {
      for (const id of other) expect(base).not.toContain(id);
    }
  });

  it("does not collide with the hook events of the same turn", () => {
    const hookIds = [
      normalizeCodexHook(fixture("UserPromptSubmit.json"), {}).events[0]!.event_id,
      normalizeCodexHook(fixture("Stop.json"), {}).events[0]!.event_id,
    ];
    for (const e of notify(TURN).events) expect(hookIds).not.toContain(e.event_id);
  });

  it("does not depend on the clock or key order", () => {
    const reordered = Object.fromEntries(Object.entries(TURN).reverse());
    const a = normalizeCodexNotify(JSON.stringify(TURN), {}, () => "2026-01-01T00:00:00.000Z").events;
    const b = normalizeCodexNotify(JSON.stringify(reordered), {}, () => "2026-06-01T00:00:00.000Z").events;
    expect(a.map((e) => e.event_id)).toEqual(b.map((e) => e.event_id));
  });

  it("keeps a null reply, and handles missing or odd input messages", () => {
    const noReply = notify({ ...TURN, "last-assistant-message": null, "input-messages": [] }).events;
    expect(noReply).toHaveLength(1);
    expect(noReply[0]!.payload).toMatchObject({ text: null, input_message_count: 0 });
    const odd = notify({ ...TURN, "input-messages": [42, "kept", { x: 1 }] }).events;
    expect(
      odd.filter((e) => e.kind === "user_prompt").map((e) => [e.payload.prompt, e.payload.input_index]),
    ).toEqual([["kept", 1]]);
    const none = { ...TURN };
    delete none["input-messages"];
    expect(notify(none).events.map((e) => e.kind)).toEqual(["assistant_message"]);
  });

  it("without a turn-id, ids hash the whole notification", () => {
    const noTurn = { ...TURN };
    delete noTurn["turn-id"];
    const first = notify(noTurn).events;
    expect(first.every((e) => e.turn_id === undefined)).toBe(true);
    expect(notify(noTurn).events.map((e) => e.event_id)).toEqual(first.map((e) => e.event_id));
    const changed = notify({ ...noTurn, "last-assistant-message": "different" }).events;
    expect(changed[1]!.event_id).not.toBe(first[1]!.event_id);
  });
});

describe("normalizeCodexNotify: the TUI's title-generation thread", () => {
  it("is recognised and yields no events", () => {
    expect(isTuiTitleThread(TITLE)).toBe(true);
    const { events, context } = notify(TITLE);
    expect(events).toEqual([]);
    expect(context.identity.session_id).toBe("codex:01a228a2-695d-7cd3-9565-5cb2943c44ee");
  });

  it("is not confused with real turns", () => {
    expect(isTuiTitleThread(TURN)).toBe(false);
    expect(isTuiTitleThread(SUBAGENT)).toBe(false);
    // Only the TUI makes that call; the same text from codex exec is a user's prompt.
    expect(isTuiTitleThread({ ...TITLE, client: "codex_exec" })).toBe(false);
    expect(
      isTuiTitleThread({ ...TITLE, "input-messages": [...(TITLE["input-messages"] as string[]), "more"] }),
    ).toBe(false);
    expect(
      isTuiTitleThread({ ...TITLE, "input-messages": ["Generate a concise, single-line task title"] }),
    ).toBe(false);
    expect(isTuiTitleThread({ ...TITLE, type: "something-else" })).toBe(false);
    expect(isTuiTitleThread(null)).toBe(false);
    // A TUI turn with an ordinary prompt is recorded.
    expect(notify({ ...TITLE, "input-messages": ["fix the build"] }).events).toHaveLength(2);
  });
});

describe("normalizeCodexNotify: odd input", () => {
  it.each([
    ["not json", "notify argument is not JSON", "text"],
    ["", "notify argument is not JSON", "text"],
    ["null", "notify argument is not a JSON object", "null"],
    ["[1,2]", "notify argument is not a JSON object", "array"],
    ['"agent-turn-complete"', "notify argument is not a JSON object", "string"],
    ["42", "notify argument is not a JSON object", "number"],
  ])("does not throw on %j", (argv, error, type) => {
    const { events, context } = normalizeCodexNotify(argv, {}, now);
    expect(events).toHaveLength(1);
    expect(events[0]!.kind).toBe("provider_event");
    expect(events[0]!.payload).toEqual({ hook_event_name: "notify", error, type });
    expect(events[0]!.event_id).toMatch(/^provider_event-[0-9a-f]{32}$/);
    expect(context.identity.identity_source).toBe("local");
    expect(context.identity.session_id).toMatch(/^codex:local-[0-9a-f-]{36}$/);
  });

  it("does not throw when handed something other than a string", () => {
    const { events } = normalizeCodexNotify(undefined as unknown as string, {}, now);
    expect(events[0]!.kind).toBe("provider_event");
  });

  it("records an unknown notification type as a provider_event with its own fields", () => {
    const { events, context } = notify({
      type: "approval-requested",
      "thread-id": "t-1",
      "turn-id": "turn-1",
      cwd: "/home/user/project",
      command: ["rm", "-rf", "build"],
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      kind: "provider_event",
      turn_id: "turn-1",
      payload: {
        hook_event_name: "notify",
        notify_type: "approval-requested",
        command: ["rm", "-rf", "build"],
      },
      optional_fields: ["command"],
    });
    expect(context.identity.session_id).toBe("codex:t-1");
    expect(notify({ "thread-id": "t-1" }).events[0]!.payload).toEqual({
      hook_event_name: "notify",
      notify_type: "unknown",
    });
  });

  it("uses a local session without a thread-id", () => {
    const noThread = { ...TURN };
    delete noThread["thread-id"];
    const { context, events } = notify(noThread);
    expect(context.identity.identity_source).toBe("local");
    expect(events.map((e) => e.kind)).toEqual(["user_prompt", "assistant_message"]);
  });

  it("survives a clock that throws", () => {
    const result = normalizeCodexNotify(JSON.stringify(TURN), {}, () => {
      throw new Error("no clock");
    });
    expect(result.events).toHaveLength(1);
    expect(result.events[0]!.payload).toMatchObject({
      hook_event_name: "notify",
      error: "normalization failed",
    });
    expect(result.context.identity.session_id).toBe("codex:01a228a1-6c99-7571-8a54-9987d351bd37");
  });
});
