// Codex rollouts as `tapedeck import` reads them: the hooks' events (their ids where the rollout has what they
// are made of), the hook path's usage and failed-command events, subagents under the root thread, and a read
// split across two imports giving the events of one.
import { copyFileSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexHistory } from "../../../src/providers/codex/history.ts";
import { normalizeCodexHook } from "../../../src/providers/codex/normalize.ts";
import { readRollout } from "../../../src/providers/codex/rollout.ts";
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

const { path: fixturePath, json: fixture } = providerFixtures("codex");
const SAMPLE = fixturePath("rollout.sample.jsonl");
const SUBAGENT = fixturePath("rollout.subagent.sample.jsonl");
const COMPACTED = fixturePath("rollout.compacted.sample.jsonl");
const FAILED = fixturePath("rollout.failed-command.synthetic.jsonl");
const ROOT = "01a228a1-6c99-7571-8a54-9987d351bd37";
const SUB_ROOT = "01a228a2-0a2b-7711-8bfe-1771673db649";
const CHILD = "01a228a2-0b5c-7b01-81dd-afb8f8b3c75e";
const temp = useTempProjects("tapedeck-codex-history-");

describe("a Codex rollout as events", () => {
  const { events, malformed } = mapFile(codexHistory, session("codex", ROOT), SAMPLE);

  it("is the session's start, each prompt, answer, tool call and result, and one usage per response", () => {
    expect(malformed).toBe(0);
    expect(events.map((e) => e.kind)).toEqual([
      "session_start",
      "user_prompt",
      "assistant_message",
      "tool_call",
      "turn_usage",
      "tool_result",
      "assistant_message",
      "turn_usage",
      "user_prompt",
      "assistant_message",
      "turn_usage",
    ]);
  });

  it("gives prompts, tool calls and results the hooks' ids, and their payload fields", () => {
    const hookEvent = (file: string) => normalizeCodexHook(fixture(file), {}).events[0]!;
    expectHookEvents(events, hookEvent, (kind, payload) => {
      // The hook's model comes with every payload, not in the rollout's record; a result's input is its call's.
      const { tool_input, model: _model, ...rest } = payload;
      return kind === "tool_result" ? rest : { ...rest, ...(tool_input ? { tool_input } : {}) };
    });
  });

  it("counts usage as the hook path does: each token_usage_record once, with the turn's model", () => {
    const hook = readRollout(SAMPLE).usages.map((u) => ({ id: u.response_id, usage: u.usage }));
    const usage = expectHookUsage(events, hook);
    expect(tokenSums(usage)).toMatchObject({ input_tokens: 5163 + 5350 + 5431, output_tokens: 35 + 25 + 25 });
  });

  it.each([
    ["sample", SAMPLE],
    ["compacted", COMPACTED],
    ["failed command", FAILED],
  ])("read in two imports (%s), at every split, gives the events of one", (_n, path) => {
    expectEverySplitAlike(codexHistory, session("codex", ROOT), path, false);
  });

  it.each([
    ["sample", SAMPLE],
    ["compacted", COMPACTED],
    ["failed command", FAILED],
  ])("stopped anywhere and resumed from its cursor (%s), gives no event twice", (_n, path) => {
    expectResumedAlike(codexHistory, session("codex", ROOT), path);
  });

  it("tells the hooks' own events from its own: a turn's Stop, a resume, an end", () => {
    const files = ["Stop.json", "SessionStart.resume.json", "SessionEnd.json"];
    expectOnlyHooksWrite(
      codexHistory,
      files.flatMap((f) => normalizeCodexHook(fixture(f), {}).events),
    );
  });

  it("a command that exited non-zero is the hook path's tool_error beside its result", () => {
    const { events } = mapFile(codexHistory, session("codex", "x"), FAILED);
    const error = events.find((e) => e.kind === "tool_error")!;
    expect(error.payload).toMatchObject({ tool_name: "Bash", exit_code: 3, derived_from: "rollout" });
    expect(
      events.some((e) => e.kind === "tool_result" && e.payload.tool_use_id === error.payload.tool_use_id),
    ).toBe(true);
  });

  it("a compaction is recorded with its summary", () => {
    const { events } = mapFile(codexHistory, session("codex", "x"), COMPACTED);
    const compaction = events.find((e) => e.kind === "compaction")!;
    expect(compaction.payload).toMatchObject({ hook_event_name: "PostCompact", phase: "post" });
    expect(String(compaction.payload.compact_summary)).toContain("Another language model");
  });

  it("an older rollout without token_usage_record counts token_count's last usage once per change of the total", () => {
    const count = (total: number, last: number) =>
      JSON.stringify({
        timestamp: "2026-01-01T00:00:00.000Z",
        type: "event_msg",
        payload: {
          type: "token_count",
          info: {
            total_token_usage: { total_tokens: total },
            last_token_usage: { input_tokens: last, output_tokens: 1, total_tokens: last + 1 },
          },
        },
      });
    const lines = [count(11, 10), count(11, 10), count(32, 20)];
    const usage = mapLines(codexHistory, session("codex", "old"), mainFile("/r"), lines).events.filter(
      (e) => e.kind === "turn_usage",
    );
    expect(usage.map((e) => e.usage?.input_tokens)).toEqual([10, 20]);
  });
});

describe("a subagent's rollout", () => {
  it("goes into the root thread's session, every event carrying the child thread as agent_id", () => {
    const file = { path: SUBAGENT, role: "subagent" as const, agentId: CHILD };
    const { events } = mapLines(codexHistory, session("codex", SUB_ROOT), file, linesOf(SUBAGENT));
    expect(events[0]).toMatchObject({ kind: "subagent_start", payload: { agent_id: CHILD } });
    expect(events.at(-1)).toMatchObject({
      kind: "subagent_stop",
      payload: { last_assistant_message: "Subagent finished: from-subagent" },
    });
    for (const e of events) expect(e.agent_id).toBe(CHILD);
    // The subagent's prompt has the id the hook in the child thread gives it.
    const hook = normalizeCodexHook(fixture("UserPromptSubmit.in-subagent.json"), {}).events[0]!;
    expect(events.find((e) => e.kind === "user_prompt")!.event_id).toBe(hook.event_id);
  });
});

describe("finding Codex's sessions", () => {
  function layout() {
    const home = temp();
    const day = join(home, ".codex", "sessions", "2026", "11", "29");
    mkdirSync(day, { recursive: true });
    copyFileSync(SAMPLE, join(day, `rollout-2026-11-29T18-46-37-${ROOT}.jsonl`));
    copyFileSync(SUBAGENT, join(day, `rollout-2026-11-29T18-47-18-${CHILD}.jsonl`));
    return { home, day };
  }
  const discover = (env: Record<string, string>) => {
    const skipped: HistorySkip[] = [];
    return { found: codexHistory.discover({ env, skip: (s) => skipped.push(s) }), skipped };
  };

  it("finds each root thread with its cwd, and a child's rollout under its root (CODEX_HOME or ~/.codex)", () => {
    const { home, day } = layout();
    const { found } = discover({ HOME: home });
    expect(found.map((s) => s.sessionId).sort()).toEqual([ROOT, SUB_ROOT].sort());
    const sub = found.find((s) => s.sessionId === SUB_ROOT)!;
    expect(sub.files).toEqual([
      {
        path: join(day, `rollout-2026-11-29T18-47-18-${CHILD}.jsonl`),
        role: "subagent",
        agentId: CHILD,
        firstAt: "2026-11-29T18:47:18.131Z",
      },
    ]);
    expect(found.find((s) => s.sessionId === ROOT)!.cwd).toBe("/home/user/project");
    expect(discover({ HOME: temp(), CODEX_HOME: join(home, ".codex") }).found).toHaveLength(2);
  });

  it("reads a session_meta of several MB (large base instructions) like any other", () => {
    const { home, day } = layout();
    const path = join(day, `rollout-2026-11-29T18-46-37-${ROOT}.jsonl`);
    const [meta, ...rest] = readFileSync(path, "utf8").split("\n");
    const record = JSON.parse(meta!);
    record.payload.base_instructions = { text: "be careful. ".repeat(300_000) };
    writeFileSync(path, [JSON.stringify(record), ...rest].join("\n"));
    expect(statSync(path).size).toBeGreaterThan(3 * 1024 * 1024);
    const { found, skipped } = discover({ HOME: home });
    expect(skipped).toEqual([]);
    expect(found.find((s) => s.sessionId === ROOT)?.cwd).toBe("/home/user/project");
  });

  it("passes over a symlinked rollout, saying why, and finds one without session_meta by its name", () => {
    const { home, day } = layout();
    const outside = join(temp(), "x.jsonl");
    copyFileSync(SAMPLE, outside);
    symlinkSync(outside, join(day, "rollout-link.jsonl"));
    writeFileSync(join(day, "rollout-old.jsonl"), '{"id":"legacy","instructions":""}\n');
    const { found, skipped } = discover({ HOME: home });
    expect(skipped).toEqual([{ source: join(day, "rollout-link.jsonl"), reason: SKIP.symlink }]);
    // Codex's earliest rollouts open with `{id, instructions}`: its id is the session's, its cwd unknown.
    expect(found.find((s) => s.sessionId === "legacy")?.cwd).toBeNull();
  });
});
