import { describe, expect, it } from "vitest";
import type { EventKind } from "../../../src/core/archive/schemas.ts";
import {
  GEMINI_CAPABILITIES,
  normalizeGeminiHook,
  toolFailure,
} from "../../../src/providers/gemini/normalize.ts";
import { HookHarness, type Json } from "../hook-normalizer.ts";

// Captured Gemini CLI 0.61.0 hook payloads (the project's reference notes on the real clients, section 3).
const NOW = "2026-11-29T19:00:00.000Z";
const now = () => NOW;
const h = new HookHarness("gemini", normalizeGeminiHook, GEMINI_CAPABILITIES, now);
const { fixture, normalizeOne } = h;

function normalize(payload: unknown, env: Record<string, string | undefined> = {}) {
  return normalizeGeminiHook(payload, env, now);
}

/** null: observed for the adapter's state, not recorded by itself. */
const EXPECTED_KIND: Record<string, EventKind | null> = {
  "AfterAgent.json": "assistant_message",
  "AfterModel.final-chunk-with-functionCall.json": "turn_usage",
  "AfterModel.json": null,
  "AfterModel.thought-chunk.json": null,
  "AfterTool.failed-command.json": "tool_error",
  "AfterTool.json": "tool_result",
  "BeforeAgent.json": "user_prompt",
  "BeforeModel.json": null,
  "BeforeTool.json": "tool_call",
  "BeforeToolSelection.json": null,
  "Notification.json": "provider_event",
  "PreCompress.json": null,
  "PreCompress.manual.json": "compaction",
  "SessionEnd.json": "session_end",
  "SessionStart.json": "session_start",
  "SessionStart.resume.json": "session_start",
};

const recorded = Object.entries(EXPECTED_KIND).filter((e): e is [string, EventKind] => e[1] !== null);

describe("normalizeGeminiHook: captured payloads", () => {
  h.itCoversEveryFixture(EXPECTED_KIND, "captured hook payload");

  it.each(recorded)("%s maps to %s", (file, kind) => {
    const sessionFields = ["session_id", "transcript_path", "timestamp"];
    const { payload, event } = h.expectCaptured(
      file,
      kind,
      kind === "session_start" ? sessionFields : [...sessionFields, "cwd"],
    );
    // The hook's own time, not the recorder's clock.
    expect(event.timestamp).toBe(payload.timestamp);
    expect(event.turn_id).toBeUndefined();
    expect(JSON.stringify(event.payload)).not.toContain("llm_request");
  });

  it.each(Object.entries(EXPECTED_KIND).filter(([, kind]) => kind === null))(
    "%s is not recorded by itself",
    (file) => {
      const result = normalizeGeminiHook(fixture(file), {}, now);
      const { observation } = result;
      expect(result.events).toEqual([]);
      expect(result.context.identity.session_id).toMatch(/^gemini:[0-9a-f-]{36}$/);
      expect(observation.hook).toBe(fixture(file).hook_event_name);
    },
  );

  h.itGivesDistinctIds(
    recorded.map(([file]) => file),
    "gives every recorded event a distinct id",
  );

  it("session_start keeps source and cwd", () => {
    expect(normalizeOne(fixture("SessionStart.json")).event.payload).toEqual({
      hook_event_name: "SessionStart",
      source: "startup",
      cwd: "/home/user/project",
    });
    expect(normalizeOne(fixture("SessionStart.resume.json")).event.payload.source).toBe("resume");
  });

  it("BeforeAgent is the user prompt", () => {
    const { event } = normalizeOne(fixture("BeforeAgent.json"));
    expect(event.payload).toEqual({ hook_event_name: "BeforeAgent", prompt: "SCENARIO_BASH run echo hello" });
    expect(event.optional_fields).toEqual(["prompt"]);
  });

  it("AfterAgent is the assistant message, without repeating the prompt", () => {
    const { event } = normalizeOne(fixture("AfterAgent.json"));
    expect(event.payload).toEqual({
      hook_event_name: "AfterAgent",
      text: " Running the command now. \nThe command printed: hello",
      stop_hook_active: false,
    });
    expect(event.usage).toBeUndefined();
  });

  it("BeforeTool and AfterTool keep tool name, input and response; the adapter adds the pairing", () => {
    const call = normalizeOne(fixture("BeforeTool.json")).event;
    const result = normalizeOne(fixture("AfterTool.json")).event;
    expect(call.payload).toEqual({
      hook_event_name: "BeforeTool",
      tool_name: "run_shell_command",
      tool_input: { command: "echo hello", description: "Print hello" },
    });
    expect(call.optional_fields).toEqual(["tool_input"]);
    expect(result.kind).toBe("tool_result");
    expect(result.payload).toEqual({
      hook_event_name: "AfterTool",
      tool_name: "run_shell_command",
      tool_input: { command: "echo hello", description: "Print hello" },
      tool_response: {
        llmContent: "<untrusted_context>\nOutput: hello\nProcess Group PGID: 21824\n</untrusted_context>",
        returnDisplay: "hello",
      },
    });
    expect(result.optional_fields).toEqual(["tool_input", "tool_response"]);
    expect(call.payload).not.toHaveProperty("tool_use_id");
  });

  it("a failed shell command is a tool_error with its exit code", () => {
    const { event } = normalizeOne(fixture("AfterTool.failed-command.json"));
    expect(event.kind).toBe("tool_error");
    expect(event.payload).toMatchObject({
      tool_name: "run_shell_command",
      tool_input: { command: "echo oops >&2; exit 3", description: "Fail on purpose" },
      tool_response: { returnDisplay: "oops" },
      success: false,
      error: "Exit Code: 3",
      exit_code: 3,
    });
  });

  it("Notification is a provider_event with its type, message and details", () => {
    const { event } = normalizeOne(fixture("Notification.json"));
    expect(event.payload).toEqual({
      hook_event_name: "Notification",
      notification_type: "ToolPermission",
      message: "Tool Confirm Shell Command requires execution",
      details: {
        type: "exec",
        title: "Confirm Shell Command",
        command: "touch stamp.txt && ls",
        rootCommand: "touch, ls",
      },
    });
  });

  it("PreCompress: manual is a compaction, auto is not recorded by itself", () => {
    const { event } = normalizeOne(fixture("PreCompress.manual.json"));
    expect(event.payload).toEqual({ hook_event_name: "PreCompress", trigger: "manual", phase: "pre" });
    expect(normalize(fixture("PreCompress.json")).events).toEqual([]);
    const odd = { ...fixture("PreCompress.json"), trigger: "overflow" };
    expect(normalizeOne(odd).event).toMatchObject({
      kind: "provider_event",
      payload: { hook_event_name: "PreCompress", trigger: "overflow" },
    });
  });

  it("SessionEnd is terminal, keeps the reason, and repeats with the same id", () => {
    const first = fixture("SessionEnd.json");
    const { event } = normalizeOne(first);
    expect(event.terminal).toBe(true);
    expect(event.payload).toEqual({ hook_event_name: "SessionEnd", reason: "exit" });
    // /quit fires it three times, moments apart.
    const again = { ...first, timestamp: "2026-11-29T18:49:23.901Z" };
    expect(normalizeOne(again).event.event_id).toBe(event.event_id);
    const other = { ...first, session_id: "another-session" };
    expect(normalizeOne(other).event.event_id).not.toBe(event.event_id);
    expect(normalizeOne(fixture("AfterAgent.json")).event.terminal).toBeUndefined();
  });
});

describe("normalizeGeminiHook: model responses and usage", () => {
  it("only the chunk with a finishReason becomes one turn_usage, with that chunk's usage", () => {
    expect(normalize(fixture("AfterModel.thought-chunk.json")).events).toEqual([]);
    expect(normalize(fixture("AfterModel.json")).events).toEqual([]);
    const { event } = normalizeOne(fixture("AfterModel.final-chunk-with-functionCall.json"));
    expect(event.kind).toBe("turn_usage");
    expect(event.usage).toEqual({
      source: "gemini-hook",
      model: "gemini-3.8-flash",
      input_tokens: 171,
      output_tokens: 26,
      total_tokens: 206,
    });
    expect(event.payload).toEqual({
      hook_event_name: "AfterModel",
      finish_reason: "STOP",
      model: "gemini-3.8-flash",
      message_count: 1,
      usage_metadata: { promptTokenCount: 171, candidatesTokenCount: 26, totalTokenCount: 206 },
    });
  });

  it("maps cached and thought token counts when Gemini sends them", () => {
    const payload = fixture("AfterModel.final-chunk-with-functionCall.json");
    const response = payload.llm_response as Json;
    response.usageMetadata = {
      promptTokenCount: 1200,
      candidatesTokenCount: 40,
      cachedContentTokenCount: 1000,
      thoughtsTokenCount: 12,
      totalTokenCount: 1252,
    };
    expect(normalizeOne(payload).event.usage).toEqual({
      source: "gemini-hook",
      model: "gemini-3.8-flash",
      input_tokens: 1200,
      output_tokens: 40,
      cache_read_input_tokens: 1000,
      reasoning_output_tokens: 12,
      total_tokens: 1252,
    });
  });

  it("ignores counts that are not non-negative integers, and a response without usage has none", () => {
    const payload = fixture("AfterModel.final-chunk-with-functionCall.json");
    const response = payload.llm_response as Json;
    response.usageMetadata = { promptTokenCount: -1, candidatesTokenCount: "26", totalTokenCount: 1.5 };
    expect(normalizeOne(payload).event.usage).toBeUndefined();
    delete response.usageMetadata;
    const { event } = normalizeOne(payload);
    expect(event.kind).toBe("turn_usage");
    expect(event.usage).toBeUndefined();
  });

  it("observes the usage, message count and text of a chunk that is not final", () => {
    const { observation } = normalizeGeminiHook(fixture("AfterModel.json"), {}, now);
    expect(observation).toEqual({
      hook: "AfterModel",
      timestamp: "2026-11-29T18:49:23.062Z",
      final: false,
      // Its llm_response.text: the chat file will hold what the response said (chat-text.ts).
      spoke: true,
      model: "gemini-3.8-flash",
      message_count: 1,
      usage: { source: "gemini-hook", model: "gemini-3.8-flash", input_tokens: 171, total_tokens: 171 },
      usage_metadata: { promptTokenCount: 171, totalTokenCount: 171 },
    });
  });

  it("observes a BeforeModel's message count and compression snapshot, never its text", () => {
    const plain = normalizeGeminiHook(fixture("BeforeModel.json"), {}, now).observation;
    expect(plain).toEqual({
      hook: "BeforeModel",
      timestamp: "2026-11-29T18:49:22.825Z",
      message_count: 1,
      model: "gemini-3.8-flash",
    });
    const compressed = fixture("BeforeModel.json");
    (compressed.llm_request as Json).messages = [
      { role: "user", content: "<session_context>...</session_context>" },
      {
        role: "user",
        content: "<state_snapshot>\n<overall_goal>run echo hello</overall_goal>\n</state_snapshot>",
      },
      { role: "model", content: "Got it. Thanks for the additional context!" },
      { role: "user", content: "SCENARIO_TEXT again" },
    ];
    const observed = normalizeGeminiHook(compressed, {}, now).observation;
    expect(observed.message_count).toBe(4);
    expect(observed.snapshot).toMatch(/^[0-9a-f]{32}$/);
    expect(JSON.stringify(observed)).not.toContain("overall_goal");
  });
});

describe("toolFailure: the shell tool's trailer", () => {
  const text = (llmContent: unknown) => toolFailure({ llmContent, returnDisplay: "" });

  it("reads a non-zero Exit Code and a Signal from the trailer only", () => {
    expect(text("Output: hello\nProcess Group PGID: 1")).toBeUndefined();
    expect(text("Output: x\nExit Code: 0\nProcess Group PGID: 1")).toBeUndefined();
    expect(text("Output: x\nExit Code: 127\nProcess Group PGID: 1")).toEqual({
      error: "Exit Code: 127",
      exit_code: 127,
    });
    expect(text("Output: x\nError: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)")).toEqual({
      error: "Exit Code: 2",
      exit_code: 2,
    });
    expect(text("Output: (empty)\nSignal: 15\nProcess Group PGID: 1")).toEqual({
      error: "Signal: 15",
      signal: "15",
    });
  });

  it("does not mistake command output for the trailer", () => {
    expect(text("Output: build log\nExit Code: 3\nall good\nProcess Group PGID: 7")).toBeUndefined();
    expect(text("Exit Code: 3 (from the log)\nProcess Group PGID: 7")).toBeUndefined();
    expect(text("")).toBeUndefined();
  });

  it("reads llmContent given as parts, and a tool_response.error", () => {
    expect(text([{ text: "Output: x" }, { text: "Exit Code: 1" }])).toMatchObject({ exit_code: 1 });
    expect(
      toolFailure({
        llmContent: "File not found",
        error: { message: "no such file", type: "FILE_NOT_FOUND" },
      }),
    ).toEqual({ error: "no such file", error_type: "FILE_NOT_FOUND" });
    expect(toolFailure({ llmContent: "x", error: "denied" })).toEqual({ error: "denied" });
    expect(toolFailure({ llmContent: "x", error: null })).toBeUndefined();
    expect(toolFailure("not an object")).toBeUndefined();
  });
});

describe("normalizeGeminiHook: event ids", () => {
  h.itGivesARetryTheSameId(recorded.map(([file]) => file));

  it("the same prompt at another time, or in another session, gets another id", () => {
    const first = fixture("BeforeAgent.json");
    const id = normalizeOne(first).event.event_id;
    expect(normalizeOne({ ...first, timestamp: "2026-11-29T18:59:00.000Z" }).event.event_id).not.toBe(id);
    expect(normalizeOne({ ...first, session_id: "another" }).event.event_id).not.toBe(id);
  });

  it("two different tool calls in the same millisecond get different ids", () => {
    const first = fixture("BeforeTool.json");
    const second = { ...first, tool_input: { command: "echo other" } };
    expect(normalizeOne(second).event.event_id).not.toBe(normalizeOne(first).event.event_id);
  });

  it("without a timestamp the whole payload is hashed, and the recorder's clock is used", () => {
    const payload = fixture("BeforeAgent.json");
    delete payload.timestamp;
    const a = normalizeOne(payload).event;
    expect(a.timestamp).toBe(NOW);
    expect(normalizeOne({ ...payload, prompt: "other" }).event.event_id).not.toBe(a.event_id);
    const reordered = Object.fromEntries(Object.entries(payload).reverse());
    expect(normalizeOne(reordered).event.event_id).toBe(a.event_id);
  });

  h.itIgnoresTheClock("BeforeTool.json", "does not depend on the recorder's clock", false);

  it("canonicalizes a payload timestamp and ignores one that is not ISO", () => {
    const payload = fixture("BeforeAgent.json");
    expect(normalizeOne({ ...payload, timestamp: "2026-11-29T19:49:22.6+01:00" }).event.timestamp).toBe(
      "2026-11-29T18:49:22.600Z",
    );
    for (const bad of ["yesterday", "2026-13-45T99:00:00Z", 1764442162646, "Sun Nov 29 2026"]) {
      expect(normalizeOne({ ...payload, timestamp: bad }).event.timestamp, String(bad)).toBe(NOW);
    }
  });
});

describe("normalizeGeminiHook: odd input", () => {
  it("records an unknown future event as a provider_event with its own fields", () => {
    const event = h.expectFutureEvent(
      {
        transcript_path: "/tmp/chat.jsonl",
        cwd: "/home/user/project",
        timestamp: "2026-11-29T18:49:22.646Z",
      },
      { hook_event_name: "AfterSubagent", agent: "codebase_investigator", details: { steps: 3 } },
    );
    expect(event.optional_fields).toEqual(["agent", "details"]);
  });

  h.itAddsToTheNonObjectRecord("BeforeTool", (payload) => {
    const { event, context } = normalizeOne(payload);
    expect(event.timestamp).toBe(NOW);
    expect(context.transcript_path).toBeNull();
  });

  it("files a payload without session_id under GEMINI_SESSION_ID", () => {
    const env = (fixture("hook-env.json") as { env: Record<string, string> }).env;
    expect(normalizeOne("garbage", env).context.identity.session_id).toBe(
      "gemini:3710525e-c397-40d5-bfa5-db17c6fd2361",
    );
    const payload = fixture("Notification.json");
    delete payload.session_id;
    expect(normalizeOne(payload, env).context.identity).toEqual({
      provider: "gemini",
      provider_session_id: "3710525e-c397-40d5-bfa5-db17c6fd2361",
      session_id: "gemini:3710525e-c397-40d5-bfa5-db17c6fd2361",
      identity_source: "provider",
    });
    expect(normalizeOne(payload, {}).context.identity.identity_source).toBe("local");
  });

  it("takes the project from GEMINI_PROJECT_DIR before the payload's cwd", () => {
    const payload = fixture("BeforeTool.json");
    expect(normalizeOne(payload, { GEMINI_PROJECT_DIR: "/srv/repo" }).context.project_dir).toBe("/srv/repo");
    delete payload.cwd;
    expect(normalizeOne(payload, {}).context.project_dir).toBeNull();
  });

  h.itIgnoresPrototypeNames();

  it("survives malformed fields of known events", () => {
    const base = { session_id: "s", timestamp: "2026-11-29T18:49:22.646Z" };
    expect(normalizeOne({ ...base, hook_event_name: "AfterTool", tool_response: "text" }).event.kind).toBe(
      "tool_result",
    );
    expect(
      normalizeOne({ ...base, hook_event_name: "AfterTool", tool_response: { llmContent: 5 } }).event.kind,
    ).toBe("tool_result");
    for (const llm_response of [null, "x", { candidates: "x" }, { candidates: [null, 3] }]) {
      expect(normalize({ ...base, hook_event_name: "AfterModel", llm_response }).events).toEqual([]);
    }
    const { observation } = normalizeGeminiHook(
      {
        ...base,
        hook_event_name: "BeforeModel",
        llm_request: { messages: [null, 1, { content: [{ text: 2 }] }] },
      },
      {},
      now,
    );
    expect(observation.message_count).toBe(3);
  });
});

describe("capabilities and hot path", () => {
  it("lists every kind it emits and the usage source", () => {
    for (const kind of new Set(recorded.map(([, kind]) => kind))) expect(GEMINI_CAPABILITIES).toContain(kind);
    expect(GEMINI_CAPABILITIES).toContain("turn_usage:gemini-hook");
    expect(GEMINI_CAPABILITIES).toContain("tool_use_id:synthetic");
  });

  it("imports nothing but types from the core, so zod never loads in a hook", () => {
    h.expectLeanImports(["normalize.ts", "adapter.ts"]);
  });
});
