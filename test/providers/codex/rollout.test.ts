import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../../src/core/archive/event.ts";
import { codexAdapter } from "../../../src/providers/codex/adapter.ts";
import { normalizeCodexHook } from "../../../src/providers/codex/normalize.ts";
import { codexUsage, readRollout } from "../../../src/providers/codex/rollout.ts";
import { type Json, providerFixtures } from "../../helpers/fixtures.ts";
import { useScratchDir } from "../../helpers/temp-project.ts";
import { readAfterLargeFile, readInSlices, readWhole } from "../usage-reader.ts";

// Captured Codex CLI 0.171.0 rollouts (the project's reference notes on the real clients, section 2):
// rollout.sample.jsonl (exec, then exec resume: two turns), rollout.subagent.sample.jsonl (a
// spawned child thread) and rollout.compacted.sample.jsonl (TUI, a permission turn, then /compact).
//
// rollout.failed-command.synthetic.jsonl is NOT a capture: the reference has the failing
// command's PostToolUse (PostToolUse.failed-command.json) but not its rollout. It is the first
// turn of rollout.sample.jsonl with that payload's session, turn and call ids, the command
// `echo oops >&2; exit 3`, exit_code 3, status "failed" and output "oops\n" substituted;
// every line keeps the captured shape.
const { path: fixturePath, json: fixture } = providerFixtures("codex");
const SAMPLE = fixturePath("rollout.sample.jsonl");
const SUBAGENT = fixturePath("rollout.subagent.sample.jsonl");
const COMPACTED = fixturePath("rollout.compacted.sample.jsonl");
const FAILED = fixturePath("rollout.failed-command.synthetic.jsonl");
const scratch = useScratchDir("tapedeck-codex-rollout-");

const read = (path: string, offset: number, seen: string[], maxBytes?: number) => {
  const result = readRollout(path, { offset, seen }, maxBytes);
  return { ...result, ids: result.usages.map((u) => u.response_id) };
};

function records(path: string): Json[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Json);
}

/** The token_usage_record payloads of a rollout, parsed independently of the reader. */
function usageRecords(path: string): Json[] {
  return records(path)
    .filter((r) => r.type === "token_usage_record")
    .map((r) => r.payload as Json);
}

/** A token_usage_record line in the shape Codex 0.171 writes. */
function usageLine(responseId: string, usage: Json, extra: Json = {}): string {
  return `${JSON.stringify({
    timestamp: "2026-11-29T18:50:00.000Z",
    ordinal: 99,
    type: "token_usage_record",
    payload: {
      thread_id: "thread-root",
      turn_id: "turn-new",
      session_id: "thread-root",
      root_turn_id: "turn-new",
      response_id: responseId,
      usage,
      turn_token_usage: { input_tokens: 999_999, output_tokens: 999_999 },
      thread_token_usage: { input_tokens: 999_999, output_tokens: 999_999 },
      ...extra,
    },
  })}\n`;
}

const USAGE = {
  input_tokens: 100,
  cached_input_tokens: 40,
  cache_write_input_tokens: 5,
  output_tokens: 20,
  reasoning_output_tokens: 7,
  total_tokens: 120,
};

/** USAGE in the core's names: only the two cache counts are named otherwise. */
const { cached_input_tokens, cache_write_input_tokens, ...SAME_NAMES } = USAGE;
const USAGE_IN_CORE_NAMES = {
  ...SAME_NAMES,
  cache_read_input_tokens: cached_input_tokens,
  cache_creation_input_tokens: cache_write_input_tokens,
};

/** An item_completed CommandExecution line in the shape Codex 0.171 writes. */
function commandLine(callId: string, exitCode: number | null, extra: Json = {}): string {
  return `${JSON.stringify({
    timestamp: "2026-11-29T18:50:00.100Z",
    ordinal: 100,
    type: "event_msg",
    payload: {
      type: "item_completed",
      thread_id: "thread-root",
      turn_id: "turn-new",
      item: {
        type: "CommandExecution",
        id: callId,
        process_id: "1",
        command: ["/bin/bash", "-lc", "false"],
        cwd: "file:///home/user/project",
        parsed_cmd: [{ type: "unknown", cmd: "false" }],
        source: "unified_exec_startup",
        status: exitCode === 0 ? "completed" : "failed",
        aggregated_output: "",
        exit_code: exitCode,
        duration: { secs: 1, nanos: 500_000 },
        ...extra,
      },
      started_at_ms: 1,
      completed_at_ms: 2,
    },
  })}\n`;
}

describe("readRollout: usage per response from captured rollouts", () => {
  it("reports each token_usage_record's own usage, mapped to the core fields", () => {
    const result = readRollout(SAMPLE);
    expect(result.offset).toBe(statSync(SAMPLE).size);
    expect(result.model).toBe("gpt-mock");
    expect(result.usages).toEqual([
      {
        response_id: "resp_mockmx26xg1x1",
        timestamp: "2026-11-29T18:46:37.709Z",
        turn_id: "01a228a1-6cb3-7542-97f2-313b7fba6131",
        thread_id: "01a228a1-6c99-7571-8a54-9987d351bd37",
        session_id: "01a228a1-6c99-7571-8a54-9987d351bd37",
        model: "gpt-mock",
        usage: {
          source: "codex-transcript",
          message_id: "resp_mockmx26xg1x1",
          model: "gpt-mock",
          input_tokens: 5163,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          output_tokens: 35,
          reasoning_output_tokens: 8,
          total_tokens: 5198,
        },
      },
      expect.objectContaining({ response_id: "resp_mockmx26xg7v7" }),
      expect.objectContaining({
        response_id: "resp_mockmx26xr9ia",
        turn_id: "01a228a1-a58d-7980-85e8-61eadc2c2ab1",
      }),
    ]);
  });

  it.each([
    ["rollout.sample.jsonl", 3],
    ["rollout.subagent.sample.jsonl", 2],
    ["rollout.compacted.sample.jsonl", 3],
  ])("%s: one usage per response id, equal to its record's usage (%i responses)", (file, responses) => {
    const path = fixturePath(file);
    const expected = usageRecords(path);
    const { usages } = readRollout(path);
    expect(usages).toHaveLength(responses);
    expect(usages.map((u) => u.response_id)).toEqual(expected.map((r) => r.response_id));
    usages.forEach((u, i) => {
      const raw = expected[i]!.usage as Record<string, number>;
      expect(u.usage).toMatchObject({
        input_tokens: raw.input_tokens,
        cache_read_input_tokens: raw.cached_input_tokens,
        cache_creation_input_tokens: raw.cache_write_input_tokens,
        output_tokens: raw.output_tokens,
        reasoning_output_tokens: raw.reasoning_output_tokens,
        total_tokens: raw.total_tokens,
      });
      expect(u.turn_id).toBe(expected[i]!.turn_id);
    });
  });

  it("never takes the cumulative turn, thread or token_count totals", () => {
    const { usages } = readRollout(SAMPLE);
    const second = usageRecords(SAMPLE)[1]!;
    // The second response of turn 1: its own usage differs from the turn's running total.
    expect((second.turn_token_usage as Json).input_tokens).toBe(10513);
    expect(usages[1]!.usage.input_tokens).toBe(5350);
    // After `exec resume`, `turn.completed.usage` (exec --json) and thread_token_usage say 15944: the
    // thread total. The sum of the per-response usages is that total, and no single usage is.
    const sum = usages.reduce((n, u) => n + (u.usage.input_tokens ?? 0), 0);
    expect(sum).toBe(15944);
    expect((usageRecords(SAMPLE)[2]!.thread_token_usage as Json).input_tokens).toBe(15944);
    for (const u of usages) expect(u.usage.input_tokens).not.toBe(15944);
    expect(usages.map((u) => u.usage.total_tokens)).toEqual([5198, 5375, 5456]);
  });

  it("a subagent's records name the child thread and the root session", () => {
    const { usages } = readRollout(SUBAGENT);
    for (const u of usages) {
      expect(u.thread_id).toBe("01a228a2-0b5c-7b01-81dd-afb8f8b3c75e");
      expect(u.session_id).toBe("01a228a2-0a2b-7711-8bfe-1771673db649");
      expect(u.turn_id).toBe("01a228a2-0b67-7f80-bf02-70f63efce3f5");
    }
    expect(usages.map((u) => [u.usage.input_tokens, u.usage.output_tokens])).toEqual([
      [5168, 25],
      [5277, 25],
    ]);
  });

  it("counts the /compact request, whose usage comes before its turn_context", () => {
    const { usages } = readRollout(COMPACTED);
    expect(usages.map((u) => u.response_id)).toEqual([
      "resp_mockmx26ytte1",
      "resp_mockmx26z18o9",
      "resp_mockmx26z7qjc",
    ]);
    expect(usages[2]).toMatchObject({ turn_id: "01a228a2-af72-7ef1-965d-516e8d11c692", model: "gpt-mock" });
    expect(usages[2]!.usage.input_tokens).toBe(6733);
  });
});

describe("readRollout: command exit codes", () => {
  it("links a CommandExecution to the function_call and the hook by call id", () => {
    const { commands } = readRollout(SAMPLE);
    expect(commands).toEqual([
      {
        call_id: "call_mockmx26xg1y5",
        timestamp: "2026-11-29T18:46:37.821Z",
        turn_id: "01a228a1-6cb3-7542-97f2-313b7fba6131",
        thread_id: "01a228a1-6c99-7571-8a54-9987d351bd37",
        exit_code: 0,
        command: ["/bin/bash", "-lc", "echo hello"],
        duration_ms: 0.007,
        status: "completed",
        source: "unified_exec_startup",
        output: "hello\n",
      },
    ]);
    // The item id is the model's call_id, which the hooks report as tool_use_id.
    const call = records(SAMPLE).find((r) => (r.payload as Json).type === "function_call")!.payload as Json;
    expect(call.call_id).toBe(commands[0]!.call_id);
    expect(fixture("PostToolUse.json").tool_use_id).toBe(commands[0]!.call_id);
  });

  it("reads the failing command's exit code under the hook's tool_use_id", () => {
    const hook = fixture("PostToolUse.failed-command.json");
    const { commands } = readRollout(FAILED);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatchObject({
      call_id: hook.tool_use_id,
      turn_id: hook.turn_id,
      exit_code: 3,
      command: ["/bin/bash", "-lc", "echo oops >&2; exit 3"],
      status: "failed",
      output: "oops\n",
    });
  });

  it("reads subagent and TUI commands too", () => {
    expect(readRollout(SUBAGENT).commands.map((c) => [c.call_id, c.exit_code])).toEqual([
      ["call_mockmx26ybemb", 0],
    ]);
    expect(readRollout(COMPACTED).commands.map((c) => [c.call_id, c.exit_code])).toEqual([
      ["call_mockmx26yttf3", 0],
    ]);
  });

  it("keeps a missing exit code as null and converts the duration", () => {
    const path = scratch.file(commandLine("call_a", null, { duration: { secs: 2, nanos: 345_678_901 } }));
    expect(readRollout(path).commands[0]).toMatchObject({
      call_id: "call_a",
      exit_code: null,
      duration_ms: 2345.679,
    });
  });
});

describe("readRollout: incremental reading", () => {
  it("yields only the records appended since the last read", () => {
    const path = scratch.copy(SAMPLE);
    const first = readRollout(path);
    expect(first.usages).toHaveLength(3);
    appendFileSync(path, usageLine("resp_new", USAGE) + commandLine("call_new", 2));
    const second = readRollout(path, {
      offset: first.offset,
      seen: first.usages.map((u) => u.response_id),
      model: first.model,
    });
    expect(second.usages.map((u) => u.response_id)).toEqual(["resp_new"]);
    expect(second.usages[0]!.usage).toEqual({
      source: "codex-transcript",
      message_id: "resp_new",
      model: "gpt-mock",
      ...USAGE_IN_CORE_NAMES,
    });
    expect(second.commands.map((c) => [c.call_id, c.exit_code])).toEqual([["call_new", 2]]);
    expect(second.offset).toBe(statSync(path).size);
    const third = readRollout(path, { offset: second.offset, seen: ["resp_new"] });
    expect(third).toEqual({ offset: second.offset, usages: [], commands: [] });
  });

  it("does not look before the offset", () => {
    const path = scratch.file(usageLine("old", USAGE) + commandLine("call_old", 1));
    const offset = statSync(path).size;
    appendFileSync(path, usageLine("new", USAGE));
    const result = readRollout(path, { offset });
    expect(result.usages.map((u) => u.response_id)).toEqual(["new"]);
    expect(result.commands).toEqual([]);
  });

  it("leaves a partial trailing line for the next call", () => {
    const complete = usageLine("r1", USAGE);
    const partial = usageLine("r2", USAGE);
    const cut = Math.floor(partial.length / 2);
    const path = scratch.file(complete + partial.slice(0, cut));
    const first = readRollout(path);
    expect(first.usages.map((u) => u.response_id)).toEqual(["r1"]);
    expect(first.offset).toBe(Buffer.byteLength(complete));
    appendFileSync(path, partial.slice(cut));
    const second = readRollout(path, { offset: first.offset, seen: ["r1"] });
    expect(second.usages.map((u) => u.response_id)).toEqual(["r2"]);
    expect(second.offset).toBe(statSync(path).size);
  });

  it("restarts from 0 when the file shrank below the offset, still skipping seen responses", () => {
    const path = scratch.file(usageLine("r1", USAGE) + usageLine("r2", USAGE));
    const { offset } = readRollout(path);
    writeFileSync(path, usageLine("r3", USAGE));
    expect(statSync(path).size).toBeLessThan(offset);
    const result = readRollout(path, { offset, seen: ["r1", "r2"] });
    expect(result.usages.map((u) => u.response_id)).toEqual(["r3"]);
    expect(result.offset).toBe(statSync(path).size);
    const replayed = scratch.file(usageLine("r1", USAGE));
    expect(readRollout(replayed, { offset: 10_000, seen: ["r1"] }).usages).toEqual([]);
  });

  it("returns the cursor unchanged for a missing file", () => {
    expect(readRollout(join(scratch.dir, "missing.jsonl"), { offset: 123, model: "m" })).toEqual({
      offset: 123,
      model: "m",
      usages: [],
      commands: [],
    });
  });

  it("counts a response id once even when it is written twice", () => {
    const path = scratch.file(usageLine("r1", USAGE) + usageLine("r1", { ...USAGE, input_tokens: 1 }));
    const { usages } = readRollout(path);
    expect(usages).toHaveLength(1);
    expect(usages[0]!.usage.input_tokens).toBe(100);
  });

  it("skips malformed lines, records without counts and look-alikes", () => {
    const path = scratch.file(
      "not json at all\n" +
        '{"type":"token_usage_record","payload":{"response_id":"broken"\n' +
        usageLine("no-counts", { input_tokens: -1, output_tokens: 1.5 }) +
        usageLine("", USAGE) +
        `${JSON.stringify({ type: "response_item", payload: { type: "message", text: '"token_usage_record"' } })}\n` +
        `${JSON.stringify({ type: "event_msg", payload: { type: "item_completed", item: { type: "AgentMessage", id: "CommandExecution" } } })}\n` +
        commandLine("", 1) +
        usageLine("ok", USAGE),
    );
    const result = readRollout(path);
    expect(result.usages.map((u) => u.response_id)).toEqual(["ok"]);
    expect(result.commands).toEqual([]);
  });

  it("handles CRLF line endings and multi-byte text", () => {
    const line = usageLine("r-ü ✓", USAGE).replace(/\n$/, "\r\n");
    expect(readWhole(scratch.file(line), read)).toEqual(["r-ü ✓"]);
  });

  it("caps each call at maxBytes and still visits every response exactly once", () => {
    let content = "";
    for (let i = 0; i < 40; i++) content += usageLine(`r${i}`, USAGE) + commandLine(`c${i}`, i % 3);
    const failed: string[] = [];
    const readCommands = (path: string, offset: number, seen: string[], maxBytes?: number) => {
      const result = read(path, offset, seen, maxBytes);
      failed.push(...result.commands.filter((c) => c.exit_code !== 0).map((c) => c.call_id));
      return result;
    };
    const seen = readInSlices(scratch.file(content), readCommands, 900, 1000);
    expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => `r${i}`));
    expect(failed).toEqual(Array.from({ length: 40 }, (_, i) => `c${i}`).filter((_, i) => i % 3 !== 0));
  });

  it("makes progress past a single line longer than maxBytes", () => {
    const huge = `${JSON.stringify({ type: "world_state", payload: { blob: "z".repeat(5000) } })}\n`;
    expect(readInSlices(scratch.file(huge + usageLine("after", USAGE)), read, 1024, 100)).toEqual(["after"]);
  });

  it("reads only from the offset of a 20 MB rollout", () => {
    const path = join(scratch.dir, "large.jsonl");
    const tail = usageLine("tail-1", USAGE) + commandLine("call-tail", 1);
    const result = readAfterLargeFile(path, (id) => usageLine(id, USAGE), tail, read);
    expect(result.ids).toEqual(["tail-1"]);
    expect(result.commands.map((c) => c.call_id)).toEqual(["call-tail"]);
  });
});

describe("codexUsage", () => {
  it("maps OpenAI names to the core's and ignores invalid counts", () => {
    expect(codexUsage(USAGE, "resp_1")).toEqual({
      source: "codex-transcript",
      message_id: "resp_1",
      ...USAGE_IN_CORE_NAMES,
    });
    expect(codexUsage(null)).toBeUndefined();
    expect(codexUsage("100 tokens")).toBeUndefined();
    expect(codexUsage({ input_tokens: -1, output_tokens: 2.5 })).toBeUndefined();
    expect(codexUsage({ total_tokens: 10 })).toEqual({ source: "codex-transcript", total_tokens: 10 });
  });
});

// ---------------------------------------------------------------------------
// The adapter: enrichment at Stop, SubagentStop and SessionEnd

function hook(name: string, overrides: Json = {}): Json {
  return { ...fixture(name), ...overrides };
}

/** `state` defaults to an empty one (a session already being recorded); null: the session's first event. */
function enrich(payload: Json, state: Record<string, unknown> | null = {}) {
  const result = normalizeCodexHook(payload, {});
  return { result, extra: codexAdapter.enrich!(result, state ?? undefined) };
}

function kinds(events: NormalizedEvent[]) {
  return events.map((e) => e.kind);
}

describe("commands that never ran", () => {
  // The lines Codex 0.171 wrote for a command the user declined (through its app-server), trimmed.
  const declined = [
    {
      timestamp: "2026-11-29T22:28:40.030Z",
      type: "response_item",
      payload: {
        type: "function_call",
        name: "exec_command",
        arguments: '{"cmd":"touch declined.txt"}',
        call_id: "call_mock_13",
        internal_chat_message_metadata_passthrough: { turn_id: "turn-d" },
      },
    },
    {
      timestamp: "2026-11-29T22:28:40.157Z",
      type: "response_item",
      payload: {
        type: "function_call_output",
        call_id: "call_mock_13",
        output: 'exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }',
        internal_chat_message_metadata_passthrough: { turn_id: "turn-d" },
      },
    },
  ];

  it("a declined command becomes a tool_error without an exit code, linked by call id", () => {
    const path = scratch.copy(SAMPLE);
    appendFileSync(path, `${declined.map((l) => JSON.stringify(l)).join("\n")}\n`);
    const { commands } = readRollout(path, { offset: 0 });
    expect(commands.find((c) => c.call_id === "call_mock_13")).toEqual({
      call_id: "call_mock_13",
      timestamp: "2026-11-29T22:28:40.157Z",
      exit_code: null,
      turn_id: "turn-d",
      start_error: 'exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }',
    });
    const { extra } = enrich(hook("Stop.json", { transcript_path: path }));
    const error = extra!.events.find(
      (e) => e.kind === "tool_error" && e.payload.tool_use_id === "call_mock_13",
    );
    expect(error).toMatchObject({
      event_id: "tool_error:call_mock_13",
      turn_id: "turn-d",
      payload: { exit_code: null, never_ran: true, derived_from: "rollout" },
    });
    expect(String(error!.payload.error)).toContain("rejected by user");
  });

  it("an ordinary function output, or one of a command that ran, is no start failure", () => {
    const path = scratch.copy(SAMPLE);
    const ok = {
      type: "response_item",
      payload: { type: "function_call_output", call_id: "c1", output: "Process exited with code 0" },
    };
    appendFileSync(path, `${JSON.stringify(ok)}\n`);
    expect(readRollout(path, { offset: 0 }).commands.some((c) => c.start_error !== undefined)).toBe(false);
  });
});

describe("codexAdapter.enrich", () => {
  it("the session's first recorded event decides where reading starts: a new conversation from the top", () => {
    const path = scratch.copy(SAMPLE);
    const size = readFileSync(path).length;
    const cursorOf = (extra: ReturnType<typeof enrich>["extra"]) =>
      (extra!.state.cursors as Record<string, { offset: number }>)[path]!.offset;
    expect(cursorOf(enrich(hook("SessionStart.json", { transcript_path: path }), null).extra)).toBe(0);
    // A resume, or recording started midway (the first event is not a session start): from the current end,
    // so the turns from before recording began are not counted.
    expect(cursorOf(enrich(hook("SessionStart.resume.json", { transcript_path: path }), null).extra)).toBe(
      size,
    );
    const midway = enrich(hook("Stop.json", { transcript_path: path }), null).extra!;
    expect(midway.events).toEqual([]);
    expect(cursorOf(midway)).toBe(size);
  });

  it("at Stop adds one turn_usage per response, with ids from the response ids", () => {
    const path = scratch.copy(SAMPLE);
    const { extra } = enrich(hook("Stop.json", { transcript_path: path }));
    expect(extra).toBeDefined();
    const events = extra!.events;
    expect(kinds(events)).toEqual(["turn_usage", "turn_usage", "turn_usage"]);
    expect(events.map((e) => e.event_id)).toEqual([
      "turn_usage:resp_mockmx26xg1x1",
      "turn_usage:resp_mockmx26xg7v7",
      "turn_usage:resp_mockmx26xr9ia",
    ]);
    expect(events[0]).toEqual({
      kind: "turn_usage",
      event_id: "turn_usage:resp_mockmx26xg1x1",
      // Dated by its token_usage_record, not by the Stop that read it.
      timestamp: "2026-11-29T18:46:37.709Z",
      turn_id: "01a228a1-6cb3-7542-97f2-313b7fba6131",
      payload: {
        response_id: "resp_mockmx26xg1x1",
        model: "gpt-mock",
        thread_id: "01a228a1-6c99-7571-8a54-9987d351bd37",
      },
      usage: expect.objectContaining({ source: "codex-transcript", input_tokens: 5163, output_tokens: 35 }),
    });
    expect(events.map((e) => e.timestamp)).toEqual([
      "2026-11-29T18:46:37.709Z",
      "2026-11-29T18:46:37.918Z",
      "2026-11-29T18:46:52.233Z",
    ]);
    // The resumed turn's usage keeps its own turn id; nothing is attributed to a subagent.
    expect(events[2]!.turn_id).toBe("01a228a1-a58d-7980-85e8-61eadc2c2ab1");
    for (const e of events) expect(e.agent_id).toBeUndefined();
    // A successful command is not an error.
    expect(events.some((e) => e.kind === "tool_error")).toBe(false);
  });

  it("keeps a cursor per rollout, so the next Stop reads only what was appended", () => {
    const path = scratch.copy(SAMPLE);
    const first = enrich(hook("Stop.json", { transcript_path: path })).extra!;
    const cursors = first.state.cursors as Record<string, { offset: number; seen: string[]; model?: string }>;
    expect(cursors[path]).toEqual({
      offset: statSync(path).size,
      seen: ["resp_mockmx26xg1x1", "resp_mockmx26xg7v7", "resp_mockmx26xr9ia"],
      model: "gpt-mock",
    });
    const again = enrich(hook("Stop.json", { transcript_path: path }), first.state).extra!;
    expect(again.events).toEqual([]);

    appendFileSync(
      path,
      usageLine("resp_next", USAGE, {
        thread_id: "01a228a1-6c99-7571-8a54-9987d351bd37",
        session_id: "01a228a1-6c99-7571-8a54-9987d351bd37",
      }),
    );
    const next = enrich(hook("Stop.json", { transcript_path: path, turn_id: "turn-new" }), again.state)
      .extra!;
    expect(next.events.map((e) => [e.event_id, e.turn_id, e.agent_id])).toEqual([
      ["turn_usage:resp_next", "turn-new", undefined],
    ]);
  });

  it("turns the failing command into a tool_error linked to its tool_result by tool_use_id", () => {
    const path = scratch.copy(FAILED);
    const post = normalizeCodexHook(hook("PostToolUse.failed-command.json", { transcript_path: path }), {});
    const result = post.events[0]!;
    expect(result.kind).toBe("tool_result");
    // PostToolUse alone reads nothing.
    expect(codexAdapter.enrich!(post, {})).toBeUndefined();

    const stop = hook("Stop.json", {
      session_id: "01a228a2-010b-7020-b099-725fb563b46f",
      turn_id: "01a228a2-0124-7dd1-876f-0f8b65028c85",
      transcript_path: path,
      last_assistant_message: "The command failed with exit code 3.",
    });
    const { extra } = enrich(stop);
    const errors = extra!.events.filter((e) => e.kind === "tool_error");
    expect(errors).toEqual([
      {
        kind: "tool_error",
        event_id: "tool_error:call_mockmx26y9dk3",
        turn_id: "01a228a2-0124-7dd1-876f-0f8b65028c85",
        payload: {
          tool_name: "Bash",
          tool_use_id: "call_mockmx26y9dk3",
          exit_code: 3,
          error: "Exit code 3",
          command: ["/bin/bash", "-lc", "echo oops >&2; exit 3"],
          duration_ms: 0.007,
          status: "failed",
          source: "unified_exec_startup",
          output: "oops\n",
          derived_from: "rollout",
        },
        optional_fields: ["output", "command"],
      },
    ]);
    expect(errors[0]!.payload.tool_use_id).toBe(result.payload.tool_use_id);
    expect(errors[0]!.turn_id).toBe(result.turn_id);
    expect(kinds(extra!.events)).toEqual(["turn_usage", "turn_usage", "tool_error"]);

    // Idempotent: a second reader that lost the cursor produces the same ids.
    const replay = enrich(stop).extra!;
    expect(replay.events.map((e) => e.event_id)).toEqual(extra!.events.map((e) => e.event_id));
  });

  it("at SubagentStop reads the child's rollout and attributes it to the subagent", () => {
    const child = scratch.copy(SUBAGENT);
    const parent = scratch.file("");
    const { extra, result } = enrich(
      hook("SubagentStop.json", { transcript_path: parent, agent_transcript_path: child }),
    );
    expect(result.events[0]!.kind).toBe("subagent_stop");
    const events = extra!.events;
    expect(events.map((e) => [e.kind, e.event_id, e.agent_id, e.turn_id])).toEqual([
      [
        "turn_usage",
        "turn_usage:resp_mockmx26ybem9",
        "01a228a2-0b5c-7b01-81dd-afb8f8b3c75e",
        "01a228a2-0b67-7f80-bf02-70f63efce3f5",
      ],
      [
        "turn_usage",
        "turn_usage:resp_mockmx26ybkdd",
        "01a228a2-0b5c-7b01-81dd-afb8f8b3c75e",
        "01a228a2-0b67-7f80-bf02-70f63efce3f5",
      ],
    ]);
    const cursors = extra!.state.cursors as Record<string, unknown>;
    expect(Object.keys(cursors)).toEqual([child]);
  });

  it("attributes a subagent's failing command to the subagent", () => {
    const child = scratch.copy(SUBAGENT);
    appendFileSync(
      child,
      commandLine("call_child_fail", 1).replace(/"thread-root"/g, '"01a228a2-0b5c-7b01-81dd-afb8f8b3c75e"'),
    );
    const { extra } = enrich(hook("SubagentStop.json", { agent_transcript_path: child }));
    const error = extra!.events.find((e) => e.kind === "tool_error")!;
    expect(error.event_id).toBe("tool_error:call_child_fail");
    expect(error.agent_id).toBe("01a228a2-0b5c-7b01-81dd-afb8f8b3c75e");
  });

  it("a record from another thread read at Stop is still the subagent's", () => {
    const path = scratch.file(
      usageLine("resp_child", USAGE, {
        thread_id: "child-thread",
        session_id: "01a228a1-6c99-7571-8a54-9987d351bd37",
      }),
    );
    const { extra } = enrich(hook("Stop.json", { transcript_path: path }));
    expect(extra!.events[0]!.agent_id).toBe("child-thread");
  });

  it("at SessionEnd reads what no Stop read (a last turn whose API call failed)", () => {
    const path = scratch.copy(SAMPLE);
    const { extra } = enrich(hook("SessionEnd.json", { transcript_path: path }));
    expect(extra!.events).toHaveLength(3);
  });

  it("reads nothing for other events or without a rollout", () => {
    for (const file of [
      "PreToolUse.json",
      "UserPromptSubmit.json",
      "SubagentStart.json",
      "PreCompact.json",
    ]) {
      expect(enrich(hook(file)).extra, file).toBeUndefined();
    }
    expect(enrich(hook("Stop.json", { transcript_path: null })).extra).toBeUndefined();
    expect(codexAdapter.enrich!(normalizeCodexHook("garbage", {}), {})).toBeUndefined();
  });

  it("keeps the cursor at 0 for a rollout that does not exist yet", () => {
    const path = join(scratch.dir, "not-yet.jsonl");
    const { extra } = enrich(hook("Stop.json", { transcript_path: path }));
    expect(extra!.events).toEqual([]);
    expect((extra!.state.cursors as Record<string, unknown>)[path]).toEqual({ offset: 0, seen: [] });
  });

  it("tolerates malformed saved state", () => {
    const path = scratch.copy(SAMPLE);
    for (const state of [
      { cursors: "nope" },
      { cursors: { [path]: { offset: -5, seen: "x" } } },
      { cursors: { [path]: null, __proto__: { offset: 1 } } },
      { cursors: [] },
      JSON.parse(`{"cursors":{"__proto__":{"offset":3,"seen":[]}}}`),
    ] as Record<string, unknown>[]) {
      const { extra } = enrich(hook("Stop.json", { transcript_path: path }), state);
      expect(extra!.events).toHaveLength(3);
    }
  });

  it("keeps at most 32 cursors, dropping the oldest", () => {
    const cursors: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) cursors[`/old/${i}.jsonl`] = { offset: 0, seen: [] };
    const path = scratch.copy(SUBAGENT);
    const { extra } = enrich(hook("SubagentStop.json", { agent_transcript_path: path }), { cursors });
    const keys = Object.keys(extra!.state.cursors as Record<string, unknown>);
    expect(keys).toHaveLength(32);
    expect(keys.at(-1)).toBe(path);
    expect(keys).not.toContain("/old/0.jsonl");
  });
});
