// @module-tag claude
// `tapedeck scenario run --against replay` over two arms with the real claude, against a mock that answers
// from what its context holds (the codename only when the project's CLAUDE.md reached the request): the same
// checks tell the arm with native memory from the one without, repetition after repetition.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnthropicMock } from "../../src/demo/anthropic-mock.ts";
import type { ScenarioResult } from "../../src/scenario/schema.ts";
import { CODENAME, recordRecallBaseline, startRecallMock } from "./baseline.ts";
import { editScenario, runScenario, tapedeck } from "./replay-harness.ts";
import { useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();

describe("tapedeck scenario run over two arms (claude)", () => {
  const sb = useClaudeSandbox("scenario-arms");
  let mock: AnthropicMock;
  let env: Record<string, string> = {};
  let archive = "";

  beforeAll(async () => {
    mock = await startRecallMock(CODENAME);
    const recorded = await recordRecallBaseline(sb, mock, "SCENARIO_SAY Looking around.");
    env = recorded.env;
    archive = recorded.baseline.archive;
  }, 180_000);

  afterAll(async () => {
    await mock?.close();
  });

  it("the arm with native memory passes every repetition, the arm without fails every one", async () => {
    const cli = (args: string[]) => tapedeck(["scenario", ...args], { cwd: sb.projectDir, env });
    const path = join(sb.root, "recall.json");
    expect((await cli(["from-session", "last", "--id", "recall-codename", "--out", path])).code).toBe(0);
    editScenario(path, (s) => {
      s.expected_facts = [{ id: "codename", text: "zephyr-7" }];
      s.forbidden_facts = [{ id: "shrug", pattern: "do(es)? not know" }];
    });
    const run = await runScenario(cli, path, archive, [
      "--against",
      "replay",
      "--arm",
      "memory:native-memory=on",
      "--arm",
      "bare:native-memory=off",
      "--repeat",
      "2",
      "--experiment-root",
      join(sb.root, "exp"),
      "--out",
      join(sb.root, "result.json"),
    ]);
    expect(run.code, run.stderr).toBe(1);
    const result = JSON.parse(readFileSync(join(sb.root, "result.json"), "utf8")) as ScenarioResult;
    const passRate = (arm: string) => {
      const mine = result.samples.filter((x) => x.arm === arm);
      return `${mine.filter((x) => x.passed).length}/${mine.length}`;
    };
    expect(passRate("memory")).toBe("2/2");
    expect(passRate("bare")).toBe("0/2");
    expect(result.samples.map((x) => `${x.arm}#${x.repetition}`)).toEqual([
      "memory#1",
      "bare#1",
      "bare#2",
      "memory#2",
    ]);
    const bare = result.samples.find((x) => x.arm === "bare")!;
    expect(bare.checks.map((c) => [c.id, c.outcome])).toEqual(
      expect.arrayContaining([
        ["codename", "fail"],
        ["shrug", "fail"],
      ]),
    );
    expect(bare.labels).toMatchObject({ native_memory: "off", provider: "claude" });
    expect(new Set(result.samples.map((x) => x.run_session_id)).size).toBe(4);
  }, 300_000);
});
