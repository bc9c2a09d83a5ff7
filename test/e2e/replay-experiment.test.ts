// @module-tag claude
// `tapedeck experiment` with the real claude, offline against a mock that answers from what its context
// holds: three arms, two repetitions, a report with every figure; an agent that crashes mid-replay; the
// run guard; Ctrl-C; the dry run.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnthropicMock } from "../../src/demo/anthropic-mock.ts";
import type { ExperimentRecord } from "../../src/experiment/record.ts";
import type { ExperimentReport } from "../../src/experiment/report.ts";
import { snapshot } from "./archive-checks.ts";
import { CODENAME, RECALL, recordRecallBaseline, startRecallMock } from "./baseline.ts";
import { CLAUDE_BIN } from "./claude-runner.ts";
import { tapedeck } from "./replay-harness.ts";
import { CLI_JS, useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();

/** An experiment over the last recorded session. */
const RUN_LAST = ["experiment", "run", "--session", "last"];

describe("tapedeck experiment (claude)", () => {
  const sb = useClaudeSandbox("replay-experiment");
  const memoryFiles = () => {
    const dir = join(sb.projectDir, ".tapedeck");
    const all = snapshot(dir);
    return Object.fromEntries(Object.entries(all).filter(([k]) => k.startsWith("memory.sqlite")));
  };
  let mock: AnthropicMock;
  let env: Record<string, string> = {};
  let scenarioFile = "";

  /** The built CLI in the project, with the agent's environment (and `more` of it). */
  const cli = (args: string[], more: Record<string, string> = {}, timeoutMs?: number) =>
    tapedeck(args, { cwd: sb.projectDir, env: { ...env, ...more } }, timeoutMs);
  const runLast = (args: string[], more?: Record<string, string>, timeoutMs?: number) =>
    cli([...RUN_LAST, ...args], more, timeoutMs);

  beforeAll(async () => {
    mock = await startRecallMock(CODENAME);
    const recorded = await recordRecallBaseline(sb, mock, "SCENARIO_BASH echo setup-done");
    const { baseline } = recorded;
    env = recorded.env;
    // The user's memory: the baseline promoted, so a retrieval arm has the answer to find.
    const promoted = await cli(["promote", baseline.id, "--yes"]);
    expect(promoted.code, promoted.stderr).toBe(0);
    scenarioFile = join(sb.root, "scenario.json");
    writeFileSync(
      scenarioFile,
      JSON.stringify({
        schema_version: 1,
        id: "recall-codename",
        source_session: {
          provider: "claude",
          session_id: baseline.id,
          archive: null,
          repository_revision: null,
        },
        setup_messages: [{ prompt: "SCENARIO_BASH echo setup-done" }],
        continuation_prompt: RECALL,
        expected_facts: [{ id: "codename", text: "ZEPHYR-7" }],
      }),
    );
  }, 180_000);

  afterAll(async () => {
    await mock?.close();
  });

  it("--dry-run prints the plan and creates nothing", async () => {
    const run = await runLast([
      "--arm",
      "a:native-memory=on",
      "--arm",
      "b:native-memory=off",
      "--repeat",
      "2",
      "--max-cost",
      "1.5",
      "--dry-run",
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const plan = JSON.parse(run.stdout);
    expect(plan).toMatchObject({
      prompts: 2,
      repeat: 2,
      runs: ["a-r1", "b-r1", "b-r2", "a-r2"],
      agent_processes: 8,
      worst_case_cost_usd: 1.5,
    });
    expect(existsSync(join(sb.projectDir, ".tapedeck", "experiments"))).toBe(false);
    const aa = await runLast(["--arm", "a:native-memory=off", "--arm", "b", "--aa", "--dry-run", "--json"]);
    expect(JSON.parse(aa.stdout).arms).toEqual([
      { name: "a", native_memory: false, retrieval: false },
      { name: "a-aa", native_memory: false, retrieval: false },
      { name: "b", native_memory: true, retrieval: false },
    ]);
  });

  it("three arms, two repetitions: different answers from different contexts, every figure, paired statistics", async () => {
    const root = join(sb.root, "exp-3x2");
    const memory = memoryFiles;
    const memoryBefore = memory();
    const run = await cli(
      [
        "experiment",
        "run",
        "--scenario",
        scenarioFile,
        "--arm",
        "native:native-memory=on",
        "--arm",
        "bare:native-memory=off,retrieval=off",
        "--arm",
        "recall:native-memory=off,retrieval=on",
        "--repeat",
        "2",
        "--experiment-root",
        root,
        "--json",
      ],
      {},
      600_000,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/native · repetition 1 · prompt 2\/2 · \d+s/);
    const report = JSON.parse(run.stdout) as ExperimentReport & { experiment_root: string };
    expect(report.runs.map((r) => r.status)).toEqual(Array(6).fill("complete"));
    const arm = (name: string) => report.arms.find((a) => a.arm === name)!;
    const answers = JSON.stringify(report.runs.map((r) => [r.run_id, r.final_answer, r.injected_bytes]));
    expect(arm("native").final_answers, answers).toEqual(["The codename is ZEPHYR-7."]);
    expect(arm("bare").final_answers, answers).toEqual(["I do not know the codename."]);
    expect(arm("native").pass).toMatchObject({ passes: 2, n: 2 });
    expect(arm("bare").pass).toMatchObject({ passes: 0, n: 2 });
    // Native memory off, retrieval on: the answer comes from the injected memory.
    expect(arm("recall").final_answers, answers).toEqual(["The codename is ZEPHYR-7."]);
    expect(arm("recall").pass).toMatchObject({ passes: 2, n: 2 });
    expect(arm("native").pass?.wilson?.low).toBeGreaterThan(0.3);
    for (const r of report.runs) {
      expect(r.wall_ms).toBeGreaterThan(0);
      expect(r.time_to_first_token_ms).toBeGreaterThan(0);
      expect(r.agent_ms).toBeGreaterThan(0);
      expect(r.overhead_ms).toBeGreaterThanOrEqual(0);
      expect(r.turns).toBe(2);
      expect(r.tokens.input).toBeGreaterThan(0);
      expect(r.tokens.sources).toContain("claude-transcript");
      expect(r.cost_usd).toBeGreaterThan(0);
      expect(r.tool_calls).toBe(1);
      expect(r.tool_errors).toBe(0);
      expect(r.events_by_kind.user_prompt).toBe(2);
      if (r.arm === "recall") {
        expect(r.injected_bytes).toBeGreaterThan(0);
        expect(r.injections).toBe(2);
      } else expect(r.injected_bytes).toBe(0);
      expect(r.redactions).toBeGreaterThanOrEqual(0);
      // Every hook process timed; Node's own start-up is part of it, not all of it.
      expect(r.hooks?.invocations).toBeGreaterThan(0);
      expect(r.hook_ms_per_event).toBeGreaterThan(0);
      expect(r.hooks?.mean_ms).toBeGreaterThan(r.hooks?.boot_mean_ms ?? 0);
      expect(r.labels).toMatchObject({ provider: "claude", revision: report.baseline.revision });
      expect(r.labels.cli_version).toMatch(/2\.1\./);
      expect(r.labels.settings_root?.startsWith(root)).toBe(true);
      expect(r.labels.session_root?.startsWith(root)).toBe(true);
    }
    const vsBare = report.comparisons.find((c) => c.arm === "bare")!;
    expect(vsBare).toMatchObject({
      against: "native",
      pairs: 2,
      same_settings: false,
      flips: { pass_fail: 2, fail_pass: 0 },
    });
    expect(vsBare.pass?.verdict).toBe("not enough evidence");
    expect(vsBare.metrics.input_tokens.verdict).toBe("not enough evidence");
    const recall = report.comparisons.find((c) => c.arm === "recall")!;
    expect(recall).toMatchObject({
      same_settings: false,
      flips: { pass_pass: 2, pass_fail: 0, fail_pass: 0 },
    });
    // The retrieval arm's requests carried the injected block; the others' none.
    const marked = mock.requests.filter((r) => JSON.stringify(r.body).includes("tapedeck-memory"));
    const recallIds = report.runs
      .filter((r) => r.arm === "recall")
      .map((r) => r.labels.session_id?.replace(/^claude:/, ""));
    expect(marked.length).toBeGreaterThan(0);
    expect(new Set(marked.map((r) => r.sessionId))).toEqual(new Set(recallIds));
    const recallManifest = JSON.parse(
      readFileSync(
        join(report.runs.find((r) => r.arm === "recall")!.labels.archive!, "manifest.json"),
        "utf8",
      ),
    );
    expect(recallManifest).toMatchObject({
      run_type: "replay",
      arm: "recall",
      native_memory: "off",
      retrieval: "on",
      recording_enabled: true,
    });
    // The record references archives and never copies them; every work tree is gone.
    const record = JSON.parse(readFileSync(join(root, "experiment.json"), "utf8")) as ExperimentRecord;
    expect(record.runs.every((r) => r.archive?.startsWith(join(root, "runs")))).toBe(true);
    for (const r of record.runs)
      expect(readdirSync(join(root, "runs", r.run_id))).toEqual(["hook-timings.jsonl", "sessions"]);
    // The user's memory store was copied for the retrieval arm, never opened or changed.
    expect(memory()).toEqual(memoryBefore);
    const md = await cli(["experiment", "report", root, "--md"]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toMatch(/\| pass rate \| 2\/2 .*\| 0\/2 .*\| 2\/2 /);
    const text = await cli(["experiment", "report", root]);
    expect(text.stdout).toMatch(/bare vs native: 2 pair\(s\)/);
    expect(text.stdout).toMatch(/hooks: \d+ × [\d.]+ ms .* ms per recorded event/);
    expect(text.stdout).toMatch(/pass→fail 2 · fail→pass 0 .*not enough evidence/);
  }, 600_000);

  it("a replay under the default root is listed and reported by its id", async () => {
    const run = await cli(["replay", "last", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { experiment_root: string; session_id: string };
    expect(out.experiment_root.startsWith(join(sb.projectDir, ".tapedeck", "experiments", "exp-"))).toBe(
      true,
    );
    const list = await cli(["experiment", "list", "--json"]);
    const rows = JSON.parse(list.stdout) as Array<{ experiment_id: string; kind: string; complete: number }>;
    const id = out.experiment_root.split("/").at(-1)!;
    expect(rows.find((r) => r.experiment_id === id)).toMatchObject({ kind: "replay", complete: 1 });
    const report = await cli(["experiment", "report", id, "--json"]);
    expect(report.code, report.stderr).toBe(0);
    expect((JSON.parse(report.stdout) as ExperimentReport).runs[0]?.labels.session_id).toBe(out.session_id);
    const missing = await cli(["experiment", "report", "exp-nope"]);
    expect(missing.code).toBe(3);
  }, 120_000);

  it("an agent that crashes mid-replay fails its run and the experiment goes on; the run guard stops it cleanly", async () => {
    // A claude that dies on its second prompt in the arm named crashy.
    const wrapper = join(sb.root, "crashy-claude");
    writeFileSync(
      wrapper,
      `#!/bin/sh\nif [ "$TAPEDECK_ARM" = crashy ]; then for a in "$@"; do [ "$a" = --resume ] && kill -9 $$; done; fi\nexec "${CLAUDE_BIN}" "$@"\n`,
    );
    chmodSync(wrapper, 0o700);
    const root = join(sb.root, "exp-crash");
    const run = await runLast(
      [
        "--arm",
        "crashy",
        "--arm",
        "steady",
        "--arm",
        "never",
        "--max-runs",
        "2",
        "--experiment-root",
        root,
        "--json",
      ],
      { TAPEDECK_CLAUDE_BIN: wrapper },
      300_000,
    );
    expect(run.code).toBe(1);
    const record = JSON.parse(readFileSync(join(root, "experiment.json"), "utf8")) as ExperimentRecord;
    const [crashy, steady, never] = record.runs;
    expect(crashy).toMatchObject({ run_id: "crashy-r1", status: "failed" });
    expect(crashy!.error).toMatch(/prompt 2\/2: claude exited with SIGKILL/);
    expect(crashy!.archive).toBeDefined();
    expect(steady).toMatchObject({ run_id: "steady-r1", status: "complete" });
    expect(never).toMatchObject({ run_id: "never-r1", status: "skipped" });
    expect(record.stopped?.reason).toMatch(/run guard: --max-runs 2/);
    expect(readdirSync(join(root, "runs", "crashy-r1"))).toEqual(["hook-timings.jsonl", "sessions"]);
  }, 300_000);

  it("Ctrl-C ends the current run as interrupted, skips the rest, removes its work tree and exits 130", async () => {
    const root = join(sb.root, "exp-int");
    const child = spawn(
      process.execPath,
      [CLI_JS, ...RUN_LAST, "--arm", "one", "--arm", "two", "--experiment-root", root],
      { cwd: sb.projectDir, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await new Promise<void>((resolve) => {
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
        if (stderr.includes("prompt 1/2")) resolve();
      });
    });
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    const record = JSON.parse(readFileSync(join(root, "experiment.json"), "utf8")) as ExperimentRecord;
    expect(record.runs.map((r) => r.status)).toEqual(["interrupted", "skipped"]);
    expect(record.stopped?.reason).toMatch(/interrupted/);
    expect(existsSync(join(root, "runs", "one-r1", "work"))).toBe(false);
    expect(existsSync(join(root, "runs", "one-r1", "home"))).toBe(false);
  }, 120_000);

  it("a kill (SIGTERM) or a second Ctrl-C mid-turn leaves no copied credentials behind, --keep or not", async () => {
    // The user's claude login, as `claude /login` leaves it: the replay copies it into each run's config root.
    const credentials = join(sb.home, ".claude", ".credentials.json");
    writeFileSync(credentials, JSON.stringify({ claudeAiOauth: { accessToken: "sk-ant-oat01-planted" } }), {
      mode: 0o600,
    });
    const found = (dir: string): string[] =>
      readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((p) => p.endsWith(".credentials.json"));
    try {
      for (const [name, signals, keep] of [
        ["term", ["SIGTERM"], ["--keep"]],
        ["twice", ["SIGINT", "SIGINT"], []],
      ] as const) {
        const root = join(sb.root, `exp-${name}`);
        const child = spawn(
          process.execPath,
          [CLI_JS, "replay", "last", "--arm", "one", "--experiment-root", root, ...keep],
          { cwd: sb.projectDir, env, stdio: ["ignore", "pipe", "pipe"] },
        );
        let stderr = "";
        const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
        await new Promise<void>((resolve) => {
          child.stderr.setEncoding("utf8").on("data", (d: string) => {
            stderr += d;
            if (stderr.includes("prompt 1/2")) resolve();
          });
        });
        for (const sig of signals) child.kill(sig);
        await exited;
        expect(existsSync(join(root, "runs")), name).toBe(true);
        expect(found(root), name).toEqual([]);
      }
    } finally {
      rmSync(credentials, { force: true });
    }
  }, 180_000);
});
