// @module-tag codex
// `tapedeck scenario` with the real codex, offline against its mock: a recorded Codex session becomes a
// scenario, graded on the recorded answer and on a replay through `codex exec` with the same checks.
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ScenarioResult } from "../../src/scenario/schema.ts";
import { codexAgent, recordBaseline } from "./baseline.ts";
import { editScenario, runScenario, tapedeck } from "./replay-harness.ts";
import { useBuild, useCodexSandbox } from "./sandboxes.ts";

useBuild();

const PROMPTS = ["SCENARIO_SAY Noted.", "SCENARIO_SAY The parser lives in src/grammar.rs."];

describe("tapedeck scenario (codex)", () => {
  const sb = useCodexSandbox("scenario-codex");
  let env: Record<string, string> = {};
  let archive = "";

  beforeAll(async () => {
    const agent = codexAgent(sb);
    env = agent.env;
    archive = (await recordBaseline("codex", sb, agent, { fact: "A project to review.", prompts: PROMPTS }))
      .archive;
  }, 180_000);

  it("derives, then grades the recorded answer and a replay with the same per-check results", async () => {
    const cli = (args: string[]) => tapedeck(["scenario", ...args], { cwd: sb.projectDir, env });
    const path = join(sb.root, "scenario.json");
    const derived = await cli(["from-session", "last", "--out", path]);
    expect(derived.code, derived.stderr).toBe(0);
    const scenario = editScenario(path, (s) => {
      expect(s.source_session.provider).toBe("codex");
      expect(s.setup_messages.map((m) => m.prompt)).toEqual([PROMPTS[0]]);
      expect(s.continuation_prompt).toBe(PROMPTS[1]);
      s.expected_facts = [
        { id: "grammar", pattern: "src/grammar\\.rs" },
        { id: "lexer", text: "lexer.rs" },
      ];
      s.forbidden_facts = [{ id: "shrug", text: "I don't know" }];
      s.validators = [{ name: "agents-md", command: "test -f AGENTS.md", timeout_s: 10, expect_exit: 0 }];
      s.limits = { max_turns: 2 };
    });
    const run = await runScenario(cli, path, archive, [
      "--against",
      "both",
      "--experiment-root",
      join(sb.root, "exp"),
      "--json",
    ]);
    expect(run.code, run.stderr).toBe(1);
    const result = JSON.parse(run.stdout) as ScenarioResult;
    const outcomes = result.samples.map((x) => Object.fromEntries(x.checks.map((c) => [c.id, c.outcome])));
    const expected = {
      grammar: "pass",
      lexer: "fail",
      shrug: "pass",
      "agents-md": "pass",
      max_turns: "pass",
    };
    expect(outcomes).toEqual([expected, expected]);
    expect(result.samples[1]!.run_session_id).toMatch(/^codex:/);
    expect(result.samples[1]!.run_session_id).not.toBe(scenario.source_session.session_id);
  }, 240_000);
});
