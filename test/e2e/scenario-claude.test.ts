// @module-tag claude
// `tapedeck scenario` end to end with the real claude, offline against the mock: a recorded session becomes a
// scenario; its facts, forbidden facts, validators and limits are graded on the recorded answer and on a
// replay of it, with the exit codes CI relies on; the scenario file and every archive stay byte-identical.
import { existsSync, readdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../src/core/archive/schemas.ts";
import type { Scenario, ScenarioResult } from "../../src/scenario/schema.ts";
import { snapshot } from "./archive-checks.ts";
import { claudeAgent, recordBaseline } from "./baseline.ts";
import { editScenario, type Run, tapedeck } from "./replay-harness.ts";
import { useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();

const ANSWER = "The cache lives in IndexStore and is flushed nightly.";
const PROMPTS = ["SCENARIO_SAY Ready when you are.", `SCENARIO_SAY ${ANSWER}`];

describe("tapedeck scenario (claude)", () => {
  const sb = useClaudeSandbox("scenario-claude");
  let env: Record<string, string> = {};
  let archive = "";
  let sessionId = "";

  const cli = (args: string[]): Promise<Run> => tapedeck(["scenario", ...args], { cwd: sb.projectDir, env });
  const file = (name: string) => join(sb.root, name);
  const outcomes = (s: ScenarioResult["samples"][number]) =>
    Object.fromEntries(s.checks.map((c) => [c.id, c.outcome]));

  /** The derived scenario with the review contract written in, as a user would. */
  function writeScenario(name: string, edit: (s: Scenario) => void): string {
    editScenario(file("derived.json"), edit, file(name));
    return file(name);
  }

  const fullContract = (s: Scenario) => {
    s.expected_facts = [
      { id: "names-indexstore", text: "indexstore" },
      { id: "names-redis", text: "Redis" },
    ];
    s.forbidden_facts = [{ id: "no-shrug", pattern: "I don'?t know" }];
    s.validators = [
      { name: "readme-there", command: "test -f README.md", timeout_s: 10, expect_exit: 0 },
      { name: "always-fails", command: "echo broken >&2; exit 3", timeout_s: 10, expect_exit: 0 },
    ];
    s.limits = { max_turns: 1, max_duration_seconds: 120 };
  };

  const passingContract = (s: Scenario) => {
    s.expected_facts = [{ id: "names-indexstore", pattern: "index\\s*store" }];
    s.forbidden_facts = [{ id: "no-shrug", text: "I don't know" }];
    s.validators = [{ name: "readme-there", command: "test -f README.md", timeout_s: 10, expect_exit: 0 }];
    s.limits = { max_turns: 2, max_duration_seconds: 120 };
  };

  beforeAll(async () => {
    const agent = claudeAgent(sb);
    env = agent.env;
    const baseline = await recordBaseline("claude", sb, agent, {
      fact: "A project to review.",
      prompts: PROMPTS,
    });
    sessionId = baseline.id;
    archive = baseline.archive;
    expect(existsSync(archive)).toBe(true);
  }, 180_000);

  it("derives a scenario from the recorded prompts and checks it", async () => {
    const derived = await cli(["from-session", "last", "--out", file("derived.json"), "--json"]);
    expect(derived.code, derived.stderr).toBe(0);
    const s = JSON.parse(readFileSync(file("derived.json"), "utf8")) as Scenario;
    expect(s.setup_messages.map((m) => m.prompt)).toEqual([PROMPTS[0]]);
    expect(s.continuation_prompt).toBe(PROMPTS[1]);
    expect(s.source_session).toMatchObject({ provider: "claude", session_id: `claude:${sessionId}` });
    expect(s.source_session.repository_revision).toMatch(/^[0-9a-f]{40}$/);
    expect((await cli(["check", file("derived.json")])).code).toBe(0);
    // An existing file is not replaced without --force.
    expect((await cli(["from-session", "last", "--out", file("derived.json")])).code).toBe(2);
  }, 60_000);

  it("grades the recorded answer check by check (exit 1 on a failure, 0 when all pass), changing nothing", async () => {
    const path = writeScenario("full.json", fullContract);
    const before = { scenario: readFileSync(path, "utf8"), archive: snapshot(archive) };
    const run = await cli(["run", path, "--against", "recorded", "--out", file("recorded-result.json")]);
    expect(run.code, run.stderr).toBe(1);
    const result = JSON.parse(readFileSync(file("recorded-result.json"), "utf8")) as ScenarioResult;
    const [sample] = result.samples;
    expect(outcomes(sample!)).toEqual({
      "names-indexstore": "pass",
      "names-redis": "fail",
      "no-shrug": "pass",
      "readme-there": "pass",
      "always-fails": "fail",
      max_turns: "fail",
      max_duration_seconds: "pass",
    });
    expect(sample!.checks.find((c) => c.id === "names-indexstore")!.evidence).toContain("IndexStore");
    expect(sample!.checks.find((c) => c.id === "always-fails")!.evidence).toMatch(
      /exit 3, expected 0\nbroken/,
    );
    expect(sample!.limit).toEqual({ type: "max_turns", limit: 1, measured: 2 });
    // Claude's usage reaches the archive through its transcript: the token figures are measured.
    expect(sample!.model_usage.output_tokens).toBeGreaterThan(0);
    expect(run.stdout).toMatch(/fail\s+validator always-fails/);
    const ok = await cli(["run", writeScenario("passing.json", passingContract), "--against", "recorded"]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(before.scenario);
    expect(snapshot(archive)).toEqual(before.archive);
  }, 60_000);

  it("--against both grades a fresh replay with the same checks, beside the recorded answer", async () => {
    const path = file("full.json");
    const before = { scenario: readFileSync(path, "utf8"), archive: snapshot(archive) };
    const root = file("exp-both");
    const run = await cli(["run", path, "--against", "both", "--experiment-root", root, "--json"]);
    expect(run.code, run.stderr).toBe(1);
    const result = JSON.parse(run.stdout) as ScenarioResult;
    expect(result.samples.map((s) => s.against)).toEqual(["recorded", "replay"]);
    const [recorded, replay] = result.samples;
    expect(outcomes(replay!)).toEqual(outcomes(recorded!));
    expect(replay!.run_session_id).not.toBe(`claude:${sessionId}`);
    expect(replay!.archive!.startsWith(root)).toBe(true);
    const manifest = JSON.parse(readFileSync(join(replay!.archive!, "manifest.json"), "utf8")) as Manifest;
    expect(manifest).toMatchObject({
      run_type: "replay",
      replay_of_session_id: `claude:${sessionId}`,
      arm: "replay",
    });
    expect(replay!.final_answer_excerpt).toContain("IndexStore");
    expect(replay!.turn_count).toBe(2);
    // The validators ran in the replay's work tree, which is gone afterwards; its archive stays.
    const runs = readdirSync(join(root, "replay-r1", "runs"));
    const left = readdirSync(join(root, "replay-r1", "runs", runs[0]!));
    expect(left).toContain("sessions");
    expect(left).not.toContain("work");
    expect(left).not.toContain("home");
    expect(readFileSync(path, "utf8")).toBe(before.scenario);
    expect(snapshot(archive)).toEqual(before.archive);
  }, 240_000);

  it("stops a replay past its duration and marks it", async () => {
    const path = writeScenario("slow.json", (s) => {
      // Not a bare `sleep`: Claude Code 2.1.332's Bash tool refuses a standalone `sleep 40` at once
      // ("Blocked: standalone sleep 40 ..."), which ended the turn in a second and the run under its limit.
      s.continuation_prompt = "SCENARIO_BASH timeout 40 tail -f /dev/null";
      s.limits = { max_duration_seconds: 3 };
    });
    const started = Date.now();
    const run = await cli([
      "run",
      path,
      "--against",
      "replay",
      "--experiment-root",
      file("exp-slow"),
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(1);
    expect(Date.now() - started).toBeLessThan(40_000);
    const [sample] = (JSON.parse(run.stdout) as ScenarioResult).samples;
    const check = sample!.checks.find((c) => c.id === "max_duration_seconds")!;
    expect(check.outcome).toBe("fail");
    expect(check.evidence).toMatch(/stopped at 3s/);
    expect(sample!.error).toMatch(/stopped at max_duration_seconds/);
  }, 120_000);

  it("refuses a bad file with exit 2, naming the field and line", async () => {
    const path = writeScenario("bad-regex.json", (s) => {
      s.expected_facts = [{ id: "broken", pattern: "(unclosed" }];
    });
    const line =
      readFileSync(path, "utf8")
        .split("\n")
        .findIndex((l) => l.includes("(unclosed")) + 1;
    const check = await cli(["check", path]);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain(`line ${line}: expected_facts[0].pattern: not a valid regular expression`);
    expect((await cli(["run", path])).code).toBe(2);
    expect((await cli(["run", path, "--out", path])).code).toBe(2);
    // A result never lands in a session archive.
    const inArchive = await cli(["run", file("passing.json"), "--out", join(archive, "result.json")]);
    expect(inArchive.code).toBe(2);
    expect(inArchive.stderr).toMatch(/inside a session archive/);
    expect(existsSync(join(archive, "result.json"))).toBe(false);
  }, 30_000);

  it("a hanging validator is killed at its timeout and a 100 MB one is bounded, through the CLI", async () => {
    const path = writeScenario("hostile-validators.json", (s) => {
      s.validators = [
        { name: "hangs", command: "sleep 120 & sleep 120", timeout_s: 1, expect_exit: 0 },
        {
          name: "floods",
          command: "head -c 104857600 /dev/zero | tr '\\0' y",
          timeout_s: 60,
          expect_exit: 0,
        },
      ];
      s.limits = {};
    });
    const started = Date.now();
    const run = await cli(["run", path, "--json"]);
    expect(run.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(60_000);
    const [sample] = (JSON.parse(run.stdout) as ScenarioResult).samples;
    const hangs = sample!.checks.find((c) => c.id === "hangs")!;
    expect(hangs).toMatchObject({ outcome: "fail", timed_out: true });
    expect(hangs.evidence).toMatch(/killed at its timeout of 1s/);
    const floods = sample!.checks.find((c) => c.id === "floods")!;
    expect(floods).toMatchObject({ outcome: "pass", output_bytes: 104857600 });
    expect(floods.evidence!.length).toBeLessThan(9000);
    expect(run.stdout.length).toBeLessThan(64 * 1024);
  }, 90_000);

  it("exports runnable promptfoo and Inspect files", async () => {
    for (const to of ["promptfoo", "inspect"]) {
      const out = file(`export-${to}`);
      const run = await cli(["export", file("full.json"), "--to", to, "--out", out]);
      expect(run.code, run.stderr).toBe(0);
      expect(readdirSync(out)).toContain("README.md");
    }
    const intoArchive = await cli([
      "export",
      file("full.json"),
      "--to",
      "inspect",
      "--out",
      join(archive, "x"),
    ]);
    expect(intoArchive.code).toBe(2);
    expect(existsSync(join(archive, "x"))).toBe(false);
    const config = JSON.parse(readFileSync(join(file("export-promptfoo"), "promptfooconfig.yaml"), "utf8"));
    expect(config.providers[0].id).toBe("file://agent.cjs");
    expect(config.tests[0].vars.messages.map((m: { content: string }) => m.content)).toEqual(PROMPTS);
  }, 30_000);

  it("with the source session gone, recorded mode fails clearly and replay mode still runs", async () => {
    const path = file("passing.json");
    renameSync(archive, join(sb.root, "archive-away"));
    try {
      const recorded = await cli(["run", path, "--against", "recorded", "--json"]);
      expect(recorded.code).toBe(1);
      const [sample] = (JSON.parse(recorded.stdout) as ScenarioResult).samples;
      expect(sample!.error).toMatch(/not in this project's archive any more/);
      const replay = await cli([
        "run",
        path,
        "--against",
        "replay",
        "--experiment-root",
        file("exp-gone"),
        "--json",
      ]);
      expect(replay.code, replay.stderr).toBe(0);
      const [r] = (JSON.parse(replay.stdout) as ScenarioResult).samples;
      expect(r!.passed).toBe(true);
    } finally {
      renameSync(join(sb.root, "archive-away"), archive);
    }
  }, 240_000);
});
