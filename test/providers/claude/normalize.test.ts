import { describe, expect, it } from "vitest";
import type { EventKind } from "../../../src/core/archive/schemas.ts";
import { CLAUDE_CAPABILITIES, normalizeClaudeHook } from "../../../src/providers/claude/normalize.ts";
import { HookHarness } from "../hook-normalizer.ts";

// Captured Claude Code 2.1.332 hook payloads (the project's reference notes on the real clients, section 1).
const NOW = "2026-11-29T18:40:22.865Z";
const h = new HookHarness("claude", normalizeClaudeHook, CLAUDE_CAPABILITIES, () => NOW);
const { fixture, hookFixtures, normalizeOne } = h;

const EXPECTED_KIND: Record<string, EventKind> = {
  "CwdChanged.json": "provider_event",
  "InstructionsLoaded.json": "provider_event",
  "MessageDisplay.json": "provider_event",
  "Notification.json": "provider_event",
  "PermissionRequest.json": "provider_event",
  "PostCompact.json": "compaction",
  "PostToolBatch.json": "provider_event",
  "PostToolUse.Agent.json": "tool_result",
  "PostToolUse.Write.json": "tool_result",
  "PostToolUse.json": "tool_result",
  "PostToolUseFailure.json": "tool_error",
  "PreCompact.json": "compaction",
  "PreModelSwitch.json": "provider_event",
  "PreToolUse.in-subagent.json": "tool_call",
  "PreToolUse.json": "tool_call",
  "SessionEnd.json": "session_end",
  "SessionEnd.prompt_input_exit.json": "session_end",
  "SessionStart.compact.json": "session_start",
  "SessionStart.json": "session_start",
  "SessionStart.resume.json": "session_start",
  "Setup.json": "provider_event",
  "Stop.background-task-running.json": "assistant_message",
  "Stop.json": "assistant_message",
  "StopFailure.json": "provider_event",
  "SubagentStart.json": "subagent_start",
  "SubagentStop.compact-agent.json": "subagent_stop",
  "SubagentStop.json": "subagent_stop",
  "UserPromptExpansion.json": "provider_event",
  "UserPromptSubmit.json": "user_prompt",
  // A background task's report, delivered as a prompt: the agent's own event (issue 41, item 7).
  "UserPromptSubmit.task-notification.json": "provider_event",
};

describe("normalizeClaudeHook: captured payloads", () => {
  h.itCoversEveryFixture(EXPECTED_KIND, "captured hook payload");

  it.each(Object.entries(EXPECTED_KIND))("%s maps to %s with provider ids", (file, kind) => {
    const sessionFields = ["session_id", "transcript_path", "permission_mode"];
    const { payload, event } = h.expectCaptured(
      file,
      kind,
      kind === "session_start" ? sessionFields : [...sessionFields, "cwd"],
    );
    expect(event.timestamp).toBe(NOW);
    expect(event.turn_id).toBe(payload.prompt_id);
    expect(event.agent_id).toBe(payload.agent_id);
  });

  h.itGivesDistinctIds(hookFixtures, "gives every captured event a distinct id");

  it("keeps a task notification whole as the agent's own event, flagged, never as the user's prompt", () => {
    const { payload, event } = h.expectCaptured("UserPromptSubmit.task-notification.json", "provider_event", [
      "session_id",
      "transcript_path",
      "permission_mode",
      "cwd",
    ]);
    expect(event.payload).toMatchObject({ task_notification: true, prompt: payload.prompt });
    const typed = h.normalizeOne({ ...payload, prompt: "what did the subagent find?" }).event;
    expect(typed.kind).toBe("user_prompt");
  });

  it("session_start keeps source, model, cwd and the resume statistics", () => {
    expect(normalizeOne(fixture("SessionStart.json")).event.payload).toEqual({
      hook_event_name: "SessionStart",
      source: "startup",
      cwd: "/home/user/project",
    });
    expect(normalizeOne(fixture("SessionStart.compact.json")).event.payload).toMatchObject({
      source: "compact",
      model: "claude-opus-5-5",
    });
    expect(normalizeOne(fixture("SessionStart.resume.json")).event.payload).toMatchObject({
      source: "resume",
      seconds_since_last_response: 1,
      context_tokens: 3043,
      prompt_cache_likely_expired: false,
      estimated_cache_write_usd: 0.0152,
    });
  });

  it("user_prompt carries the prompt and the prompt_id as turn", () => {
    const { event } = normalizeOne(fixture("UserPromptSubmit.json"));
    expect(event.payload).toEqual({
      hook_event_name: "UserPromptSubmit",
      prompt: "SCENARIO_BASH please run echo hello",
    });
    expect(event.turn_id).toBe("bd8fd621-730c-4394-a85c-842400be2e79");
  });

  it("UserPromptExpansion is a provider_event, never a second user_prompt", () => {
    const { event } = normalizeOne(fixture("UserPromptExpansion.json"));
    expect(event.kind).toBe("provider_event");
    expect(event.payload).toEqual({
      hook_event_name: "UserPromptExpansion",
      expansion_type: "slash_command",
      command_name: "greet",
      command_args: "world",
      command_source: "projectSettings",
      prompt: "/greet world",
    });
  });

  it("tool_call, tool_result and tool_error share the tool_use_id and record success", () => {
    const call = normalizeOne(fixture("PreToolUse.json")).event;
    const result = normalizeOne(fixture("PostToolUse.json")).event;
    const error = normalizeOne(fixture("PostToolUseFailure.json")).event;
    expect(call.payload).toEqual({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "echo hello", description: "Print hello" },
      tool_use_id: "toolu_mockmx26petn0001",
    });
    expect(result.payload).toMatchObject({
      tool_name: "Bash",
      tool_use_id: "toolu_mockmx26petn0001",
      tool_response: { stdout: "hello", stderr: "" },
      duration_ms: 24,
      success: true,
    });
    expect(result.optional_fields).toEqual(["tool_input", "tool_response"]);
    expect(error.payload).toMatchObject({
      tool_name: "Bash",
      tool_use_id: "toolu_mockmx26pvyp0001",
      error: "Exit code 3\noops",
      is_interrupt: false,
      duration_ms: 58,
      success: false,
    });
    expect(call.event_id).not.toBe(result.event_id);
  });

  it("events fired inside a subagent carry its agent_id", () => {
    const { event } = normalizeOne(fixture("PreToolUse.in-subagent.json"));
    expect(event.agent_id).toBe("aaffe666145fc9347");
    expect(event.payload).not.toHaveProperty("agent_type");
  });

  it("PostToolBatch keeps only the tool_use_ids, not the tool results again", () => {
    const { event } = normalizeOne(fixture("PostToolBatch.json"));
    expect(event.kind).toBe("provider_event");
    expect(event.payload).toEqual({
      hook_event_name: "PostToolBatch",
      tool_use_ids: ["toolu_mockmx26petn0001"],
      count: 1,
    });
    expect(JSON.stringify(event)).not.toContain("tool_response");
    expect(JSON.stringify(event)).not.toContain("echo hello");
  });

  it("a background Agent launch has no usage yet", () => {
    const { event } = normalizeOne(fixture("PostToolUse.Agent.json"));
    expect(event.kind).toBe("tool_result");
    expect(event.usage).toBeUndefined();
  });

  it("a completed Agent call gives usage with source hook-payload", () => {
    // The capture only has an async launch; this is the synchronous result shape
    // (status "completed" with totalTokens and an Anthropic usage object).
    const payload = fixture("PostToolUse.Agent.json");
    payload.tool_response = {
      status: "completed",
      agentId: "aaffe666145fc9347",
      prompt: "SUBAGENT_TASK: run echo from-subagent and report",
      content: [{ type: "text", text: "Subagent finished: from-subagent" }],
      totalDurationMs: 834,
      totalTokens: 2906,
      totalToolUseCount: 1,
      usage: {
        input_tokens: 2894,
        output_tokens: 12,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        service_tier: "standard",
      },
    };
    const { event } = normalizeOne(payload);
    expect(event.usage).toEqual({
      source: "hook-payload",
      input_tokens: 2894,
      output_tokens: 12,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      total_tokens: 2906,
    });
    expect(event.payload.tool_response).toMatchObject({ totalTokens: 2906 });
  });

  it("Stop becomes assistant_message with text and a background task summary", () => {
    const { event } = normalizeOne(fixture("Stop.background-task-running.json"));
    expect(event.payload).toEqual({
      hook_event_name: "Stop",
      text: "The subagent reported back.",
      stop_hook_active: false,
      background_tasks: {
        count: 1,
        running: 1,
        tasks: [
          { id: "aaffe666145fc9347", type: "subagent", status: "running", agent_type: "general-purpose" },
        ],
      },
    });
    expect(event.usage).toBeUndefined();
  });

  it("StopFailure is a provider_event flagged as a failure", () => {
    const { event } = normalizeOne(fixture("StopFailure.json"));
    expect(event.kind).toBe("provider_event");
    expect(event.payload).toEqual({
      hook_event_name: "StopFailure",
      failure: true,
      error: "unknown",
      last_assistant_message: "API Error: 400 mock: deliberately rejected request",
    });
  });

  it("subagent start and stop carry the subagent identity and transcript", () => {
    const start = normalizeOne(fixture("SubagentStart.json")).event;
    const stop = normalizeOne(fixture("SubagentStop.json")).event;
    expect(start.payload).toEqual({
      hook_event_name: "SubagentStart",
      agent_id: "aaffe666145fc9347",
      agent_type: "general-purpose",
    });
    expect(stop.payload).toEqual({
      hook_event_name: "SubagentStop",
      agent_id: "aaffe666145fc9347",
      agent_type: "general-purpose",
      agent_transcript_path:
        "/home/user/.claude/projects/-home-user-project/acc5acad-2490-47d5-a323-cd06330e0e14/subagents/agent-aaffe666145fc9347.jsonl",
      last_assistant_message: "Subagent finished: from-subagent",
    });
    // The compaction agent reports an empty agent_type; it is kept as given.
    expect(normalizeOne(fixture("SubagentStop.compact-agent.json")).event.payload.agent_type).toBe("");
  });

  it("compaction records the phase", () => {
    expect(normalizeOne(fixture("PreCompact.json")).event.payload).toEqual({
      hook_event_name: "PreCompact",
      phase: "pre",
      trigger: "manual",
      custom_instructions: null,
    });
    expect(normalizeOne(fixture("PostCompact.json")).event.payload).toEqual({
      hook_event_name: "PostCompact",
      phase: "post",
      trigger: "manual",
      compact_summary: "<summary>Mock summary: the user ran echo hello via Bash and got hello.</summary>",
    });
  });

  it("SessionEnd is terminal and keeps the reason", () => {
    const { event } = normalizeOne(fixture("SessionEnd.prompt_input_exit.json"));
    expect(event.terminal).toBe(true);
    expect(event.payload).toEqual({ hook_event_name: "SessionEnd", reason: "prompt_input_exit" });
    expect(normalizeOne(fixture("Stop.json")).event.terminal).toBeUndefined();
  });

  it("other events keep their own fields and drop the common ones", () => {
    const { event } = normalizeOne(fixture("PermissionRequest.json"));
    expect(event.payload).toEqual({
      hook_event_name: "PermissionRequest",
      effort: { level: "medium" },
      tool_name: "Bash",
      tool_input: { command: "touch stamp.txt && ls", description: "Create a file (needs permission)" },
      permission_suggestions: expect.any(Array),
    });
    // Unknown importance: the biggest fields are dropped first.
    expect(event.optional_fields?.[0]).toBe("permission_suggestions");
    expect(event.optional_fields).toHaveLength(4);
  });
});

describe("normalizeClaudeHook: event ids", () => {
  h.turnIdTests({
    reorder: "Notification.json",
    turnField: "prompt_id",
    otherTurn: "00000000-0000-4000-8000-000000000001",
    withoutTurn: "events without a unique identifier differ when their content differs",
  });
  h.itIgnoresTheClock("PreToolUse.json", "does not depend on the clock", true);
});

describe("normalizeClaudeHook: odd input", () => {
  it("records an unknown future event as a provider_event", () => {
    const event = h.expectFutureEvent(
      {
        transcript_path: "/tmp/t.jsonl",
        cwd: "/home/user/project",
        permission_mode: "default",
        prompt_id: "p-1",
      },
      { hook_event_name: "TeleportRequested", destination: "mars", details: { eta_s: 3 } },
    );
    expect(event.turn_id).toBe("p-1");
  });

  h.itAddsToTheNonObjectRecord("PreToolUse", (payload) => {
    expect(normalizeOne(payload).context.transcript_path).toBeNull();
  });

  it("files a non-object payload under the session named by the hook environment", () => {
    const { context } = normalizeOne("garbage", { CLAUDE_CODE_SESSION_ID: "env-session" });
    expect(context.identity.session_id).toBe("claude:env-session");
  });

  h.itIgnoresPrototypeNames();
  h.itSurvivesAThrowingClock("2b78a515-1a4e-4949-93a8-4a58deaec546");
});

describe("normalizeClaudeHook: context from the hook environment", () => {
  const hookEnv = (fixture("hook-env.json") as { print_mode_PreToolUse: Record<string, string> })
    .print_mode_PreToolUse;

  it("reads project dir and pid from the environment", () => {
    const { context } = normalizeOne(fixture("PreToolUse.json"), {
      ...hookEnv,
      CLAUDE_PROJECT_DIR: "/srv/repo",
    });
    expect(context.project_dir).toBe("/srv/repo");
    expect(context.agent_pid).toBe(6577);
    expect(context.identity.session_id).toBe("claude:2b78a515-1a4e-4949-93a8-4a58deaec546");
  });

  it("falls back to CLAUDE_CODE_SESSION_ID, then to a local id", () => {
    const payload = fixture("Notification.json");
    delete payload.session_id;
    expect(normalizeOne(payload, hookEnv).context.identity).toEqual({
      provider: "claude",
      provider_session_id: "2b78a515-1a4e-4949-93a8-4a58deaec546",
      session_id: "claude:2b78a515-1a4e-4949-93a8-4a58deaec546",
      identity_source: "provider",
    });
    const local = normalizeOne(payload, {}).context.identity;
    expect(local.identity_source).toBe("local");
    expect(local.session_id).toMatch(/^claude:local-/);
    expect(normalizeOne(payload, {}).context.identity.session_id).not.toBe(local.session_id);
  });

  it("ignores a pid that is not a number", () => {
    for (const pid of ["", "abc", "12abc", "-5", "0"]) {
      expect(normalizeOne(fixture("Stop.json"), { CLAUDE_PID: pid }).context.agent_pid).toBeNull();
    }
  });
});

describe("capabilities and hot path", () => {
  it("lists every kind it emits and the usage sources", () => {
    for (const kind of new Set(Object.values(EXPECTED_KIND))) expect(CLAUDE_CAPABILITIES).toContain(kind);
    expect(CLAUDE_CAPABILITIES).toContain("turn_usage:claude-transcript");
    expect(CLAUDE_CAPABILITIES).toContain("usage:hook-payload(agent)");
  });

  it("imports nothing but types from the core, so zod never loads in a hook", () => {
    // Values may come only from zod-free core modules (kinds.ts, fsutil.ts: the non-blocking, no-follow open
    // the transcript is read with, and scan.ts: the line reader; node built-ins only); the rest is types.
    h.expectLeanImports(["normalize.ts", "transcript-usage.ts"], /\/core\/(kinds|fsutil|scan)\.ts/);
  });
});
