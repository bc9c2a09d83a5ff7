import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseArm } from "../../src/cli/commands/experiment.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { checkFacts as checkAnswer } from "../../src/core/ports/facts.ts";
import type { ExperimentRecord, RunRecord } from "../../src/experiment/record.ts";
import { renderMarkdown, renderReport } from "../../src/experiment/render.ts";
import { buildReport } from "../../src/experiment/report.ts";
import { loadScenario, ScenarioError } from "../../src/scenario/experiment-input.ts";
import { INHERITED_NAMES } from "../helpers/inherited-names.ts";
import { event, identity, spec, tempProject, useTempProjects } from "../helpers/session.ts";

useTempProjects();

/** A recorded run: a prompt, a tool call and error, an injection of `injected` bytes, usage of `tokens`. */
function archive(root: string, id: string, tokens: number, injected: number): string {
  const sessionRoot = join(root, "sessions", id);
  const out = recordEvents(spec(root, { identity: identity(id), sessionRoot }), [
    event("user_prompt", "p", { prompt: "q" }),
    event("tool_call", "t", { tool_name: "Bash" }),
    event("tool_error", "e", { tool_name: "Bash" }),
    { ...event("provider_event", "i", { type: "context_injection", bytes: injected }) },
    {
      ...event("turn_usage", "u"),
      usage: { source: "claude-transcript", input_tokens: tokens, output_tokens: 10 },
    },
  ]);
  return out.sessionDir;
}

function run(
  root: string,
  arm: string,
  rep: number,
  answer: string,
  tokens: number,
  injected = 0,
): RunRecord {
  const id = `${arm}-r${rep}`;
  return {
    run_id: id,
    arm,
    repetition: rep,
    status: "complete",
    native_memory: true,
    retrieval: false,
    wall_ms: 1000 + tokens,
    agent_ms: 900 + tokens,
    archive: archive(root, id, tokens, injected),
    session_id: `claude:${id}`,
    settings_root: "/x/home/.claude",
    session_root: "/x/sessions",
    turns: [
      {
        index: 0,
        ok: true,
        exit_code: 0,
        duration_ms: 900,
        answer,
        cost_usd: 0.01,
        ttft_ms: 150,
        model: "claude-mock",
      },
    ],
    final_answer: answer,
    cost_usd: 0.01,
    notes: [],
  };
}

function record(root: string, runs: RunRecord[], arms: ExperimentRecord["arms"]): ExperimentRecord {
  return {
    schema_version: 1,
    experiment_id: "exp-r",
    kind: "experiment",
    created_at: "2026-12-01T00:00:00.000Z",
    provider: "claude",
    cli_version: "2.1.332 (Claude Code)",
    model_requested: null,
    baseline: { session_id: "claude:b", archive: join(root, "b"), project_root: root, revision: "abc" },
    prompt_count: 1,
    scenario: { id: "s", path: "s.json", expected_facts: [{ id: "z", text: "ZEPHYR" }], forbidden_facts: [] },
    arms,
    repeat: 3,
    max_runs: null,
    max_cost_usd: null,
    runs,
    stopped: null,
  };
}

describe("the report", () => {
  it("gives every figure per run, per arm, and paired comparisons with their verdicts", () => {
    const root = tempProject().root;
    const runs = [1, 2, 3].flatMap((rep) => [
      run(root, "native", rep, "It is ZEPHYR.", 100),
      run(root, "bare", rep, "No idea.", 200 + rep, 0),
      run(root, "twin", rep, "It is ZEPHYR.", 100, 0),
    ]);
    const arms = [
      { name: "native", native_memory: true, retrieval: false },
      { name: "bare", native_memory: false, retrieval: false },
      { name: "twin", native_memory: true, retrieval: false },
    ];
    const r = buildReport(record(root, runs, arms));
    const first = r.runs[0]!;
    expect(first).toMatchObject({
      passed: true,
      turns: 1,
      tool_calls: 1,
      tool_errors: 1,
      injected_bytes: 0,
      overhead_ms: 100,
      time_to_first_token_ms: 150,
      cost_usd: 0.01,
      tokens: { input: 100, output: 10, sources: ["claude-transcript"] },
      labels: { provider: "claude", model_served: "claude-mock", settings_root: "/x/home/.claude" },
    });
    expect(first.events_by_kind).toMatchObject({ user_prompt: 1, tool_call: 1, provider_event: 1 });
    const bare = r.arms.find((a) => a.arm === "bare")!;
    expect(bare.pass).toMatchObject({ passes: 0, n: 3 });
    expect(bare.median.input_tokens).toBe(202);
    const vsBare = r.comparisons.find((c) => c.arm === "bare")!;
    expect(vsBare.flips).toEqual({ pass_pass: 0, pass_fail: 3, fail_pass: 0, fail_fail: 0 });
    expect(vsBare.pass?.verdict).toBe("not enough evidence");
    expect(vsBare.metrics.input_tokens).toMatchObject({ pairs: 3, verdict: "difference" });
    expect(vsBare.metrics.input_tokens.mean_difference?.estimate).toBe(102);
    const twin = r.comparisons.find((c) => c.arm === "twin")!;
    expect(twin).toMatchObject({ same_settings: true, flips: { pass_pass: 3, pass_fail: 0, fail_pass: 0 } });
    expect(twin.metrics.input_tokens.verdict).toBe("no clear difference");
    const text = renderReport(r);
    expect(text).toMatch(/twin vs native: 3 pair\(s\) \(same settings: an A\/A check/);
    expect(text).toMatch(/pass rate +0\/3 0% \[0–56%\]/);
    expect(renderMarkdown(r)).toMatch(/\| pass rate \| 3\/3 .* \| 0\/3 .* \| 3\/3 /);
  });

  it("fails a run that did not complete whatever it answered, and says when too few pairs exist", () => {
    const root = tempProject().root;
    const broken = { ...run(root, "b", 1, "ZEPHYR", 5), status: "failed" as const };
    const r = buildReport(
      record(
        root,
        [run(root, "a", 1, "ZEPHYR", 5), broken],
        [
          { name: "a", native_memory: true, retrieval: false },
          { name: "b", native_memory: false, retrieval: false },
        ],
      ),
    );
    expect(r.runs[1]!.passed).toBe(false);
    expect(r.comparisons[0]!.pairs).toBe(0);
    expect(r.comparisons[0]!.metrics.wall_ms.verdict).toBe("not enough evidence");
  });
});

describe("arms and scenarios", () => {
  it("parses arm specs and refuses bad ones", () => {
    expect(parseArm("a")).toEqual({ name: "a", native_memory: true, retrieval: false });
    expect(parseArm("b:native-memory=off,retrieval=on")).toEqual({
      name: "b",
      native_memory: false,
      retrieval: true,
    });
    expect(() => parseArm("../x")).toThrow(/name/);
    expect(() => parseArm("a:memory=off")).toThrow(/unknown setting/);
    expect(() => parseArm("a:retrieval=yes")).toThrow(/on or off/);
  });

  it("loads a scenario's prompts and checks its facts in the final answer", () => {
    const root = tempProject().root;
    mkdirSync(join(root, "s"), { recursive: true });
    const file = join(root, "s", "scenario.json");
    const scenario = {
      schema_version: 1,
      id: "x",
      source_session: { provider: "claude", session_id: "abc", archive: null, repository_revision: null },
      setup_messages: [{ prompt: "one" }],
      continuation_prompt: "two",
      expected_facts: [
        { id: "name", text: "Zephyr" },
        { id: "num", pattern: "\\b7\\b" },
      ],
      forbidden_facts: [{ id: "unsure", text: "unknown" }],
    };
    writeFileSync(file, JSON.stringify(scenario));
    const loaded = loadScenario(file);
    expect(loaded).toMatchObject({
      id: "x",
      sourceSession: "abc",
      provider: "claude",
      prompts: ["one", "two"],
    });
    expect(checkAnswer("It is ZEPHYR-7", loaded.expectedFacts, loaded.forbiddenFacts).passed).toBe(true);
    expect(checkAnswer("ZEPHYR 17, unknown", loaded.expectedFacts, loaded.forbiddenFacts)).toEqual({
      passed: false,
      missing: ["num"],
      forbidden: ["unsure"],
    });
    expect(checkAnswer(undefined, [], []).passed).toBe(false);
    writeFileSync(file, JSON.stringify({ ...scenario, continuation_prompt: undefined }));
    expect(() => loadScenario(file)).toThrow(ScenarioError);
    writeFileSync(file, "{");
    expect(() => loadScenario(file)).toThrow(ScenarioError);
  });
});

describe("a kind spelled like an object's own member", () => {
  it("is counted as the name it is in a run's events by kind", () => {
    const root = tempProject().root;
    const r = run(root, "native", 1, "It is ZEPHYR.", 100);
    const file = join(r.archive!, "events.jsonl");
    const first = JSON.parse(readFileSync(file, "utf8").split("\n")[0]!);
    let seq = 100;
    for (const kind of [...INHERITED_NAMES, "constructor"]) {
      appendFileSync(file, `${JSON.stringify({ ...first, kind, sequence: seq, event_id: `k-${seq++}` })}\n`);
    }
    const arms = [{ name: "native", native_memory: true, retrieval: false }];
    const kinds = buildReport(record(root, [r], arms)).runs[0]!.events_by_kind;
    expect(kinds.constructor).toBe(2);
    for (const name of INHERITED_NAMES.slice(1)) {
      expect(Object.hasOwn(kinds, name), name).toBe(true);
      expect(kinds[name], name).toBe(1);
    }
  });
});
