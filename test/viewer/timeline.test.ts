import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { findSession, inspectSession } from "../../src/core/read/sessions.ts";
import { usageFactsOf } from "../../src/providers/usage-facts.ts";
import { BUILTIN_PRICES } from "../../src/usage/pricing.ts";
import { writeMarkdown } from "../../src/viewer/markdown.ts";
import {
  type Agent,
  readTimelinePage,
  streamTurns,
  type ToolCall,
  type Turn,
} from "../../src/viewer/timeline.ts";
import { PLAIN, renderTurn } from "../../src/viewer/turn-text.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

const clock = eventClock();
const { tick, ev } = clock;

function record(root: string, events: NormalizedEvent[]): string {
  return recordEvents(spec(root), events, tick).sessionDir;
}

function turns(dir: string, options = {}): Turn[] {
  const out: Turn[] = [];
  streamTurns(dir, (t) => out.push(t), options);
  return out;
}

const tools = (t: Turn) => t.items.filter((i): i is ToolCall => i.type === "tool");

describe("turns", () => {
  it("pairs each call with its result by tool_use_id, in any order, with exit code, error and duration", () => {
    const dir = record(project(), [
      ev("session_start", "s", { source: "startup" }),
      ev("user_prompt", "p1", { prompt: "run two things" }, { turn_id: "t1" }),
      ev("tool_call", "c1", { tool_name: "Bash", tool_input: { command: "ls -la" }, tool_use_id: "u1" }),
      ev("tool_call", "c2", { tool_name: "Read", tool_input: { file_path: "/a/b.ts" }, tool_use_id: "u2" }),
      ev("tool_result", "r2", { tool_name: "Read", tool_response: "line 1\nline 2", tool_use_id: "u2" }),
      ev("tool_error", "r1", {
        tool_name: "Bash",
        tool_use_id: "u1",
        error: "Exit code 2\nls: no such file",
        duration_ms: 42,
      }),
      ev("assistant_message", "a1", { text: "Done." }),
      ev("user_prompt", "p2", { prompt: "again" }, { turn_id: "t2" }),
    ]);
    const [first, second] = turns(dir);
    expect(first!.prompt!.text.text).toBe("run two things");
    const [bash, read] = tools(first!);
    expect(bash).toMatchObject({ name: "Bash", input: "ls -la", tool_use_id: "u1" });
    expect(bash!.result).toMatchObject({ ok: false, exit_code: 2, duration_ms: 42 });
    expect(bash!.result!.excerpt.text).toContain("no such file");
    expect(read!.input).toBe("/a/b.ts");
    // No duration in the payload: the time from the call to its result (100 ms apart here).
    expect(read!.result).toMatchObject({ ok: true, exit_code: null, duration_ms: 100 });
    expect(first).toMatchObject({ tool_calls: 2, tool_errors: 1, answer: { text: { text: "Done." } } });
    // The session start opened the first turn; the second turn starts at its prompt.
    expect(first!.items[0]).toMatchObject({ type: "mark", kind: "session_start" });
    expect(second!.prompt!.text.text).toBe("again");
    expect(second!.index).toBe(2);
  });

  it("shows each text of the agent where it was said: before its tool call, and the answer after the last one", () => {
    // An imported transcript holds each text block (the hooks only the last): they used to merge into one
    // answer, printed above the calls it came before and after (issue 41, item 6).
    const root = project();
    const dir = record(root, [
      ev("user_prompt", "p", { prompt: "look around" }),
      ev("assistant_message", "a1", { text: "First I list the files." }),
      ev("tool_call", "c1", { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "u1" }),
      ev("tool_result", "r1", { tool_name: "Bash", tool_response: "a.txt", tool_use_id: "u1" }),
      ev("assistant_message", "a2", { text: "Now I read it." }),
      ev("tool_call", "c2", { tool_name: "Read", tool_input: { file_path: "a.txt" }, tool_use_id: "u2" }),
      ev("tool_result", "r2", { tool_name: "Read", tool_response: "hello", tool_use_id: "u2" }),
      ev("assistant_message", "a3", { text: "It says hello." }),
      ev("assistant_message", "a4", { text: "That is all." }),
    ]);
    const [turn] = turns(dir);
    expect(turn!.items.map((i) => (i.type === "text" ? `said: ${i.text.text}` : i.type))).toEqual([
      "said: First I list the files.",
      "tool",
      "said: Now I read it.",
      "tool",
    ]);
    expect(turn!.answer!.text.text).toBe("It says hello.\n\nThat is all.");
    // Each line after its time and offset (24 columns).
    const shown = renderTurn(turn!, { style: PLAIN, origin: null })
      .map((l) => l.slice(24).trim())
      .filter((l) => /^(prompt|said|answer|Bash|Read|│)/.test(l));
    expect(shown).toEqual([
      "prompt",
      "│ look around",
      "said",
      "│ First I list the files.",
      "Bash  ls",
      "│ a.txt",
      "said",
      "│ Now I read it.",
      "Read  a.txt",
      "│ hello",
      "answer",
      "│ It says hello.",
      "│",
      "│ That is all.",
    ]);
    const parts: string[] = [];
    writeMarkdown(inspectSession(findSession(root, "last")), (t) => parts.push(t));
    const md = parts.join("");
    const at = (t: string) => md.indexOf(t);
    expect(at("First I list the files.")).toBeLessThan(at("`ls`"));
    expect(at("`ls`")).toBeLessThan(at("Now I read it."));
    expect(at("Now I read it.")).toBeLessThan(at("`a.txt`"));
    expect(at("`a.txt`")).toBeLessThan(at("**Answer**"));
  });

  it("shows a task notification as the agent's own event inside the turn, never as a prompt or a turn", () => {
    const dir = record(project(), [
      ev("user_prompt", "p", { prompt: "run it in the background" }),
      ev("tool_call", "c1", { tool_name: "Agent", tool_input: { prompt: "x" }, tool_use_id: "u1" }),
      ev("tool_result", "r1", { tool_name: "Agent", tool_response: "launched", tool_use_id: "u1" }),
      ev("assistant_message", "a1", { text: "Launched it." }),
      ev("provider_event", "n1", {
        hook_event_name: "UserPromptSubmit",
        task_notification: true,
        prompt:
          '<task-notification>\n<task-id>abc</task-id>\n<status>completed</status>\n<summary>Agent "x" finished</summary>\n</task-notification>',
      }),
      ev("assistant_message", "a2", { text: "It finished." }),
    ]);
    const all = turns(dir);
    expect(all).toHaveLength(1);
    const [turn] = all;
    expect(
      turn!.items.map((i) =>
        i.type === "tool" ? "tool" : i.type === "text" ? i.text.text : i.type === "mark" ? i.text : i.type,
      ),
    ).toEqual(["tool", "Launched it.", 'task notification: Agent "x" finished (completed)']);
    expect(turn!.answer!.text.text).toBe("It finished.");
  });

  it("shows a Gemini tool result as the text the user saw, with the exit code it names, not as raw JSON", () => {
    const dir = record(project(), [
      ev("user_prompt", "p", { prompt: "x" }),
      ev("tool_call", "c1", { tool_name: "run_shell_command", tool_input: { command: "echo hi" } }),
      ev("tool_result", "r1", {
        tool_name: "run_shell_command",
        tool_response: {
          llmContent: "<untrusted_context>\nOutput: hi\nProcess Group PGID: 7\n</untrusted_context>",
          returnDisplay: "hi",
        },
      }),
      ev("tool_call", "c2", { tool_name: "run_shell_command", tool_input: { command: "exit 3" } }),
      ev("tool_result", "r2", {
        tool_name: "run_shell_command",
        tool_response: { llmContent: "Output: oops\nExit Code: 3\nProcess Group PGID: 8" },
      }),
    ]);
    const [ok, failed] = tools(turns(dir)[0]!);
    expect(ok!.result!.excerpt.text).toBe("hi");
    expect(failed!.result).toMatchObject({ exit_code: 3 });
    expect(failed!.result!.excerpt.text).toBe("Output: oops\nExit Code: 3\nProcess Group PGID: 8");
  });

  it("pairs results without an id (Gemini) with the oldest open call of that tool, and merges a second report (Codex)", () => {
    const dir = record(project(), [
      ev("user_prompt", "p", { prompt: "x" }),
      ev("tool_call", "c1", { tool_name: "run_shell_command", tool_input: { command: "a" } }),
      ev("tool_call", "c2", { tool_name: "run_shell_command", tool_input: { command: "b" } }),
      ev("tool_result", "r1", { tool_name: "run_shell_command", tool_response: { output: "A" } }),
      ev("tool_result", "r2", { tool_name: "run_shell_command", tool_response: { output: "B" } }),
      ev("tool_call", "c3", { tool_name: "Bash", tool_input: { command: "false" }, tool_use_id: "call_9" }),
      ev("tool_result", "r3", { tool_name: "Bash", tool_response: "", tool_use_id: "call_9" }),
      ev("tool_error", "e3", {
        tool_name: "Bash",
        tool_use_id: "call_9",
        exit_code: 1,
        error: "Exit code 1",
      }),
      ev("tool_result", "orphan", { tool_name: "Grep", tool_response: "hit", tool_use_id: "gone" }),
    ]);
    const [t] = turns(dir);
    const [a, b, codex, orphan] = tools(t!);
    expect(a!.result!.excerpt.text).toBe("A");
    expect(b!.result!.excerpt.text).toBe("B");
    expect(codex!.result).toMatchObject({ ok: false, exit_code: 1 });
    expect(codex!.result!.excerpt.text).toBe("Exit code 1");
    expect(t!.tool_errors).toBe(1);
    expect(orphan).toMatchObject({ name: "Grep", sequence: null, result: { ok: true } });
  });

  it("a result after the next prompt leaves the turn already handed out as it was", () => {
    const dir = record(project(), [
      ev("user_prompt", "p1", { prompt: "one" }),
      ev("tool_call", "c", { tool_name: "Bash", tool_input: { command: "sleep 9" }, tool_use_id: "late" }),
      ev("user_prompt", "p2", { prompt: "two" }),
      ev("tool_result", "r", { tool_name: "Bash", tool_response: "done", tool_use_id: "late" }),
    ]);
    const [first, second] = turns(dir);
    expect(tools(first!)[0]).toMatchObject({ tool_use_id: "late", result: null });
    expect(tools(second!)[0]).toMatchObject({ tool_use_id: "late", sequence: null, result: { ok: true } });
  });

  it("nests a subagent under its provider's spawner call, not under a later call of another tool", () => {
    const dir = record(project(), [
      ev("user_prompt", "p", { prompt: "delegate" }),
      ev("tool_call", "a", { tool_name: "Agent", tool_input: { prompt: "look" }, tool_use_id: "ua" }),
      ev("tool_call", "b", { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "ub" }),
      ev("subagent_start", "ss", { agent_id: "ag1" }, { agent_id: "ag1" }),
    ]);
    const withNames = tools(turns(dir, { subagentTools: ["Agent"] })[0]!);
    expect(withNames.map((c) => c.agents.length)).toEqual([1, 0]);
    // Without the provider's names the latest running call is the best guess.
    const without = tools(turns(dir)[0]!);
    expect(without.map((c) => c.agents.length)).toEqual([0, 1]);
  });

  it("nests a subagent, its calls and its usage under the call that spawned it", () => {
    const dir = record(project(), [
      ev("user_prompt", "p", { prompt: "delegate" }),
      ev("tool_call", "c1", { tool_name: "Agent", tool_input: { description: "look" }, tool_use_id: "ua" }),
      ev("subagent_start", "ss", { agent_id: "ag1", agent_type: "general-purpose" }, { agent_id: "ag1" }),
      // Codex fires UserPromptSubmit in the child thread: the subagent's task, not a new turn.
      ev("user_prompt", "sp", { prompt: "look around" }, { agent_id: "ag1" }),
      ev(
        "tool_call",
        "c2",
        { tool_name: "Bash", tool_input: { command: "pwd" }, tool_use_id: "ub" },
        { agent_id: "ag1" },
      ),
      ev(
        "tool_result",
        "r2",
        { tool_name: "Bash", tool_response: { stdout: "/x" }, tool_use_id: "ub" },
        { agent_id: "ag1" },
      ),
      ev("subagent_stop", "st", { agent_id: "ag1", last_assistant_message: "found /x" }, { agent_id: "ag1" }),
      ev(
        "turn_usage",
        "u1",
        {},
        {
          agent_id: "ag1",
          usage: {
            source: "claude-transcript",
            model: "claude-opus-5-5",
            message_id: "m1",
            input_tokens: 100,
            output_tokens: 10,
          },
        },
      ),
      ev("tool_result", "r1", { tool_name: "Agent", tool_response: "found /x", tool_use_id: "ua" }),
      ev("assistant_message", "a", { text: "It is /x" }),
      ev(
        "turn_usage",
        "u2",
        {},
        {
          usage: {
            source: "claude-transcript",
            model: "claude-opus-5-5",
            message_id: "m2",
            input_tokens: 200,
            output_tokens: 20,
            cache_creation_input_tokens: 50,
          },
        },
      ),
      // The same response reported again (the proxy saw it too): counted once.
      ev(
        "turn_usage",
        "u2-proxy",
        {},
        {
          usage: {
            source: "proxy",
            model: "claude-opus-5-5",
            message_id: "m2",
            input_tokens: 200,
            output_tokens: 20,
          },
        },
      ),
    ]);
    const [t] = turns(dir);
    expect(t!.items).toHaveLength(1);
    const agentCall = t!.items[0] as ToolCall;
    expect(agentCall.name).toBe("Agent");
    const agent = agentCall.agents[0] as Agent;
    expect(agent).toMatchObject({
      agent_id: "ag1",
      agent_type: "general-purpose",
      prompt: { text: "look around" },
      answer: { text: "found /x" },
    });
    expect(turns(dir)).toHaveLength(1);
    const inner = agent.items[0] as ToolCall;
    expect(inner).toMatchObject({
      name: "Bash",
      input: "pwd",
      result: { ok: true, excerpt: { text: "/x" } },
    });
    expect(agent.usage).toMatchObject({ input_tokens: 100, output_tokens: 10 });
    expect(t!.usage).toMatchObject({ input_tokens: 200, output_tokens: 20, cache_creation_input_tokens: 50 });
    expect(t!.usage.sources).toEqual(["claude-transcript"]);
    expect(t!.total_usage).toMatchObject({
      input_tokens: 300,
      output_tokens: 30,
      cache_creation_input_tokens: 50,
    });
    // 4 and 20 USD per million, cache writes at 5: the subagent's tokens are in the turn's estimate.
    const usd = (300 * 4 + 30 * 20 + 50 * 5) / 1e6;
    expect(t!.cost.usd).toBeCloseTo(usd, 12);
    expect(t!.cost.unpriced_models).toEqual([]);
  });

  it("gives a turn and its subagent their counts in the one meaning, and prices those", () => {
    // Gemini: a response's cache reads and thinking tokens come from the chat file after its hook's input.
    const dir = record(project(), [
      ev("user_prompt", "p", { prompt: "delegate" }),
      ev("tool_call", "c1", { tool_name: "Agent", tool_input: {}, tool_use_id: "ua" }),
      ev("subagent_start", "ss", { agent_id: "ag1" }, { agent_id: "ag1" }),
      ev(
        "turn_usage",
        "u1",
        {},
        {
          agent_id: "ag1",
          usage: { source: "gemini-hook", model: "gemini-2.5-pro", input_tokens: 800, output_tokens: 30 },
        },
      ),
      ev(
        "turn_usage",
        "u1c",
        {},
        {
          agent_id: "ag1",
          usage: {
            source: "gemini-chat",
            model: "gemini-2.5-pro",
            cache_read_input_tokens: 500,
            reasoning_output_tokens: 4,
          },
        },
      ),
      ev("subagent_stop", "st", { agent_id: "ag1" }, { agent_id: "ag1" }),
      ev("tool_result", "r1", { tool_name: "Agent", tool_response: "ok", tool_use_id: "ua" }),
      ev(
        "turn_usage",
        "u2",
        {},
        { usage: { source: "gemini-hook", model: "gemini-2.5-pro", input_tokens: 2000, output_tokens: 62 } },
      ),
      ev(
        "turn_usage",
        "u2c",
        {},
        {
          usage: {
            source: "gemini-chat",
            model: "gemini-2.5-pro",
            cache_read_input_tokens: 1500,
            reasoning_output_tokens: 9,
          },
        },
      ),
    ]);
    const [t] = turns(dir, { facts: usageFactsOf("gemini") });
    const agent = (t!.items[0] as ToolCall).agents[0] as Agent;
    expect(agent.usage).toMatchObject({ input_tokens: 300, output_tokens: 34, cache_read_input_tokens: 500 });
    expect(t!.usage).toMatchObject({ input_tokens: 500, output_tokens: 71, cache_read_input_tokens: 1500 });
    expect(t!.total_usage).toMatchObject({
      input_tokens: 800,
      output_tokens: 105,
      cache_read_input_tokens: 2000,
    });
    // Each token once at its own rate: the cache reads at the cache price only, the thinking as output.
    const p = BUILTIN_PRICES.models["gemini-2.5-pro"]!;
    expect(t!.cost.usd).toBeCloseTo((800 * p.input + 105 * p.output + 2000 * p.cache_read!) / 1e6, 12);
  });

  it("makes a failed turn visible and prices an unknown model as unknown, not zero", () => {
    const dir = record(project(), [
      ev("user_prompt", "p", { prompt: "x" }),
      ev(
        "turn_usage",
        "u",
        {},
        { usage: { source: "proxy", model: "mystery-1", input_tokens: 5, output_tokens: 1 } },
      ),
      ev("provider_event", "f", { hook_event_name: "StopFailure", error: "rate_limit", failure: true }),
    ]);
    const [t] = turns(dir);
    expect(t!.failure).toBe("rate_limit");
    expect(t!.items.at(-1)).toMatchObject({ type: "mark", failure: true, text: "turn failed: rate_limit" });
    expect(t!.cost).toMatchObject({ usd: null, unpriced_models: ["mystery-1"] });
  });

  it("bounds huge outputs in excerpts, and keeps them whole with full", () => {
    const big = `${"x".repeat(1_000)}\n`.repeat(12);
    const dir = record(project(), [
      ev("user_prompt", "p", { prompt: "p".repeat(5_000) }),
      ev("tool_call", "c", { tool_name: "Bash", tool_input: { command: "cat big" }, tool_use_id: "u" }),
      ev("tool_result", "r", { tool_name: "Bash", tool_response: { stdout: big }, tool_use_id: "u" }),
    ]);
    const [t] = turns(dir, { excerptChars: 300 });
    const r = tools(t!)[0]!.result!;
    expect(r.excerpt.text).toHaveLength(300);
    expect(r.excerpt.omitted_chars).toBe(big.length - 300);
    expect(t!.prompt!.text).toEqual({ text: "p".repeat(300), omitted_chars: 4_700 });
    const [whole] = turns(dir, { full: true });
    expect(tools(whole!)[0]!.result!.excerpt).toEqual({ text: big, omitted_chars: 0 });
  });
});

function manyTurns(root: string, n: number): string {
  const events: NormalizedEvent[] = [];
  for (let i = 1; i <= n; i += 1) {
    events.push(
      ev("user_prompt", `p${i}`, { prompt: `prompt ${i}` }),
      ev("tool_call", `c${i}`, {
        tool_name: "Bash",
        tool_input: { command: `echo ${i}` },
        tool_use_id: `u${i}`,
      }),
      ev("tool_result", `r${i}`, {
        tool_name: "Bash",
        tool_response: { stdout: String(i) },
        tool_use_id: `u${i}`,
      }),
      ev("assistant_message", `a${i}`, { text: `answer ${i}` }),
    );
  }
  return record(root, events);
}

describe("pages", () => {
  it("reads a session page by page from byte offsets, the pages together being the whole session", () => {
    const dir = manyTurns(project(), 10);
    const whole = readTimelinePage(dir, { limit: 1_000 });
    expect(whole.events).toHaveLength(40);
    expect(whole.nextOffset).toBeNull();
    const seen: number[] = [];
    let from: number | null = 0;
    let pages = 0;
    while (from !== null) {
      const page = readTimelinePage(dir, { fromOffset: from, limit: 6 });
      pages += 1;
      seen.push(...page.events.map((e) => e.sequence));
      if (page.nextOffset !== null) {
        expect(page.events).toHaveLength(6);
        // Each page ends on a line boundary: the next event starts exactly there.
        expect(page.events.at(-1)!.offset + page.events.at(-1)!.bytes).toBe(page.nextOffset);
      }
      if (from > 0 && page.events[0]!.kind !== "user_prompt") expect(page.turns[0]!.continued).toBe(true);
      from = page.nextOffset;
    }
    expect(pages).toBe(7);
    expect(seen).toEqual(whole.events.map((e) => e.sequence));
    // A page from the middle holds only its events: the file is never read whole for it.
    const mid = readTimelinePage(dir, { fromOffset: whole.events[20]!.offset, limit: 4 });
    expect(mid.events.map((e) => e.sequence)).toEqual([21, 22, 23, 24]);
    expect(mid.turns).toHaveLength(1);
    expect(mid.turns[0]!.prompt!.text.text).toBe("prompt 6");
    expect(tools(mid.turns[0]!)[0]!.result!.excerpt.text).toBe("6");
  });

  it("reports a corrupt line and a torn final line, and still reads every event around them", () => {
    const dir = manyTurns(project(), 2);
    const file = join(dir, "events.jsonl");
    const lines = readFileSync(file, "utf8").split("\n");
    const corruptAt = Buffer.byteLength(lines.slice(0, 3).join("\n")) + 1;
    const torn = '{"sequence": 99, "kind": "tool_';
    const damaged = [...lines.slice(0, 3), torn, ...lines.slice(3)].join("\n");
    // A line a crash left half-written, then a final line still being written.
    writeFileSync(file, damaged);
    appendFileSync(file, '{"schema_version":1,"sequence":9,"kind":"user_prom');
    const page = readTimelinePage(dir);
    expect(page.events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(page.bad_lines).toEqual([{ offset: corruptAt, bytes: torn.length, reason: "not JSON" }]);
    expect(page.partial_tail).toMatchObject({ reason: "final line without a newline" });
    expect(page.endOffset).toBe(Buffer.byteLength(damaged));
    expect(page.turns.map((t) => t.prompt?.text.text)).toEqual(["prompt 1", "prompt 2"]);
  });
});
