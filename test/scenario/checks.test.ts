import { describe, expect, it } from "vitest";
import { answerCheck, factChecks, limitChecks } from "../../src/scenario/checks.ts";
import { parseScenario } from "../../src/scenario/load.ts";
import { MINIMAL_SCENARIO } from "./fixtures.ts";

const scenario = parseScenario(
  JSON.stringify({
    ...MINIMAL_SCENARIO,
    expected_facts: [{ id: "store", text: "IndexStore" }],
    forbidden_facts: [{ id: "shrug", pattern: "don'?t know" }],
  }),
  "s.json",
);

describe("checks", () => {
  it("an answer without the fact fails it; a missing answer fails expected facts but states nothing forbidden", () => {
    expect(factChecks(scenario, "no such thing").map((c) => c.outcome)).toEqual(["fail", "pass"]);
    expect(factChecks(scenario, null).map((c) => [c.outcome, c.evidence])).toEqual([
      ["fail", "no final answer"],
      ["pass", "no final answer"],
    ]);
  });

  it("the excerpt is the match with context, on one line", () => {
    const answer = `${"a ".repeat(100)}the\nindexstore\nholds it${" b".repeat(100)}`;
    const [c] = factChecks(scenario, answer);
    expect(c!.evidence).toMatch(/^….*the indexstore holds it.*…$/);
    expect(c!.evidence!.length).toBeLessThan(200);
  });

  it("a limit without a figure is not measured, and does not fail", () => {
    const checks = limitChecks(
      { max_turns: 2, max_cost_usd: 1, max_output_tokens: null },
      {
        finalAnswer: "",
        durationSeconds: null,
        inputTokens: null,
        outputTokens: null,
        turns: 3,
        injectedBytes: null,
        costUsd: null,
      },
    );
    expect(checks.map((c) => [c.id, c.outcome])).toEqual([
      ["max_turns", "fail"],
      ["max_cost_usd", "not_measured"],
    ]);
  });

  it("answerCheck grades the facts an experiment records, patterns and plain strings alike", () => {
    expect(answerCheck(scenario.expected_facts, scenario.forbidden_facts, "see indexstore")).toEqual({
      passed: true,
      missing: [],
      forbidden: [],
    });
    expect(answerCheck(["Zephyr"], [{ id: "x", pattern: "maybe|perhaps" }], "PERHAPS it is zephyr")).toEqual({
      passed: false,
      missing: [],
      forbidden: ["x"],
    });
    expect(answerCheck(["a"], [], undefined).passed).toBe(false);
  });
});
