// The Antigravity adapter against HAND-WRITTEN payloads (test/fixtures/antigravity/):
// no agy binary was run for these, they follow the shapes described in
// docs/antigravity.md. agy does not name the event in the payload, so the
// event comes from TAPEDECK_HOOK_EVENT, as the installed hook command sets it;
// a fixture's event is its file name up to the first dot.
import { describe, expect, it } from "vitest";
import type { EventKind } from "../../../src/core/archive/schemas.ts";
import { antigravityAdapter } from "../../../src/providers/antigravity/adapter.ts";
import {
  ANTIGRAVITY_CAPABILITIES,
  ANTIGRAVITY_EVENT_ENV,
  canonicalEventName,
  normalizeAntigravityHook,
} from "../../../src/providers/antigravity/normalize.ts";
import { HookHarness } from "../hook-normalizer.ts";

const NOW = "2026-11-29T19:00:00.000Z";
const CONVERSATION = "5f0c2a9e-7b1d-4c3e-9a60-2d8e4b7c1f35";
// Every file of the folder is a hook payload.
const h = new HookHarness(
  "antigravity",
  normalizeAntigravityHook,
  ANTIGRAVITY_CAPABILITIES,
  () => NOW,
  (f) => f.endsWith(".json"),
);
const { fixture, normalizeOne, hookFixtures: files } = h;

const eventOf = (file: string) => file.split(".")[0]!;

/** As the installed hook command delivers it: the event name in the environment. */
function hook(file: string, env: Record<string, string | undefined> = {}) {
  return normalizeOne(fixture(file), { [ANTIGRAVITY_EVENT_ENV]: eventOf(file), ...env });
}

const EXPECTED_KIND: Record<string, EventKind> = {
  "PostInvocation.json": "provider_event",
  "PostToolUse.failed.json": "tool_error",
  "PostToolUse.json": "tool_result",
  "PostToolUse.null-toolcall.json": "tool_result",
  "PreInvocation.json": "provider_event",
  "PreInvocation.second.json": "provider_event",
  "PreToolUse.json": "tool_call",
  "PreToolUse.snake-case.json": "tool_call",
  "SessionStart.json": "session_start",
  "SessionStart.no-workspace.json": "session_start",
  "Stop.continued.json": "assistant_message",
  "Stop.error.json": "provider_event",
  "Stop.json": "assistant_message",
};

describe("normalizeAntigravityHook: hand-written payloads", () => {
  h.itCoversEveryFixture(EXPECTED_KIND, "fixture");

  it.each(Object.entries(EXPECTED_KIND))("%s maps to %s", (file, kind) => {
    const { context, event } = hook(file);
    h.expectEvent(event, kind, eventOf(file), [
      "conversationId",
      "conversation_id",
      "transcriptPath",
      "transcript_path",
    ]);
    expect(event.timestamp).toBe(NOW);
    expect(event.payload).not.toHaveProperty("event_inferred");
    h.expectContext(context, {
      id: CONVERSATION,
      transcript: `/home/user/.gemini/antigravity-cli/brain/${CONVERSATION}/transcript.jsonl`,
    });
  });

  it("gives every fixture a distinct id, and a repeat the same one", () => {
    const ids = files.map((f) => hook(f).event.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const file of files) expect(hook(file).event.event_id, file).toBe(hook(file).event.event_id);
  });

  it("takes the project from the first workspace path", () => {
    expect(hook("SessionStart.json").context.project_dir).toBe("/home/user/project");
    expect(hook("SessionStart.no-workspace.json").context.project_dir).toBeNull();
    const uri = { ...fixture("Stop.json"), workspacePaths: ["", "file:///home/user/other%20dir"] };
    expect(normalizeOne(uri, { [ANTIGRAVITY_EVENT_ENV]: "Stop" }).context.project_dir).toBe(
      "/home/user/other dir",
    );
    const cwd = { ...fixture("Stop.json"), workspacePaths: [], cwd: "/srv/repo" };
    expect(normalizeOne(cwd, { [ANTIGRAVITY_EVENT_ENV]: "Stop" }).context.project_dir).toBe("/srv/repo");
  });

  it("session_start keeps the model, workspaces and artifact directory", () => {
    expect(hook("SessionStart.json").event.payload).toEqual({
      hook_event_name: "SessionStart",
      model: "gemini-3.8-flash-high",
      workspace_paths: ["/home/user/project"],
      artifact_directory_path: `/home/user/.gemini/antigravity-cli/brain/${CONVERSATION}`,
    });
  });

  it("invocations are provider events with their counters; Pre and Post differ by name only", () => {
    const pre = hook("PreInvocation.json").event;
    const post = hook("PostInvocation.json").event;
    expect(pre.payload).toEqual({
      hook_event_name: "PreInvocation",
      model: "gemini-3.8-flash-high",
      invocation_num: 0,
      initial_num_steps: 1,
    });
    expect(post.payload).toEqual({ ...pre.payload, hook_event_name: "PostInvocation" });
    expect(post.event_id).not.toBe(pre.event_id);
    expect(hook("PreInvocation.second.json").event.event_id).not.toBe(pre.event_id);
  });

  it("an invocation that carries text becomes the user prompt or the assistant message", () => {
    const env = { [ANTIGRAVITY_EVENT_ENV]: "PreInvocation" };
    const first = normalizeOne({ ...fixture("PreInvocation.json"), userPrompt: "run echo hello" }, env).event;
    expect(first.kind).toBe("user_prompt");
    expect(first.payload.prompt).toBe("run echo hello");
    // A later invocation of the same turn does not repeat the prompt.
    const later = normalizeOne(
      { ...fixture("PreInvocation.second.json"), userPrompt: "run echo hello" },
      env,
    ).event;
    expect(later.kind).toBe("provider_event");
    expect(later.payload).not.toHaveProperty("prompt");
    const answer = normalizeOne(
      { ...fixture("PostInvocation.json"), response: "The command printed: hello" },
      { [ANTIGRAVITY_EVENT_ENV]: "PostInvocation" },
    ).event;
    expect(answer.kind).toBe("assistant_message");
    expect(answer.payload.text).toBe("The command printed: hello");
  });

  it("tool call and result share an id from the trajectory step", () => {
    const call = hook("PreToolUse.json").event;
    const result = hook("PostToolUse.json").event;
    expect(call.payload).toEqual({
      hook_event_name: "PreToolUse",
      model: "gemini-3.8-flash-high",
      tool_name: "run_command",
      tool_input: { CommandLine: "echo hello", Cwd: "/home/user/project", WaitMsBeforeAsync: 500 },
      step_idx: 3,
      tool_use_id: "step-3",
    });
    expect(result.payload).toMatchObject({ tool_name: "run_command", step_idx: 3, tool_use_id: "step-3" });
    expect(result.payload).not.toHaveProperty("error");
    expect(result.optional_fields).toEqual(["tool_input"]);
  });

  it("a result without its toolCall still pairs by step", () => {
    const { event } = hook("PostToolUse.null-toolcall.json");
    expect(event.payload).toEqual({
      hook_event_name: "PostToolUse",
      model: "gemini-3.8-flash-high",
      step_idx: 9,
      tool_use_id: "step-9",
    });
  });

  it("a non-empty error makes a tool_error", () => {
    expect(hook("PostToolUse.failed.json").event.payload).toMatchObject({
      tool_name: "run_command",
      tool_use_id: "step-6",
      error: "command failed with exit code 3",
      success: false,
    });
    const env = { [ANTIGRAVITY_EVENT_ENV]: "PostToolUse" };
    const object = normalizeOne({ ...fixture("PostToolUse.json"), error: { message: "denied" } }, env).event;
    expect(object.kind).toBe("tool_error");
    expect(object.payload.error).toBe("denied");
    expect(normalizeOne({ ...fixture("PostToolUse.json"), error: null }, env).event.kind).toBe("tool_result");
    expect(normalizeOne({ ...fixture("PostToolUse.json"), error: "  " }, env).event.kind).toBe("tool_result");
  });

  it("keeps a tool output and a tool call id when the payload has them", () => {
    const env = { [ANTIGRAVITY_EVENT_ENV]: "PostToolUse" };
    const payload = {
      ...fixture("PostToolUse.json"),
      toolCall: { id: "call_7", name: "run_command", args: { CommandLine: "echo hello" } },
      toolResult: { output: "hello\n", exitCode: 0 },
    };
    expect(normalizeOne(payload, env).event.payload).toMatchObject({
      tool_use_id: "call_7",
      tool_response: { output: "hello\n", exitCode: 0 },
    });
  });

  it("reads snake_case payloads and event names in any spelling", () => {
    const { event, context } = normalizeOne(fixture("PreToolUse.snake-case.json"));
    expect(event.kind).toBe("tool_call");
    expect(event.payload).toEqual({
      hook_event_name: "PreToolUse",
      model: "gemini-3.8-flash-high",
      tool_name: "view_file",
      tool_input: { AbsolutePath: "/home/user/project/README.md" },
      step_idx: 12,
      tool_use_id: "step-12",
    });
    expect(context.identity.session_id).toBe(`antigravity:${CONVERSATION}`);
    expect(context.project_dir).toBe("/home/user/project");
    for (const spelling of ["PreToolUse", "pre-tool-use", "pre_tool_use", "PRETOOLUSE", " PreToolUse "]) {
      expect(canonicalEventName(spelling)).toBe("PreToolUse");
    }
    expect(canonicalEventName("SomethingNew")).toBe("SomethingNew");
  });

  it("the environment's event name wins over a payload field", () => {
    const payload = { ...fixture("Stop.json"), hookEventName: "PostInvocation" };
    expect(normalizeOne(payload, { [ANTIGRAVITY_EVENT_ENV]: "Stop" }).event.payload.hook_event_name).toBe(
      "Stop",
    );
    expect(normalizeOne(payload).event.payload.hook_event_name).toBe("PostInvocation");
  });

  it("Stop is the end of a turn; an error or an error reason is a failure", () => {
    expect(hook("Stop.json").event.payload).toEqual({
      hook_event_name: "Stop",
      model: "gemini-3.8-flash-high",
      termination_reason: "NO_TOOL_CALL",
      fully_idle: true,
      execution_num: 0,
    });
    expect(hook("Stop.json").event.terminal).toBeUndefined();
    expect(hook("Stop.error.json").event.payload).toMatchObject({
      failure: true,
      error: "RESOURCE_EXHAUSTED: quota exceeded",
      termination_reason: "ERROR",
    });
    const env = { [ANTIGRAVITY_EVENT_ENV]: "Stop" };
    const maxSteps = { ...fixture("Stop.json"), terminationReason: "MAX_STEPS_EXCEEDED" };
    expect(normalizeOne(maxSteps, env).event.payload.failure).toBe(true);
    const noError = { ...fixture("Stop.json"), terminationReason: "NO_ERROR" };
    expect(normalizeOne(noError, env).event.kind).toBe("assistant_message");
  });
});

describe("normalizeAntigravityHook: without an event name", () => {
  it("infers only shapes that cannot be anything else, and says so", () => {
    const stop = normalizeOne(fixture("Stop.json")).event;
    expect(stop.kind).toBe("assistant_message");
    expect(stop.payload).toMatchObject({ hook_event_name: "Stop", event_inferred: true });
    expect(normalizeOne(fixture("PreToolUse.json")).event).toMatchObject({
      kind: "tool_call",
      payload: { hook_event_name: "PreToolUse", event_inferred: true },
    });
    expect(normalizeOne(fixture("PostToolUse.json")).event).toMatchObject({
      kind: "tool_result",
      payload: { hook_event_name: "PostToolUse", event_inferred: true },
    });
    expect(normalizeOne(fixture("PostToolUse.null-toolcall.json")).event.payload.hook_event_name).toBe(
      "PostToolUse",
    );
  });

  it("leaves SessionStart and the invocations unknown: they cannot be told apart", () => {
    for (const file of ["SessionStart.json", "PreInvocation.json", "PostInvocation.json"]) {
      const { event } = normalizeOne(fixture(file));
      expect(event.kind, file).toBe("provider_event");
      expect(event.payload.hook_event_name, file).toBe("unknown");
      expect(event.payload).not.toHaveProperty("conversationId");
      expect(event.payload).not.toHaveProperty("workspacePaths");
    }
    expect(normalizeOne(fixture("PreInvocation.json")).event.payload).toEqual({
      hook_event_name: "unknown",
      modelName: "gemini-3.8-flash-high",
      initialNumSteps: 1,
      invocationNum: 0,
    });
  });

  it("keeps an unknown named event's own fields", () => {
    const { event } = normalizeOne(
      { ...fixture("SessionStart.json"), planId: "p-1", details: { a: 1 } },
      { [ANTIGRAVITY_EVENT_ENV]: "PlanApproved" },
    );
    expect(event.kind).toBe("provider_event");
    expect(event.payload).toEqual({
      hook_event_name: "PlanApproved",
      modelName: "gemini-3.8-flash-high",
      planId: "p-1",
      details: { a: 1 },
    });
  });
});

describe("normalizeAntigravityHook: identity", () => {
  it("falls back to ANTIGRAVITY_CONVERSATION_ID from the hook environment", () => {
    const payload = fixture("Stop.json");
    delete payload.conversationId;
    const { context } = normalizeOne(payload, {
      ANTIGRAVITY_CONVERSATION_ID: "env-conv",
      [ANTIGRAVITY_EVENT_ENV]: "Stop",
    });
    expect(context.identity).toEqual({
      provider: "antigravity",
      provider_session_id: "env-conv",
      session_id: "antigravity:env-conv",
      identity_source: "provider",
    });
  });

  it("without any id, uses a local id that is stable within this process", () => {
    const payload = fixture("Stop.json");
    delete payload.conversationId;
    const a = normalizeOne(payload).context.identity;
    const b = normalizeOne(fixture("PreInvocation.json")).context.identity;
    const c = normalizeOne({ ...payload, conversationId: "" }).context.identity;
    expect(a.identity_source).toBe("local");
    expect(a.provider_session_id).toBeNull();
    expect(a.session_id).toMatch(/^antigravity:local-[0-9a-f-]{36}$/);
    expect(c.session_id).toBe(a.session_id);
    expect(b.identity_source).toBe("provider");
  });
});

describe("normalizeAntigravityHook: odd input", () => {
  it.each([
    [null, "null"],
    [[1, 2], "array"],
    ["Stop", "string"],
    [42, "number"],
    [undefined, "undefined"],
  ])("does not throw on a non-object payload (%j)", (payload, type) => {
    const { event, context } = normalizeOne(payload, { [ANTIGRAVITY_EVENT_ENV]: "Stop" });
    expect(event.kind).toBe("provider_event");
    expect(event.payload).toEqual({ hook_event_name: "Stop", error: "payload is not a JSON object", type });
    expect(context.identity.identity_source).toBe("local");
  });

  it("survives odd field types", () => {
    const env = { [ANTIGRAVITY_EVENT_ENV]: "PostToolUse" };
    const odd = {
      conversationId: 7,
      workspacePaths: "not-a-list",
      toolCall: "run_command",
      stepIdx: -1,
      error: 12,
      transcriptPath: ["x"],
    };
    const { event, context } = normalizeOne(odd, env);
    expect(event.kind).toBe("tool_result");
    expect(event.payload).toEqual({ hook_event_name: "PostToolUse" });
    expect(context.identity.identity_source).toBe("local");
    expect(context.project_dir).toBe("not-a-list");
    expect(context.transcript_path).toBeNull();
    for (const name of ["__proto__", "constructor", "toString"]) {
      expect(normalizeOne({ conversationId: "c" }, { [ANTIGRAVITY_EVENT_ENV]: name }).event.kind).toBe(
        "provider_event",
      );
    }
  });

  it("uses a payload timestamp if one ever appears", () => {
    const payload = { ...fixture("Stop.json"), timestamp: "2026-11-29T18:49:23.854Z" };
    expect(normalizeOne(payload, { [ANTIGRAVITY_EVENT_ENV]: "Stop" }).event.timestamp).toBe(
      "2026-11-29T18:49:23.854Z",
    );
  });
});

describe("antigravityAdapter", () => {
  it("normalizes with the hook's environment and recognizes a named session start", () => {
    const result = antigravityAdapter.normalize(fixture("PreToolUse.json"), {
      [ANTIGRAVITY_EVENT_ENV]: "PreToolUse",
    });
    expect(result.events[0]!.kind).toBe("tool_call");
    expect(antigravityAdapter.name).toBe("antigravity");
    expect(antigravityAdapter.enrich).toBeUndefined();
  });

  it("lists what it emits and says it is unverified", () => {
    for (const kind of new Set(Object.values(EXPECTED_KIND)))
      expect(ANTIGRAVITY_CAPABILITIES).toContain(kind);
    expect(ANTIGRAVITY_CAPABILITIES).toContain("adapter:unverified");
    expect(ANTIGRAVITY_CAPABILITIES).not.toContain("session_end");
    expect(ANTIGRAVITY_CAPABILITIES).not.toContain("turn_usage");
  });

  it("imports nothing but types from the core", () => {
    h.expectLeanImports(["normalize.ts", "adapter.ts"]);
  });
});
