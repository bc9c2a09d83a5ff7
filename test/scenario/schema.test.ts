import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderScenarioSchemas, Scenario, ScenarioResult } from "../../src/scenario/schema.ts";
import { MINIMAL_SCENARIO } from "./fixtures.ts";

describe("scenario JSON Schema files", () => {
  it("are current with the zod schemas", () => {
    const rendered = renderScenarioSchemas();
    expect(Object.keys(rendered).sort()).toEqual([
      "scenario-result.v1.schema.json",
      "scenario.v1.schema.json",
    ]);
    for (const [name, text] of Object.entries(rendered)) {
      expect(readFileSync(join("schemas", name), "utf8"), `${name} is stale: run npm run schemas`).toBe(text);
    }
  });

  it("the scenario file schema accepts a file without the defaulted fields (a hand-written one)", () => {
    const json = JSON.parse(renderScenarioSchemas()["scenario.v1.schema.json"]!) as { required: string[] };
    expect(json.required).not.toContain("expected_facts");
    expect(json.required).toEqual(
      expect.arrayContaining(["schema_version", "id", "source_session", "continuation_prompt"]),
    );
  });

  it("facts are a text or a pattern, never both or neither", () => {
    const base = MINIMAL_SCENARIO;
    expect(Scenario.safeParse({ ...base, expected_facts: [{ id: "a", text: "x" }] }).success).toBe(true);
    expect(
      Scenario.safeParse({ ...base, expected_facts: [{ id: "a", pattern: "x", flags: "m" }] }).success,
    ).toBe(true);
    expect(
      Scenario.safeParse({ ...base, expected_facts: [{ id: "a", text: "x", pattern: "y" }] }).success,
    ).toBe(false);
    expect(Scenario.safeParse({ ...base, expected_facts: [{ id: "a" }] }).success).toBe(false);
    expect(
      Scenario.safeParse({ ...base, expected_facts: [{ id: "a", pattern: "x", flags: "g" }] }).success,
    ).toBe(false);
    expect(ScenarioResult.safeParse({}).success).toBe(false);
  });
});
