// Claude Code's transcripts as `tapedeck import` reads them: the events the hooks would have recorded (the same
// ids and payloads where the transcript holds what they are made of), usage as the hook path reads it, and a
// read split across two imports giving the events of one.
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, copyFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeHistory } from "../../../src/providers/claude/history.ts";
import { normalizeClaudeHook } from "../../../src/providers/claude/normalize.ts";
import { readNewUsage } from "../../../src/providers/claude/transcript-usage.ts";
import type { HistorySkip } from "../../../src/providers/history.ts";
import { SKIP } from "../../../src/providers/history-files.ts";
import { providerFixtures } from "../../helpers/fixtures.ts";
import { useTempProjects } from "../../helpers/temp-project.ts";
import {
  expectEverySplitAlike,
  expectHookEvents,
  expectHookUsage,
  expectOnlyHooksWrite,
  expectResumedAlike,
} from "../history-contract.ts";
import { linesOf, mainFile, mapFile, mapLines, session, tokenSums } from "../history-helpers.ts";

const { path: fixturePath, json: fixture } = providerFixtures("claude");
const SAMPLE = fixturePath("transcript.sample.jsonl");
const SUBAGENT = fixturePath("transcript.subagent.sample.jsonl");
const COMPACTED = fixturePath("transcript.compacted.sample.jsonl");
const SID = "2b78a515-1a4e-4949-93a8-4a58deaec546";
const temp = useTempProjects("tapedeck-claude-history-");

const main = (path = SAMPLE) => mainFile(path);

describe("a Claude transcript as events", () => {
  const { events, malformed } = mapFile(claudeHistory, session("claude", SID), SAMPLE);

  it("is the session's start, prompt, answers, tool call and result, and one usage per message", () => {
    expect(malformed).toBe(0);
    expect(events.map((e) => e.kind)).toEqual([
      "session_start",
      "user_prompt",
      "assistant_message",
      "tool_call",
      "tool_result",
      "turn_usage",
      "assistant_message",
      "turn_usage",
    ]);
    expect(events[0]!.payload).toMatchObject({ source: "import", cwd: "/home/user/project" });
    for (const e of events.slice(1)) expect(e.turn_id).toBe("bd8fd621-730c-4394-a85c-842400be2e79");
    // Each event carries the time Claude wrote its record, not the time of the import.
    expect(events[3]!.timestamp).toBe("2026-11-29T18:40:22.948Z");
  });

  it("gives the prompt, tool call and tool result the hooks' own ids and payload fields", () => {
    const hookEvent = (file: string) => normalizeClaudeHook(fixture(file), {}).events[0]!;
    expectHookEvents(events, hookEvent, (kind, payload) => {
      // tool_input on a result is left out (the call beside it has it); duration_ms is the hook's alone.
      const { tool_input: _in, duration_ms: _ms, ...withoutInput } = payload;
      return kind === "tool_result" ? withoutInput : payload;
    });
  });

  it("counts usage as the hook path does: one turn_usage per message id, the same ids and sums", () => {
    const hook = readNewUsage(SAMPLE, 0, []).usages.map((u) => ({ id: u.message_id, usage: u.usage }));
    const usage = expectHookUsage(events, hook);
    expect(tokenSums(usage)).toMatchObject({ input_tokens: 5742, output_tokens: 38 });
  });

  it("takes a message's counts from its last block, as the hook path does (the first may be partial)", () => {
    const block = (output: number, uuid: string) =>
      JSON.stringify({
        type: "assistant",
        uuid,
        timestamp: "2026-11-29T18:40:22.000Z",
        requestId: "req_1",
        message: {
          id: "msg_1",
          model: "m",
          content: [{ type: "text", text: uuid }],
          usage: { input_tokens: 5, output_tokens: output },
        },
      });
    const lines = [block(1, "a"), block(40, "b")];
    const usage = mapLines(claudeHistory, session("claude", "s"), main(), lines).events.filter(
      (e) => e.kind === "turn_usage",
    );
    expect(usage.map((e) => e.usage?.output_tokens)).toEqual([40]);
  });

  it.each([
    ["sample", SAMPLE],
    ["compacted", COMPACTED],
  ])("read in two imports (%s), at every split, gives the events of one", (_n, path) => {
    expectEverySplitAlike(claudeHistory, session("claude", SID), path, false);
  });

  it.each([
    ["sample", SAMPLE],
    ["compacted", COMPACTED],
  ])("stopped anywhere and resumed from its cursor (%s), gives no event twice", (_n, path) => {
    expectResumedAlike(claudeHistory, session("claude", SID), path);
  });

  it("tells the hooks' own events from its own: a turn's Stop, a resume, an end, a notification", () => {
    const files = ["Stop.json", "SessionStart.resume.json", "SessionEnd.json", "Notification.json"];
    expectOnlyHooksWrite(
      claudeHistory,
      files.flatMap((f) => normalizeClaudeHook(fixture(f), {}).events),
    );
  });

  it("a compaction is one compaction event with its trigger, summary and the tokens before it", () => {
    const { events } = mapFile(claudeHistory, session("claude", "c"), COMPACTED);
    const compactions = events.filter((e) => e.kind === "compaction");
    expect(compactions).toHaveLength(1);
    expect(compactions[0]!.payload).toMatchObject({
      hook_event_name: "PostCompact",
      trigger: "manual",
      pre_tokens: 3043,
      phase: "post",
    });
    expect(String(compactions[0]!.payload.compact_summary)).toContain(
      "continued from a previous conversation",
    );
    // The summary, the caveat and the /compact echo are Claude's own records, not prompts.
    expect(events.filter((e) => e.kind === "user_prompt").map((e) => e.payload.prompt)).toEqual([
      "SCENARIO_BASH run echo hello",
      "SCENARIO_TEXT after compact",
    ]);
  });
});

describe("a subagent's transcript", () => {
  it("is the subagent's start (with its type from the meta file), its events, and its stop with its answer", () => {
    const dir = temp();
    const path = join(dir, "agent-aaffe666145fc9347.jsonl");
    copyFileSync(SUBAGENT, path);
    const meta = join(dir, "agent-aaffe666145fc9347.meta.json");
    writeFileSync(meta, JSON.stringify({ agentType: "general-purpose", finished: true }));
    const file = { path, role: "subagent" as const, agentId: "aaffe666145fc9347", meta };
    const { events } = mapLines(
      claudeHistory,
      session("claude", "acc5acad-2490-47d5-a323-cd06330e0e14"),
      file,
      linesOf(path),
    );
    expect(events[0]).toMatchObject({
      kind: "subagent_start",
      agent_id: "aaffe666145fc9347",
      payload: { agent_type: "general-purpose" },
    });
    expect(events.at(-1)).toMatchObject({
      kind: "subagent_stop",
      payload: { last_assistant_message: "Subagent finished: from-subagent", agent_type: "general-purpose" },
    });
    for (const e of events) expect(e.agent_id).toBe("aaffe666145fc9347");
    expect(events.filter((e) => e.kind === "turn_usage")).toHaveLength(2);
  });
});

describe("records a hook would have reported otherwise", () => {
  const record = (r: Record<string, unknown>) =>
    JSON.stringify({ uuid: `u${Math.random()}`, timestamp: "2026-11-29T18:40:22.000Z", ...r });

  it("an API error is the turn's failure (StopFailure), counts no usage, and is no answer", () => {
    const lines = [
      record({ type: "user", promptId: "p1", message: { role: "user", content: "hi" } }),
      record({
        type: "assistant",
        isApiErrorMessage: true,
        error: "invalid_request",
        message: {
          id: "e1",
          model: "<synthetic>",
          content: [{ type: "text", text: "API Error: 400 nope" }],
          usage: { input_tokens: 0, output_tokens: 0 },
        },
      }),
      record({
        type: "assistant",
        message: {
          id: "s1",
          model: "<synthetic>",
          content: [{ type: "text", text: "No response requested." }],
        },
      }),
    ];
    const { events } = mapLines(claudeHistory, session("claude", "s"), main(), lines);
    expect(events.map((e) => e.kind)).toEqual(["session_start", "user_prompt", "provider_event"]);
    expect(events[2]!.payload).toMatchObject({
      hook_event_name: "StopFailure",
      failure: true,
      error: "invalid_request",
      last_assistant_message: "API Error: 400 nope",
    });
  });

  it("a tool result marked is_error is a tool_error with the error text", () => {
    const lines = [
      record({
        type: "assistant",
        message: {
          id: "m1",
          content: [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "exit 3" } }],
        },
      }),
      record({
        type: "user",
        promptId: "p1",
        message: {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "t1", content: "Exit code 3\noops", is_error: true }],
        },
      }),
    ];
    const { events } = mapLines(claudeHistory, session("claude", "s"), main(), lines);
    expect(events.at(-1)).toMatchObject({
      kind: "tool_error",
      payload: { tool_name: "Bash", tool_use_id: "t1", error: "Exit code 3\noops", success: false },
    });
  });

  it("a prompt queued while Claude was busy is a user_prompt, as the hook path records it", () => {
    const lines = [
      record({
        type: "attachment",
        attachment: { type: "queued_command", prompt: "and then this", commandMode: "prompt" },
      }),
    ];
    const { events } = mapLines(claudeHistory, session("claude", "s"), main(), lines);
    expect(events.at(-1)).toMatchObject({
      kind: "user_prompt",
      payload: { queued: true, prompt: "and then this" },
    });
  });

  it("a line that is not a record is counted, never thrown; a big record of another type is not parsed", () => {
    const lines = [
      "{not json",
      "[1,2]",
      "42",
      record({ type: "api-request-blob", content: "x".repeat(1000) }),
    ];
    const { events, malformed } = mapLines(claudeHistory, session("claude", "s"), main(), lines);
    expect(events).toEqual([]);
    expect(malformed).toBe(3);
  });
});

describe("finding Claude's sessions", () => {
  function layout() {
    const home = temp();
    const slug = join(home, ".claude", "projects", "-home-user-project");
    mkdirSync(join(slug, SID, "subagents"), { recursive: true });
    copyFileSync(SAMPLE, join(slug, `${SID}.jsonl`));
    copyFileSync(SUBAGENT, join(slug, SID, "subagents", "agent-aaffe666145fc9347.jsonl"));
    return { home, slug };
  }
  const discover = (env: Record<string, string>) => {
    const skipped: HistorySkip[] = [];
    const found = claudeHistory.discover({ env, skip: (s) => skipped.push(s) });
    return { found, skipped };
  };

  it("finds each session with its cwd (from its records), its times and its subagents' files", () => {
    const { home, slug } = layout();
    const { found, skipped } = discover({ HOME: home });
    expect(skipped).toEqual([]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      sessionId: SID,
      cwd: "/home/user/project",
      firstAt: "2026-11-29T18:40:22.689Z",
      files: [
        { path: join(slug, `${SID}.jsonl`), role: "main" },
        { role: "subagent", agentId: "aaffe666145fc9347", firstAt: "2026-11-29T18:40:36.259Z" },
      ],
    });
  });

  it("reads CLAUDE_CONFIG_DIR instead of the home's directories when it is set", () => {
    const { home } = layout();
    expect(discover({ HOME: temp(), CLAUDE_CONFIG_DIR: join(home, ".claude") }).found).toHaveLength(1);
    expect(discover({ HOME: home, CLAUDE_CONFIG_DIR: temp() }).found).toHaveLength(0);
  });

  it("never follows a symlink nor opens a FIFO or another user's file: each is reported, with why", () => {
    const { home, slug } = layout();
    const outside = join(temp(), "secret.jsonl");
    copyFileSync(SAMPLE, outside);
    symlinkSync(outside, join(slug, "11111111-1111-1111-1111-111111111111.jsonl"));
    execFileSync("mkfifo", [join(slug, "22222222-2222-2222-2222-222222222222.jsonl")]);
    symlinkSync(temp(), join(slug, SID, "subagents", "linked"));
    const expected: HistorySkip[] = [
      { source: join(slug, "11111111-1111-1111-1111-111111111111.jsonl"), reason: SKIP.symlink },
      { source: join(slug, "22222222-2222-2222-2222-222222222222.jsonl"), reason: SKIP.special },
      // Subagents' folders are walked (workflows nest them): a linked one is reported, never followed.
      { source: join(slug, SID, "subagents", "linked"), reason: SKIP.symlink },
    ];
    if (process.getuid?.() === 0) {
      const theirs = join(slug, "33333333-3333-3333-3333-333333333333.jsonl");
      copyFileSync(SAMPLE, theirs);
      chownSync(theirs, 65534, 65534);
      chmodSync(theirs, 0o644);
      expected.push({ source: theirs, reason: SKIP.otherUser });
    }
    const { found, skipped } = discover({ HOME: home });
    expect(found.map((s) => s.sessionId)).toEqual([SID]);
    expect(skipped).toEqual(expect.arrayContaining(expected));
    expect(skipped).toHaveLength(expected.length);
  });

  it("a session whose records name no cwd is found with none (the import reports it)", () => {
    const { slug, home } = layout();
    writeFileSync(
      join(slug, "44444444-4444-4444-4444-444444444444.jsonl"),
      '{"type":"summary","summary":"x"}\n',
    );
    const none = discover({ HOME: home }).found.find((s) => s.sessionId.startsWith("4444"));
    expect(none?.cwd).toBeNull();
  });
});
