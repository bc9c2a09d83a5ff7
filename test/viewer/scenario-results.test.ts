import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readScenarioResult } from "../../src/viewer/scenario-results.ts";

const dir = mkdtempSync(join(tmpdir(), "tapedeck-viewer-results-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe("view --scenario-result", () => {
  it("reads a result artifact that matches its schema", () => {
    const result = {
      schema_version: 1,
      scenario: { id: "s", sha256: "0".repeat(64), path: "s.json" },
      source_session_id: "claude:x",
      against: "recorded",
      created_at: "2026-12-01T10:00:00.000Z",
      experiment_root: null,
      passed: true,
      samples: [],
    };
    expect(readScenarioResult(file("ok.json", JSON.stringify(result))).scenario.id).toBe("s");
  });

  it("says why a file is not one: not JSON, another shape, a symlink", () => {
    expect(() => readScenarioResult(file("bad.json", "{"))).toThrow(/bad\.json: not JSON/);
    expect(() => readScenarioResult(file("other.json", '{"schema_version":1}'))).toThrow(
      /other\.json: not a scenario result \(scenario: /,
    );
    const link = join(dir, "link.json");
    symlinkSync(join(dir, "bad.json"), link);
    expect(() => readScenarioResult(link)).toThrow(/link\.json/);
  });
});
