// The shapes of history that other tools and older agents wrote, each in a small file of its own written here:
// every line read into an event or counted by its record type, the older formats read, the sessions that
// recorded no cwd matched to their project, and what a user deleted left deleted.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerSession } from "../../src/core/archive/session-registry.ts";
import { planRemoval, removeSessions } from "../../src/core/read/retention.ts";
import { listSessions } from "../../src/core/read/session-list.ts";
import { planImport } from "../../src/import/plan.ts";
import { runImport } from "../../src/import/run.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { envFor, slugOf } from "./fixture.ts";

const temp = useTempProjects("tapedeck-shapes-");

function setUp() {
  const root = temp();
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  return { home, project };
}

function write(path: string, lines: unknown[] | string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(
    path,
    typeof lines === "string"
      ? lines
      : lines.map((l) => `${typeof l === "string" ? l : JSON.stringify(l)}\n`).join(""),
  );
  return path;
}

function claudeFile(home: string, folder: string, id: string): string {
  return join(home, ".claude", "projects", folder, `${id}.jsonl`);
}

function importIt(
  home: string,
  project: string,
  providers: string[],
  extra: Partial<Parameters<typeof planImport>[0]> = {},
) {
  const plan = planImport({ providers, project, env: envFor(home), ...extra });
  return { plan, result: runImport(plan, { env: envFor(home) }) };
}

function events(
  project: string,
  provider: string,
  id: string,
): Array<{
  kind: string;
  payload: Record<string, unknown>;
  usage: Record<string, number>;
  agent_id?: string;
}> {
  const path = join(project, ".tapedeck", `${provider}-sessions`, id, "events.jsonl");
  return readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

const T = (s: number) => `2026-03-01T10:00:${String(s).padStart(2, "0")}.000Z`;

describe("every line of a Claude transcript", () => {
  it("is read when its JSON has a space after each colon (json.dumps, exporters)", () => {
    const { home, project } = setUp();
    const id = "11111111-1111-4111-8111-111111111111";
    const spaced = (v: unknown) => JSON.stringify(v).replace(/":/g, '": ').replace(/,"/g, ', "');
    write(claudeFile(home, slugOf(project), id), [
      spaced({
        type: "user",
        uuid: "u1",
        sessionId: id,
        cwd: project,
        timestamp: T(1),
        message: { role: "user", content: "hello there" },
      }),
      spaced({
        type: "assistant",
        uuid: "a1",
        parentUuid: "u1",
        sessionId: id,
        cwd: project,
        timestamp: T(2),
        requestId: "req_1",
        message: {
          id: "msg_1",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [{ type: "text", text: "hi" }],
          usage: { input_tokens: 7, output_tokens: 3 },
        },
      }),
    ]);
    const { result } = importIt(home, project, ["claude"]);
    expect(result.skipped).toEqual([]);
    const kinds = events(project, "claude", id).map((e) => e.kind);
    expect(kinds).toEqual(["session_start", "user_prompt", "assistant_message", "turn_usage"]);
  });

  it("is an event or counted by its type with its line; an unknown type is kept as a generic event", () => {
    const { home, project } = setUp();
    const id = "22222222-2222-4222-8222-222222222222";
    write(claudeFile(home, slugOf(project), id), [
      {
        type: "user",
        uuid: "u1",
        sessionId: id,
        cwd: project,
        timestamp: T(1),
        message: { role: "user", content: "go" },
      },
      { type: "progress", uuid: "p1", sessionId: id, timestamp: T(2), data: {} },
      { type: "brand-new-record", uuid: "n1", sessionId: id, timestamp: T(3), detail: "kept" },
      "{not json",
      { type: "progress", uuid: "p2", sessionId: id, timestamp: T(4), data: {} },
    ]);
    const { result } = importIt(home, project, ["claude"]);
    const file = result.imported[0]!.files[0]!;
    expect(file).toMatchObject({
      records: 5,
      mapped: 1,
      skipped: { progress: 2 },
      unknown: { "brand-new-record": 1 },
      malformed: 1,
      lines: { "skipped:progress": [2, 5], "unknown:brand-new-record": [3], malformed: [4] },
    });
    const kept = events(project, "claude", id).find((e) => e.kind === "provider_event");
    expect(kept?.payload).toMatchObject({
      type: "unknown_record",
      record_type: "brand-new-record",
      record: { detail: "kept" },
    });
    // A second import adds nothing.
    expect(importIt(home, project, ["claude"]).result.events).toBe(0);
  });

  it("counts the usage of a message without an id, and a last record the agent left without a newline", () => {
    const { home, project } = setUp();
    const id = "33333333-3333-4333-8333-333333333333";
    const path = claudeFile(home, slugOf(project), id);
    const noId = (n: number) => ({
      type: "assistant",
      uuid: `a${n}`,
      sessionId: id,
      cwd: project,
      timestamp: T(n),
      message: {
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: `answer ${n}` }],
        usage: { input_tokens: 10 * n, output_tokens: n },
      },
    });
    write(path, `${JSON.stringify(noId(1))}\n${JSON.stringify(noId(2))}`);
    importIt(home, project, ["claude"]);
    const usage = events(project, "claude", id).filter((e) => e.kind === "turn_usage");
    expect(usage.map((e) => e.usage.input_tokens)).toEqual([10, 20]);
  });

  it("counts a message a resume or fork copied into a later session once, in the session that wrote it", () => {
    const { home, project } = setUp();
    const earlier = "44444444-4444-4444-8444-444444444440";
    const later = "44444444-4444-4444-8444-444444444441";
    const answer = (session: string, uuid: string, msg: string, input: number, at: number) => ({
      type: "assistant",
      uuid,
      sessionId: session,
      cwd: project,
      timestamp: T(at),
      requestId: `req_${msg}`,
      message: {
        id: msg,
        role: "assistant",
        model: "m",
        content: [{ type: "text", text: msg }],
        usage: { input_tokens: input, output_tokens: 1 },
      },
    });
    write(claudeFile(home, slugOf(project), earlier), [answer(earlier, "old", "msg_old", 100, 1)]);
    // The resume's file starts with the earlier conversation, ids and all.
    write(claudeFile(home, slugOf(project), later), [
      answer(later, "old-copy", "msg_old", 100, 2),
      answer(later, "new", "msg_new", 5, 3),
    ]);
    importIt(home, project, ["claude"]);
    const inputs = (id: string) =>
      events(project, "claude", id)
        .filter((e) => e.kind === "turn_usage")
        .map((e) => e.usage.input_tokens);
    expect(inputs(earlier)).toEqual([100]);
    expect(inputs(later)).toEqual([5]);
    // Its text is still the later session's history.
    expect(
      events(project, "claude", later)
        .filter((e) => e.kind === "assistant_message")
        .map((e) => e.payload.text),
    ).toEqual(["msg_old", "msg_new"]);
  });

  it("attaches a workflow's subagents (subagents/workflows/<run>/) to their session", () => {
    const { home, project } = setUp();
    const id = "55555555-5555-4555-8555-555555555555";
    write(claudeFile(home, slugOf(project), id), [
      {
        type: "user",
        uuid: "u1",
        sessionId: id,
        cwd: project,
        timestamp: T(1),
        message: { role: "user", content: "run the workflow" },
      },
    ]);
    const sub = join(
      home,
      ".claude",
      "projects",
      slugOf(project),
      id,
      "subagents",
      "workflows",
      "wf-1",
      "agent-w1.jsonl",
    );
    write(sub, [
      {
        type: "user",
        uuid: "s1",
        sessionId: id,
        cwd: project,
        timestamp: T(2),
        isSidechain: true,
        message: { role: "user", content: "step" },
      },
    ]);
    importIt(home, project, ["claude"]);
    const starts = events(project, "claude", id).filter((e) => e.kind === "subagent_start");
    expect(starts.map((e) => e.agent_id)).toEqual(["w1"]);
  });
});

describe("a session that recorded no cwd", () => {
  const record = (id: string) => ({
    sessionId: id,
    timestamp: T(1),
    requestId: "req_a",
    message: { id: "msg_a", role: "assistant", model: "m", usage: { input_tokens: 1, output_tokens: 1 } },
  });

  it("goes to the project its Claude folder is named for", () => {
    const { home, project } = setUp();
    const id = "66666666-6666-4666-8666-666666666666";
    write(claudeFile(home, slugOf(project), id), [record(id)]);
    const { plan } = importIt(home, project, ["claude"]);
    expect(plan.sessions.map((s) => s.session.sessionId)).toEqual([id]);
    expect(events(project, "claude", id).map((e) => e.kind)).toEqual(["session_start", "turn_usage"]);
  });

  it("from a folder no project is named for, goes where --project says, and is reported without it", () => {
    const { home, project } = setUp();
    write(join(home, ".claude", "projects", "exported", "chat.jsonl"), [record("chat")]);
    const without = planImport({ providers: ["claude"], project, env: envFor(home) });
    expect(without.skipped).toEqual([
      {
        source: expect.stringContaining("chat.jsonl"),
        reason: expect.stringContaining("pass --project DIR"),
      },
    ]);
    const { plan } = importIt(home, project, ["claude"], { projectGiven: true });
    expect(plan.sessions).toHaveLength(1);
  });

  it("whose folder fits two projects (the slug is lossy) is reported, never guessed", () => {
    const { home, project } = setUp();
    const a = join(project, "a.b");
    const b = join(project, "a-b");
    mkdirSync(join(a, ".git"), { recursive: true });
    mkdirSync(join(b, ".git"), { recursive: true });
    const folder = slugOf(a);
    write(claudeFile(home, folder, "77777777-0000-4000-8000-00000000000a"), [
      {
        type: "user",
        uuid: "x",
        sessionId: "x",
        cwd: a,
        timestamp: T(1),
        message: { role: "user", content: "a" },
      },
    ]);
    write(claudeFile(home, folder, "77777777-0000-4000-8000-00000000000b"), [
      {
        type: "user",
        uuid: "y",
        sessionId: "y",
        cwd: b,
        timestamp: T(1),
        message: { role: "user", content: "b" },
      },
    ]);
    write(claudeFile(home, folder, "77777777-0000-4000-8000-00000000000c"), [
      record("77777777-0000-4000-8000-00000000000c"),
    ]);
    const plan = planImport({ providers: ["claude"], allProjects: true, env: envFor(home) });
    expect(plan.skipped).toEqual([
      {
        source: expect.stringContaining("00000000000c"),
        reason: expect.stringContaining("fits several projects"),
      },
    ]);
  });

  it("a Codex rollout without session_meta is read, its thread from its name", () => {
    const { home, project } = setUp();
    const thread = "019c0000-0000-7000-8000-000000000001";
    write(
      join(home, ".codex", "sessions", "2026", "03", "01", `rollout-2026-03-01T10-00-00-${thread}.jsonl`),
      [
        { timestamp: T(1), type: "event_msg", payload: { type: "user_message", message: "fix it" } },
        { timestamp: T(2), type: "event_msg", payload: { type: "agent_message", message: "fixed" } },
      ],
    );
    const none = planImport({ providers: ["codex"], project, env: envFor(home) });
    expect(none.skipped[0]?.reason).toContain("--project");
    importIt(home, project, ["codex"], { projectGiven: true });
    expect(events(project, "codex", thread).map((e) => e.kind)).toEqual([
      "session_start",
      "user_prompt",
      "assistant_message",
    ]);
  });
});

describe("Codex's newer items and older counts", () => {
  function rollout(home: string, project: string, records: unknown[]): string {
    const thread = "019c0000-0000-7000-8000-0000000000c0";
    write(
      join(home, ".codex", "sessions", "2026", "03", "01", `rollout-2026-03-01T10-00-00-${thread}.jsonl`),
      [{ timestamp: T(0), type: "session_meta", payload: { id: thread, cwd: project } }, ...records],
    );
    return thread;
  }

  it("a hosted tool (web_search_call, image_generation_call, any *_call) is a tool call with its result", () => {
    const { home, project } = setUp();
    const thread = rollout(home, project, [
      {
        timestamp: T(1),
        type: "response_item",
        payload: {
          type: "web_search_call",
          id: "ws_1",
          status: "completed",
          action: { type: "search", query: "vitest" },
        },
      },
      {
        timestamp: T(2),
        type: "response_item",
        payload: { type: "future_tool_call", id: "ft_1", status: "completed", result: "done" },
      },
    ]);
    importIt(home, project, ["codex"]);
    const calls = events(project, "codex", thread).filter(
      (e) => e.kind === "tool_call" || e.kind === "tool_result",
    );
    expect(calls.map((e) => [e.kind, e.payload.tool_name])).toEqual([
      ["tool_call", "web_search"],
      ["tool_result", "web_search"],
      ["tool_call", "future_tool"],
      ["tool_result", "future_tool"],
    ]);
  });

  it("a token_count with only last_token_usage counts each response once", () => {
    const { home, project } = setUp();
    const count = (input: number) => ({
      timestamp: T(input),
      type: "event_msg",
      payload: { type: "token_count", info: { last_token_usage: { input_tokens: input, output_tokens: 1 } } },
    });
    const thread = rollout(home, project, [count(10), count(10), count(20)]);
    importIt(home, project, ["codex"]);
    const usage = events(project, "codex", thread).filter((e) => e.kind === "turn_usage");
    expect(usage.map((e) => e.usage.input_tokens)).toEqual([10, 20]);
  });
});

describe("Gemini CLI's earlier chat files (one JSON document)", () => {
  it("are read: each prompt, answer, tool call and usage", () => {
    const { home, project } = setUp();
    const slugDir = join(home, ".gemini", "tmp", "abc");
    write(join(slugDir, ".project_root"), project);
    const id = "88888888-8888-4888-8888-888888888888";
    write(
      join(slugDir, "chats", "session-2026-03-01T10-00-88888888.json"),
      JSON.stringify({
        sessionId: id,
        projectHash: "abc",
        startTime: T(0),
        lastUpdated: T(3),
        messages: [
          { id: "m1", timestamp: T(1), type: "user", content: "list files" },
          {
            id: "m2",
            timestamp: T(2),
            type: "gemini",
            content: "here they are",
            model: "gemini-2.5-pro",
            tokens: { input: 40, output: 5, cached: 0, thoughts: 0, tool: 0, total: 45 },
            toolCalls: [
              {
                id: "t1",
                name: "ls",
                args: {},
                status: "success",
                result: [{ functionResponse: { response: { output: "a b" } } }],
              },
            ],
          },
        ],
      }),
    );
    const { result } = importIt(home, project, ["gemini"]);
    expect(result.skipped).toEqual([]);
    const kinds = events(project, "gemini", id).map((e) => e.kind);
    expect(kinds).toEqual([
      "session_start",
      "user_prompt",
      "assistant_message",
      "tool_call",
      "tool_result",
      "turn_usage",
    ]);
    expect(importIt(home, project, ["gemini"]).result.events).toBe(0);
  });
});

describe("tapedeck's own folders and what the user deleted", () => {
  it("refuses the folder whose .tapedeck is the user's tapedeck home, saying where each session is", () => {
    const { home, project } = setUp();
    const id = "99999999-9999-4999-8999-999999999999";
    write(claudeFile(home, slugOf(home), id), [
      {
        type: "user",
        uuid: "u",
        sessionId: id,
        cwd: home,
        timestamp: T(1),
        message: { role: "user", content: "x" },
      },
    ]);
    registerSession({ provider: "claude", provider_session_id: id, project_root: project }, envFor(home));
    const plan = planImport({ providers: ["claude"], project: home, env: envFor(home) });
    expect(plan.refused).toContain("tapedeck's own folder");
    expect(plan.sessions).toEqual([]);
    expect(plan.skipped).toEqual([{ source: expect.stringContaining(id), reason: `already in ${project}` }]);
  });

  it("a deleted session stays deleted, unless --include-deleted", () => {
    const { home, project } = setUp();
    const id = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
    write(claudeFile(home, slugOf(project), id), [
      {
        type: "user",
        uuid: "u",
        sessionId: id,
        cwd: project,
        timestamp: T(1),
        message: { role: "user", content: "x" },
      },
    ]);
    importIt(home, project, ["claude"]);
    const removal = planRemoval(project, { olderThanMs: 0 });
    expect(removal.remove).toHaveLength(1);
    removeSessions(project, removal, { force: true });
    expect(listSessions(project)).toHaveLength(0);
    const again = importIt(home, project, ["claude"]);
    expect(again.result.events).toBe(0);
    expect(again.plan.skipped).toEqual([
      { source: expect.stringContaining(id), reason: expect.stringContaining("--include-deleted") },
    ]);
    importIt(home, project, ["claude"], { includeDeleted: true });
    expect(listSessions(project)).toHaveLength(1);
  });
});
