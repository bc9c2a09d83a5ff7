// Which turn each response's usage belongs to, the final sweep at SessionEnd, and the prompts Claude queued:
// read from transcripts in the shapes interactive Claude (2.1.x, under a pty) was seen to write.
import { appendFileSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeConfig } from "../../../src/core/archive/config.ts";
import type { NormalizedEvent, NormalizeResult } from "../../../src/core/archive/event.ts";
import { runHook } from "../../../src/core/hook/recorder.ts";
import { claudeAdapter } from "../../../src/providers/claude/adapter.ts";
import { normalizeClaudeHook } from "../../../src/providers/claude/normalize.ts";
import { readTranscriptTail } from "../../../src/providers/claude/transcript-usage.ts";
import { newTempProject, useScratchDir } from "../../helpers/temp-project.ts";

const scratch = useScratchDir("tapedeck-claude-turns-");
const SID = "7c1e0f5a-2222-4333-8444-955566667777";
const AT = "2026-12-01T09:29:00.000Z";

const line = (record: Record<string, unknown>) => `${JSON.stringify(record)}\n`;

/** A `user` record: the prompt, or a tool result; both carry the turn's promptId. */
const user = (uuid: string, parent: string | null, promptId: string, content: unknown = "prompt") =>
  line({
    type: "user",
    uuid,
    parentUuid: parent,
    promptId,
    message: { role: "user", content },
    timestamp: AT,
  });

/** One content block of an assistant message (Claude writes one record per block, each with the full usage). */
const assistant = (uuid: string, parent: string, id: string, output = 5) =>
  line({
    type: "assistant",
    uuid,
    parentUuid: parent,
    requestId: `req_${id}`,
    message: {
      id,
      role: "assistant",
      model: "claude-opus-5-5",
      content: [{ type: "text", text: "x" }],
      usage: { input_tokens: 100, output_tokens: output },
    },
    timestamp: AT,
  });

/** A big attachment the reader does not parse (its uuid is then unknown to it). */
const snapshot = (uuid: string, parent: string) =>
  line({
    type: "attachment",
    uuid,
    parentUuid: parent,
    attachment: { type: "prompt_snapshot", systemPrompt: ["…"] },
  });

const enqueue = (content: string) =>
  line({ type: "queue-operation", operation: "enqueue", timestamp: AT, sessionId: SID, content });

const queued = (uuid: string, parent: string, prompt: unknown, extra: Record<string, unknown> = {}) =>
  line({
    parentUuid: parent,
    isSidechain: false,
    attachment: {
      type: "queued_command",
      prompt,
      source_uuid: `src-${uuid}`,
      delivery_id: `del-${uuid}`,
      commandMode: "prompt",
      origin: { kind: "human" },
      timestamp: AT,
      humanTurn: true,
      ...extra,
    },
    type: "attachment",
    uuid,
    timestamp: AT,
  });

const transcript = (content = "") => scratch.file(content);

function hook(path: string, payload: Record<string, unknown>): NormalizeResult {
  return normalizeClaudeHook(
    { session_id: SID, transcript_path: path, cwd: scratch.dir, ...payload },
    {},
    () => AT,
  );
}

/** Drives the adapter's enrich through a session's hooks, handing its state on like the recorder does. */
function session(path: string) {
  let state: Record<string, unknown> | undefined;
  const run = (payload: Record<string, unknown>): NormalizedEvent[] => {
    const out = claudeAdapter.enrich!(hook(path, payload), state);
    if (out) state = out.state;
    return out?.events ?? [];
  };
  return {
    start: () => run({ hook_event_name: "SessionStart", source: "startup" }),
    stop: (turn: string) => run({ hook_event_name: "Stop", prompt_id: turn, last_assistant_message: "x" }),
    end: (turn: string) =>
      run({ hook_event_name: "SessionEnd", prompt_id: turn, reason: "prompt_input_exit" }),
  };
}

const usageTurns = (events: NormalizedEvent[]) =>
  events.filter((e) => e.kind === "turn_usage").map((e) => [e.payload.message_id, e.turn_id]);

describe("readTranscriptTail: the turn of each message", () => {
  it("follows parentUuid to the user record's promptId, through records it does not parse", () => {
    const path = transcript(
      user("u1", null, "p1") +
        snapshot("s1", "u1") +
        assistant("a1", "s1", "m1") +
        assistant("a2", "a1", "m1", 9) +
        user("u2", "a2", "p1", [{ type: "tool_result", content: "one" }]) +
        assistant("a3", "u2", "m2") +
        user("u3", "a3", "p2") +
        assistant("a4", "u3", "m3"),
    );
    const read = readTranscriptTail(path, { offset: 0, seen: [] });
    expect(read.usages.map((u) => [u.message_id, u.turn_id, u.usage.output_tokens])).toEqual([
      ["m1", "p1", 9],
      ["m2", "p1", 5],
      ["m3", "p2", 5],
    ]);
    expect(read.turn).toBe("p2");
  });

  it("continues a read in the turn the last one ended in", () => {
    const path = transcript(user("u1", null, "p1") + assistant("a1", "u1", "m1"));
    const first = readTranscriptTail(path, { offset: 0, seen: [] });
    // Written after the Stop read: its parent was parsed by the previous read, not this one.
    appendFileSync(path, assistant("a2", "a1", "m2"));
    const second = readTranscriptTail(path, { offset: first.offset, seen: ["m1"], turn: first.turn });
    expect(second.usages.map((u) => [u.message_id, u.turn_id])).toEqual([["m2", "p1"]]);
  });

  it("forgets the turn when the file was replaced (it shrank below the offset)", () => {
    const path = transcript(assistant("a1", "x", "m1"));
    const read = readTranscriptTail(path, { offset: 1_000_000, seen: [], turn: "p-old" });
    expect(read.usages.map((u) => u.turn_id)).toEqual([undefined]);
  });
});

describe("readTranscriptTail: queued prompts", () => {
  it("reads a prompt absorbed mid-turn, in the turn that absorbed it, once per uuid", () => {
    const path = transcript(
      user("u1", null, "p1") +
        assistant("a1", "u1", "m1") +
        enqueue("SCENARIO_BASH echo two") +
        user("u2", "a1", "p1", [{ type: "tool_result", content: "one" }]) +
        snapshot("s2", "u2") +
        queued("q1", "s2", "SCENARIO_BASH echo two") +
        assistant("a2", "q1", "m2"),
    );
    const read = readTranscriptTail(path, { offset: 0, seen: [] });
    expect(read.prompts).toEqual([
      {
        uuid: "q1",
        parent_uuid: "s2",
        prompt: "SCENARIO_BASH echo two",
        timestamp: AT,
        source_uuid: "src-q1",
        turn_id: "p1",
      },
    ]);
    expect(read.usages.map((u) => [u.message_id, u.turn_id])).toEqual([
      ["m1", "p1"],
      ["m2", "p1"],
    ]);
    expect(readTranscriptTail(path, { offset: read.offset, seen: [] }).prompts).toEqual([]);
  });

  it("reads a prompt typed while a Stop hook ran: dequeued, it starts the next turn with no hook of its own", () => {
    const path = transcript(
      user("u1", null, "p1") +
        assistant("a1", "u1", "m1") +
        enqueue("SCENARIO_BASH echo two") +
        line({ type: "queue-operation", operation: "dequeue", timestamp: AT, sessionId: SID }) +
        line({ type: "system", subtype: "stop_hook_summary", uuid: "y1", parentUuid: "a1" }) +
        user("u2", "y1", "p2", "SCENARIO_BASH echo two") +
        assistant("a2", "u2", "m2") +
        user("u3", "a2", "p2", [{ type: "tool_result", content: "two" }]) +
        // A prompt typed and hooked as usual (UserPromptSubmit recorded it): no dequeue before it.
        user("u4", "u3", "p3", "SCENARIO_BASH echo three"),
    );
    const read = readTranscriptTail(path, { offset: 0, seen: [] });
    expect(read.prompts.map((p) => [p.uuid, p.prompt, p.turn_id])).toEqual([
      ["u2", "SCENARIO_BASH echo two", "p2"],
    ]);
    expect(read.usages.map((u) => [u.message_id, u.turn_id])).toEqual([
      ["m1", "p1"],
      ["m2", "p2"],
    ]);
    expect(read.dequeued).toBeUndefined();
  });

  it("carries a dequeue to the next read, and spends it on the first user record even when that is no prompt", () => {
    const path = transcript(user("u1", null, "p1") + line({ type: "queue-operation", operation: "dequeue" }));
    const first = readTranscriptTail(path, { offset: 0, seen: [] });
    expect(first.dequeued).toBe(1);
    appendFileSync(path, user("u2", "u1", "p2", "typed during the Stop hook"));
    const second = readTranscriptTail(path, { ...first, seen: [] });
    expect(second.prompts.map((p) => p.uuid)).toEqual(["u2"]);
    const meta = transcript(
      line({ type: "queue-operation", operation: "dequeue" }) +
        line({ ...JSON.parse(user("u1", null, "p1")), isMeta: true }) +
        user("u2", "u1", "p1", "hooked as usual"),
    );
    expect(readTranscriptTail(meta, { offset: 0, seen: [] }).prompts).toEqual([]);
    // `/compact` queued in print mode: the summary Claude writes comes first, then the command's echo.
    const compact = transcript(
      line({ type: "queue-operation", operation: "dequeue" }) +
        line({
          ...JSON.parse(user("u1", null, "p1", "This session is being continued")),
          isCompactSummary: true,
        }) +
        line({ type: "queue-operation", operation: "dequeue" }) +
        user("u2", "u1", "p1", "<command-name>/compact</command-name>"),
    );
    expect(readTranscriptTail(compact, { offset: 0, seen: [] }).prompts).toEqual([]);
  });

  it("takes the text of content blocks, and skips machine-made commands and malformed records", () => {
    const path = transcript(
      user("u1", null, "p1") +
        queued("q1", "u1", [
          { type: "text", text: "look at this" },
          { type: "image", source: {} },
        ]) +
        queued("q2", "u1", "<task-notification>", { commandMode: "task-notification" }) +
        queued("q3", "u1", "from a hook", { origin: { kind: "hook" } }) +
        queued("q4", "u1", 42) +
        '{"type":"attachment","attachment":{"type":"queued_command"\n',
    );
    const read = readTranscriptTail(path, { offset: 0, seen: [] });
    expect(read.prompts.map((p) => [p.uuid, p.prompt])).toEqual([["q1", "look at this"]]);
  });
});

describe("the Claude adapter: usage in the turn that got it", () => {
  /** A session whose first turn, p1, has had its response m1 counted at its Stop. */
  function afterFirstTurn() {
    const path = transcript();
    const s = session(path);
    s.start();
    appendFileSync(path, user("u1", null, "p1") + assistant("a1", "u1", "m1"));
    expect(usageTurns(s.stop("p1"))).toEqual([["m1", "p1"]]);
    return { path, s };
  }

  it("counts a response written after its Stop in its own turn, at the next Stop", () => {
    const { path, s } = afterFirstTurn();
    // p1's last response reaches the file after p1's Stop read it; then the next turn.
    appendFileSync(path, assistant("a2", "a1", "m2") + user("u2", "a2", "p2") + assistant("a3", "u2", "m3"));
    expect(usageTurns(s.stop("p2"))).toEqual([
      ["m2", "p1"],
      ["m3", "p2"],
    ]);
  });

  it("dates each response's usage by the time Claude wrote it, not by the Stop that read it", () => {
    const path = transcript();
    const s = session(path);
    s.start();
    const at = (record: string, time: string) =>
      record.replace(`"timestamp":"${AT}"`, `"timestamp":"${time}"`);
    appendFileSync(
      path,
      user("u1", null, "p1") +
        at(assistant("a1", "u1", "m1"), "2026-11-30T23:59:58.120Z") +
        at(assistant("a2", "a1", "m2"), "2026-12-01T00:00:04.5+00:00") +
        at(assistant("a3", "a2", "m3"), "not a time"),
    );
    const stamps = s
      .stop("p1")
      .filter((e) => e.kind === "turn_usage")
      .map((e) => [e.payload.message_id, e.timestamp]);
    // A stamp that does not parse leaves the hook's own time (the recorder's clock).
    expect(stamps).toEqual([
      ["m1", "2026-11-30T23:59:58.120Z"],
      ["m2", "2026-12-01T00:00:04.500Z"],
      ["m3", undefined],
    ]);
  });

  it("reads once more at SessionEnd: the last turn's late response is counted, in that turn, once", () => {
    const { path, s } = afterFirstTurn();
    appendFileSync(path, assistant("a2", "a1", "m2"));
    // SessionEnd carries a prompt id of its own (that of /exit); the response is still p1's.
    expect(usageTurns(s.end("p-exit"))).toEqual([["m2", "p1"]]);
  });

  it("records a queued prompt as a user_prompt of its turn, with an id a re-read repeats", () => {
    const path = transcript();
    const s = session(path);
    s.start();
    appendFileSync(
      path,
      user("u1", null, "p1") +
        assistant("a1", "u1", "m1") +
        enqueue("echo two") +
        user("u2", "a1", "p1", [{ type: "tool_result", content: "one" }]) +
        queued("q1", "u2", "echo two") +
        assistant("a2", "q1", "m2"),
    );
    const prompts = s.stop("p1").filter((e) => e.kind === "user_prompt");
    expect(prompts).toEqual([
      {
        kind: "user_prompt",
        event_id: "user_prompt:q1",
        turn_id: "p1",
        payload: { source: "claude-transcript", queued: true, prompt: "echo two", queued_at: AT },
        optional_fields: ["prompt"],
      },
    ]);
    // A lost cursor reads the transcript again: the same id, which the store drops as a retry.
    const again = session(path);
    again.start();
    expect(again.stop("p1").find((e) => e.kind === "user_prompt")?.event_id).toBe("user_prompt:q1");
  });

  it("reads no prompts from a subagent's transcript", () => {
    const path = transcript();
    const agentPath = transcript(
      user("u1", null, "p1") + queued("q1", "u1", "x") + assistant("a1", "q1", "m1"),
    );
    const out = claudeAdapter.enrich!(
      hook(path, {
        hook_event_name: "SubagentStop",
        prompt_id: "p9",
        agent_id: "ag1",
        agent_transcript_path: agentPath,
      }),
      { cursors: {} },
    );
    expect(out!.events.map((e) => [e.kind, e.turn_id, e.agent_id])).toEqual([["turn_usage", "p9", "ag1"]]);
  });
});

/** A project recording claude, and a way to send it hooks about one transcript and read what it recorded. */
function recorded(root: string) {
  writeConfig(root, {
    schema_version: 1,
    providers: { claude: { recording: "on", mode: "capture-only" } },
  });
  const path = join(root, "transcript.jsonl");
  writeFileSync(path, "");
  const send = (payload: Record<string, unknown>) => {
    const data = Buffer.from(
      JSON.stringify({ session_id: SID, transcript_path: path, cwd: root, ...payload }),
    );
    return runHook(claudeAdapter, { data, overflow: false }, { CLAUDE_PROJECT_DIR: root }).status;
  };
  const text = () => {
    const dir = join(root, ".tapedeck", "claude-sessions");
    const [sessionDir] = readdirSync(dir).filter((n) => !n.startsWith("."));
    return readFileSync(join(dir, sessionDir!, "events.jsonl"), "utf8");
  };
  const events = () =>
    text()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { kind: string; turn_id?: string; payload: Record<string, unknown> });
  return { path, send, text, events };
}

/** A project whose recorded session has started, then `lines` written to its transcript. */
function startedWith(prefix: string, lines: string) {
  const r = recorded(newTempProject(prefix));
  expect(r.send({ hook_event_name: "SessionStart", source: "startup" })).toBe("recorded");
  appendFileSync(r.path, lines);
  return r;
}

describe("a dequeued prompt through the recorder", () => {
  const dequeued = (prompt: string) =>
    startedWith(
      "tapedeck-claude-dequeued-",
      enqueue(prompt) +
        line({ type: "queue-operation", operation: "dequeue", timestamp: AT, sessionId: SID }) +
        user("u1", null, "p1", prompt) +
        assistant("a1", "u1", "m1"),
    );

  it("print mode queues every prompt and fires UserPromptSubmit too: the prompt is recorded once", () => {
    const r = dequeued("hi");
    expect(r.send({ hook_event_name: "UserPromptSubmit", prompt_id: "p1", prompt: "hi" })).toBe("recorded");
    expect(r.send({ hook_event_name: "Stop", prompt_id: "p1", last_assistant_message: "x" })).toBe(
      "recorded",
    );
    expect(r.send({ hook_event_name: "SessionEnd", prompt_id: "p1", reason: "other" })).toBe("recorded");
    const prompts = r.events().filter((e) => e.kind === "user_prompt");
    expect(prompts.map((e) => [e.payload.hook_event_name, e.turn_id])).toEqual([["UserPromptSubmit", "p1"]]);
  });

  it("typed while a Stop hook ran, with no UserPromptSubmit: recorded from the transcript, once", () => {
    const r = dequeued("typed during the Stop hook");
    expect(r.send({ hook_event_name: "Stop", prompt_id: "p1", last_assistant_message: "x" })).toBe(
      "recorded",
    );
    r.send({ hook_event_name: "SessionEnd", prompt_id: "p-exit", reason: "other" });
    const prompts = r.events().filter((e) => e.kind === "user_prompt");
    expect(prompts.map((e) => [e.payload.prompt, e.payload.queued, e.turn_id])).toEqual([
      ["typed during the Stop hook", true, "p1"],
    ]);
  });
});

describe("a queued prompt through the recorder", () => {
  it("reaches the archive redacted, like any prompt", () => {
    const secret = ["sk", "-ant-api03-", "Qx7".repeat(31), "AA"].join("");
    const r = startedWith(
      "tapedeck-claude-queued-",
      user("u1", null, "p1") + queued("q1", "u1", `use ${secret} now`),
    );
    expect(r.send({ hook_event_name: "Stop", prompt_id: "p1", last_assistant_message: "x" })).toBe(
      "recorded",
    );
    expect(r.text()).not.toContain(secret);
    const prompt = r.events().find((e) => e.kind === "user_prompt");
    expect(prompt).toMatchObject({ event_id: "user_prompt:q1", turn_id: "p1", payload: { queued: true } });
    expect(prompt!.payload.prompt).toMatch(/^use .*REDACTED.* now$/);
  });
});
