import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EventKind } from "../../../src/core/archive/schemas.ts";
import { codexAdapter } from "../../../src/providers/codex/adapter.ts";
import { CODEX_CAPABILITIES, normalizeCodexHook } from "../../../src/providers/codex/normalize.ts";
import { HookHarness, type Json } from "../hook-normalizer.ts";

// Captured Codex CLI 0.171.0 hook payloads and the input JSON schemas taken from
// the binary (the project's reference notes on the real clients, section 2).
const NOW = "2026-11-29T18:47:22.865Z";
const h = new HookHarness("codex", normalizeCodexHook, CODEX_CAPABILITIES, () => NOW);
const { fixture, hookFixtures, normalizeOne } = h;
const SCHEMAS = join(import.meta.dirname, "..", "..", "fixtures", "codex", "hook-schemas");

const ROOT = "01a228a2-0a2b-7711-8bfe-1771673db649";
const CHILD = "01a228a2-0b5c-7b01-81dd-afb8f8b3c75e";
const CHILD_TURN = "01a228a2-0b67-7f80-bf02-70f63efce3f5";
const CHILD_ROLLOUT =
  "/home/user/.codex/sessions/2026/11/29/rollout-2026-11-29T18-47-18-01a228a2-0b5c-7b01-81dd-afb8f8b3c75e.jsonl";

const EXPECTED_KIND: Record<string, EventKind> = {
  "PermissionRequest.json": "provider_event",
  "PostCompact.json": "compaction",
  "PostToolUse.failed-command.json": "tool_result",
  "PostToolUse.json": "tool_result",
  "PostToolUse.spawn_agent.json": "tool_result",
  "PostToolUse.wait_agent.json": "tool_result",
  "PreCompact.json": "compaction",
  "PreToolUse.in-subagent.json": "tool_call",
  "PreToolUse.json": "tool_call",
  "PreToolUse.spawn_agent.json": "tool_call",
  "SessionEnd.json": "session_end",
  "SessionStart.json": "session_start",
  "SessionStart.resume.json": "session_start",
  "Stop.json": "assistant_message",
  "SubagentStart.json": "subagent_start",
  "SubagentStop.json": "subagent_stop",
  "UserPromptSubmit.in-subagent.json": "user_prompt",
  "UserPromptSubmit.json": "user_prompt",
};

describe("normalizeCodexHook: captured payloads", () => {
  h.itCoversEveryFixture(EXPECTED_KIND, "captured hook payload");

  it.each(Object.entries(EXPECTED_KIND))("%s maps to %s with provider ids", (file, kind) => {
    const sessionFields = ["session_id", "transcript_path", "turn_id"];
    const startFields = ["cwd", "permission_mode"];
    const { payload, event } = h.expectCaptured(file, kind, [
      ...sessionFields,
      ...(kind === "session_start" ? [] : startFields),
    ]);
    expect(event.timestamp).toBe(NOW);
    expect(event.turn_id).toBe(payload.turn_id);
    expect(event.agent_id).toBe(payload.agent_id);
    expect(event.terminal).toBe(kind === "session_end" ? true : undefined);
  });

  h.itGivesDistinctIds(hookFixtures, "gives every captured event a distinct id");

  it("session_start keeps source, model, permission mode and cwd", () => {
    expect(normalizeOne(fixture("SessionStart.json")).event.payload).toEqual({
      hook_event_name: "SessionStart",
      source: "startup",
      model: "gpt-mock",
      permission_mode: "bypassPermissions",
      cwd: "/home/user/project",
    });
    expect(normalizeOne(fixture("SessionStart.resume.json")).event.payload.source).toBe("resume");
  });

  it("user_prompt carries the prompt and the turn_id as turn", () => {
    const { event } = normalizeOne(fixture("UserPromptSubmit.json"));
    expect(event.payload).toEqual({
      hook_event_name: "UserPromptSubmit",
      prompt: "SCENARIO_BASH run echo hello",
      model: "gpt-mock",
    });
    expect(event.turn_id).toBe("01a228a1-6cb3-7542-97f2-313b7fba6131");
    expect(event.agent_id).toBeUndefined();
  });

  it("tool_call and tool_result share the tool_use_id (the Responses call_id)", () => {
    const call = normalizeOne(fixture("PreToolUse.json")).event;
    const result = normalizeOne(fixture("PostToolUse.json")).event;
    expect(call.payload).toEqual({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "echo hello" },
      tool_use_id: "call_mockmx26xg1y5",
    });
    expect(result.payload).toEqual({
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "echo hello" },
      tool_response: "hello\n",
      tool_use_id: "call_mockmx26xg1y5",
    });
    expect(result.optional_fields).toEqual(["tool_input", "tool_response"]);
    expect(call.event_id).not.toBe(result.event_id);
  });

  it("a failing command is an ordinary tool_result with its string output and no success claim", () => {
    const { event } = normalizeOne(fixture("PostToolUse.failed-command.json"));
    expect(event.kind).toBe("tool_result");
    expect(event.payload).toEqual({
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "echo oops >&2; exit 3" },
      tool_response: "oops\n",
      tool_use_id: "call_mockmx26y9dk3",
    });
    expect(event.payload).not.toHaveProperty("success");
  });

  it("keeps a tool's JSON text response as the string Codex sent", () => {
    const spawn = normalizeOne(fixture("PostToolUse.spawn_agent.json")).event;
    expect(spawn.payload.tool_name).toBe("spawn_agent");
    expect(spawn.payload.tool_response).toBe(`{"agent_id":"${CHILD}","nickname":"Plato"}`);
    const wait = normalizeOne(fixture("PostToolUse.wait_agent.json")).event;
    expect(wait.payload.tool_name).toBe("multi_agent_v1wait_agent");
    expect(typeof wait.payload.tool_response).toBe("string");
  });

  it("PermissionRequest is a provider_event flagged as a permission request", () => {
    const { event } = normalizeOne(fixture("PermissionRequest.json"));
    expect(event.payload).toEqual({
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "touch stamp.txt && ls", description: "Create stamp.txt in the project" },
      permission_request: true,
    });
    expect(event.turn_id).toBe("01a228a2-6880-7792-91b7-81f5093bd5f9");
  });

  it("Stop becomes assistant_message with the last assistant message as text", () => {
    const { event } = normalizeOne(fixture("Stop.json"));
    expect(event.payload).toEqual({
      hook_event_name: "Stop",
      text: "The command printed: hello",
      stop_hook_active: false,
    });
    expect(event.usage).toBeUndefined();
  });

  it("compaction records the phase and trigger", () => {
    expect(normalizeOne(fixture("PreCompact.json")).event.payload).toEqual({
      hook_event_name: "PreCompact",
      trigger: "manual",
      phase: "pre",
    });
    expect(normalizeOne(fixture("PostCompact.json")).event.payload).toEqual({
      hook_event_name: "PostCompact",
      trigger: "manual",
      phase: "post",
    });
  });

  it("SessionEnd is terminal and keeps the reason", () => {
    const { event } = normalizeOne(fixture("SessionEnd.json"));
    expect(event.terminal).toBe(true);
    expect(event.payload).toEqual({ hook_event_name: "SessionEnd", reason: "other" });
    expect(event.turn_id).toBeUndefined();
  });
});

describe("normalizeCodexHook: subagents", () => {
  it("subagent events share the root session and differ by agent_id and transcript", () => {
    const files = [
      "SubagentStart.json",
      "UserPromptSubmit.in-subagent.json",
      "PreToolUse.in-subagent.json",
      "SubagentStop.json",
    ];
    for (const file of files) {
      const { context, event } = normalizeOne(fixture(file));
      expect(context.identity.session_id, file).toBe(`codex:${ROOT}`);
      expect(event.agent_id, file).toBe(CHILD);
      expect(event.turn_id, file).toBe(CHILD_TURN);
    }
    // Inside the subagent (and at its start) the payload's transcript is the child's rollout.
    expect(normalizeOne(fixture("PreToolUse.in-subagent.json")).context.transcript_path).toBe(CHILD_ROLLOUT);
    // The parent's own events have no agent_id.
    expect(normalizeOne(fixture("PreToolUse.spawn_agent.json")).event.agent_id).toBeUndefined();
  });

  it("subagent_start names the child's rollout, taken from its transcript_path", () => {
    const { event } = normalizeOne(fixture("SubagentStart.json"));
    expect(event.payload).toEqual({
      hook_event_name: "SubagentStart",
      agent_id: CHILD,
      agent_type: "default",
      agent_transcript_path: CHILD_ROLLOUT,
    });
    // A transcript_path that is not named after the agent is not claimed as its rollout.
    const other = { ...fixture("SubagentStart.json"), transcript_path: "/tmp/rollout-x-parent.jsonl" };
    expect(normalizeOne(other).event.payload).not.toHaveProperty("agent_transcript_path");
  });

  it("subagent_stop carries identity, child rollout and last message", () => {
    const { event, context } = normalizeOne(fixture("SubagentStop.json"));
    expect(event.payload).toEqual({
      hook_event_name: "SubagentStop",
      agent_id: CHILD,
      agent_type: "default",
      agent_transcript_path: CHILD_ROLLOUT,
      last_assistant_message: "Subagent finished: from-subagent",
      stop_hook_active: false,
    });
    // SubagentStop fires in the parent: its transcript_path is the parent's rollout.
    expect(context.transcript_path).not.toBe(CHILD_ROLLOUT);
  });

  it("events inside a subagent do not repeat agent_type outside subagent events", () => {
    expect(normalizeOne(fixture("PreToolUse.in-subagent.json")).event.payload).not.toHaveProperty(
      "agent_type",
    );
    expect(normalizeOne(fixture("UserPromptSubmit.in-subagent.json")).event.payload).toEqual({
      hook_event_name: "UserPromptSubmit",
      prompt: "SUBAGENT_TASK: run echo from-subagent and report",
      model: "gpt-mock",
    });
  });
});

/** A minimal valid payload for an input schema: every required field, with plausible values. */
function payloadFromSchema(schema: Json): Json {
  const properties = schema.properties as Record<string, Json>;
  const out: Json = {};
  for (const field of schema.required as string[]) {
    const prop = properties[field]!;
    if (prop.const !== undefined) out[field] = prop.const;
    else if (Array.isArray(prop.enum)) out[field] = prop.enum[0];
    else if (prop.type === "boolean") out[field] = false;
    else if (prop.type === "string" || prop.$ref) out[field] = `${field}-value`;
    else out[field] = { value: field };
  }
  return out;
}

const SCHEMA_KIND: Record<string, EventKind> = {
  Interrupt: "provider_event",
  PermissionRequest: "provider_event",
  PostCompact: "compaction",
  PostToolUse: "tool_result",
  PreCompact: "compaction",
  PreToolUse: "tool_call",
  SessionEnd: "session_end",
  SessionStart: "session_start",
  Stop: "assistant_message",
  SubagentStart: "subagent_start",
  SubagentStop: "subagent_stop",
  UserPromptSubmit: "user_prompt",
};

describe("normalizeCodexHook: every event in the binary's input schemas", () => {
  const schemas = readdirSync(SCHEMAS)
    .filter((f) => f.endsWith(".command.input.json"))
    .map((f) => JSON.parse(readFileSync(join(SCHEMAS, f), "utf8")) as Json);

  it("covers the 12 hook events", () => {
    const names = schemas.map((s) => (s.properties as Record<string, Json>).hook_event_name!.const);
    expect(names.sort()).toEqual(Object.keys(SCHEMA_KIND).sort());
  });

  it.each(Object.entries(SCHEMA_KIND))("%s (schema-shaped payload) maps to %s", (name, kind) => {
    const schema = schemas.find(
      (s) => (s.properties as Record<string, Json>).hook_event_name!.const === name,
    )!;
    const payload = payloadFromSchema(schema);
    const { event, context } = normalizeOne(payload);
    expect(event.kind).toBe(kind);
    expect(event.payload.hook_event_name).toBe(name);
    expect(event.turn_id).toBe(payload.turn_id);
    expect(context.identity.session_id).toBe("codex:session_id-value");
  });

  it("Interrupt (never captured: it needs a user interrupt in the TUI) is an interrupted provider_event", () => {
    const { event } = normalizeOne({
      session_id: "s-1",
      turn_id: "t-1",
      transcript_path: null,
      cwd: "/home/user/project",
      hook_event_name: "Interrupt",
      model: "gpt-mock",
      permission_mode: "default",
    });
    expect(event.kind).toBe("provider_event");
    expect(event.payload).toEqual({ hook_event_name: "Interrupt", interrupted: true });
    expect(event.turn_id).toBe("t-1");
  });

  it("an ephemeral run (transcript_path null) has no transcript", () => {
    const payload = { ...fixture("Stop.json"), transcript_path: null };
    expect(normalizeOne(payload).context.transcript_path).toBeNull();
  });
});

describe("normalizeCodexHook: event ids", () => {
  h.turnIdTests({
    reorder: "PermissionRequest.json",
    turnField: "turn_id",
    otherTurn: "01a228a1-a58d-7980-85e8-61eadc2c2ab1",
    withoutTurn: "events without their identifier fall back to the whole payload",
  });

  it("the same turn in the parent and in a subagent gets different ids", () => {
    const parent = fixture("UserPromptSubmit.in-subagent.json");
    delete parent.agent_id;
    delete parent.agent_type;
    const child = fixture("UserPromptSubmit.in-subagent.json");
    expect(normalizeOne(parent).event.event_id).not.toBe(normalizeOne(child).event.event_id);
  });

  it("Pre- and PostCompact of one turn get different ids", () => {
    const pre = normalizeOne(fixture("PreCompact.json")).event.event_id;
    const post = normalizeOne(fixture("PostCompact.json")).event.event_id;
    expect(pre).not.toBe(post);
  });

  it("a tool event's id follows its tool_use_id, not its content", () => {
    const a = fixture("PreToolUse.json");
    const b = { ...a, tool_input: { command: "echo changed" } };
    expect(normalizeOne(b).event.event_id).toBe(normalizeOne(a).event.event_id);
    const c = { ...a, tool_use_id: "call_other" };
    expect(normalizeOne(c).event.event_id).not.toBe(normalizeOne(a).event.event_id);
  });

  h.itIgnoresTheClock("PreToolUse.json", "does not depend on the clock", true);
});

describe("normalizeCodexHook: odd input", () => {
  it("records an unknown future event as a provider_event", () => {
    const event = h.expectFutureEvent(
      {
        transcript_path: "/tmp/rollout.jsonl",
        cwd: "/home/user/project",
        model: "gpt-mock",
        permission_mode: "default",
        turn_id: "t-1",
        agent_id: "a-1",
      },
      { hook_event_name: "TeleportRequested", destination: "mars", details: { eta_s: 3 } },
    );
    expect(event.turn_id).toBe("t-1");
    expect(event.agent_id).toBe("a-1");
    expect(event.optional_fields).toEqual(["details", "destination"]);
  });

  h.itAddsToTheNonObjectRecord("PreToolUse", (payload) => {
    const { context } = normalizeOne(payload);
    expect(context.transcript_path).toBeNull();
    expect(context.project_dir).toBeNull();
  });

  it("uses a fresh local identity when session_id is missing (the hook env names no session)", () => {
    const env = (fixture("hook-env.json") as { env: Record<string, string> }).env;
    const payload = fixture("Stop.json");
    delete payload.session_id;
    const first = normalizeOne(payload, env).context.identity;
    expect(first.identity_source).toBe("local");
    expect(first.session_id).toMatch(/^codex:local-/);
    expect(normalizeOne(payload, env).context.identity.session_id).not.toBe(first.session_id);
    expect(normalizeOne({ ...payload, session_id: "" }, env).context.identity.identity_source).toBe("local");
  });

  it("takes nothing from the hook environment: no pid, no session, no project dir", () => {
    const env = {
      ...(fixture("hook-env.json") as { env: Record<string, string> }).env,
      CLAUDE_PID: "1234",
      CLAUDE_PROJECT_DIR: "/elsewhere",
    };
    const { context } = normalizeOne(fixture("PreToolUse.json"), env);
    expect(context.agent_pid).toBeNull();
    expect(context.project_dir).toBe("/home/user/project");
  });

  h.itIgnoresPrototypeNames();
  h.itSurvivesAThrowingClock("01a228a1-6c99-7571-8a54-9987d351bd37");

  it("keeps odd field types as given without failing", () => {
    const payload = {
      ...fixture("PostToolUse.json"),
      tool_response: { not: "a string" },
      turn_id: 42,
      agent_id: ["x"],
    };
    const { event } = normalizeOne(payload);
    expect(event.kind).toBe("tool_result");
    expect(event.payload.tool_response).toEqual({ not: "a string" });
    expect(event.turn_id).toBeUndefined();
    expect(event.agent_id).toBeUndefined();
  });
});

describe("codexAdapter", () => {
  it("is named", () => {
    expect(codexAdapter.name).toBe("codex");
    expect(codexAdapter.displayName).toBe("Codex CLI");
    expect(codexAdapter.normalize(fixture("Stop.json"), {}).events[0]!.kind).toBe("assistant_message");
  });
});

describe("capabilities and hot path", () => {
  it("lists every kind it emits and where usage and failures come from", () => {
    for (const kind of new Set(Object.values(EXPECTED_KIND))) expect(CODEX_CAPABILITIES).toContain(kind);
    for (const kind of ["turn_usage", "tool_error"]) expect(CODEX_CAPABILITIES).toContain(kind);
    expect(CODEX_CAPABILITIES).toContain("turn_usage:codex-transcript");
    expect(CODEX_CAPABILITIES).toContain("tool_error:rollout-exit-code");
    expect(Object.isFrozen(CODEX_CAPABILITIES)).toBe(true);
  });

  it("imports nothing from the core but types and the zod-free kinds list", () => {
    // fsutil.ts: the non-blocking, no-follow open the rollout is read with; scan.ts: the line reader it is read
    // by (both zod-free, node built-ins only).
    const values = /\/core\/(kinds|fsutil|scan)\.ts/;
    h.expectLeanImports(["normalize.ts", "rollout.ts", "adapter.ts", "notify.ts"], values);
  });
});
