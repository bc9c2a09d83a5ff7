import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { factRegExp, loadScenarioFile, parseScenario, ScenarioFileError } from "../../src/scenario/load.ts";

const GOOD = {
  schema_version: 1,
  id: "review-1",
  source_session: { provider: "claude", session_id: "claude:abc", archive: null, repository_revision: null },
  setup_messages: [{ prompt: "first", establishes_fact_ids: ["f1"] }],
  continuation_prompt: "now answer",
  expected_facts: [{ id: "f1", text: "IndexStore" }],
  forbidden_facts: [{ id: "f2", pattern: "rm -rf\\s+/" }],
  validators: [{ name: "tests", command: "true" }],
  limits: { max_turns: 3 },
};

function problems(value: unknown): ScenarioFileError["problems"] {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  try {
    parseScenario(text, "s.json");
  } catch (error) {
    if (error instanceof ScenarioFileError) return error.problems;
    throw error;
  }
  throw new Error("expected a problem");
}

/** The 1-based line of the first line holding `needle`. */
function lineWith(value: unknown, needle: string): number {
  return (
    JSON.stringify(value, null, 2)
      .split("\n")
      .findIndex((l) => l.includes(needle)) + 1
  );
}

describe("parseScenario", () => {
  it("accepts a valid file and fills the defaults", () => {
    const s = parseScenario(JSON.stringify(GOOD), "s.json");
    expect(s.validators[0]).toMatchObject({ timeout_s: 60, expect_exit: 0 });
    expect(s.category).toBe("session-review");
  });

  it("names the field and the line of an invalid regular expression", () => {
    const bad = { ...GOOD, forbidden_facts: [{ id: "f2", pattern: "([unclosed" }] };
    const [p] = problems(bad);
    expect(p!.field).toBe("forbidden_facts[0].pattern");
    expect(p!.line).toBe(lineWith(bad, "([unclosed"));
    expect(p!.message).toMatch(/not a valid regular expression/);
  });

  it("names an unknown key (a typo) at its own line", () => {
    const bad = { ...GOOD, limits: { max_turns: 3, max_durration_seconds: 5 } };
    const [p] = problems(bad);
    expect(p!.field).toBe("limits.max_durration_seconds");
    expect(p!.line).toBe(lineWith(bad, "max_durration_seconds"));
  });

  it("names a wrongly typed value, a missing field, duplicate ids and a dangling fact id", () => {
    const bad = {
      ...GOOD,
      continuation_prompt: undefined,
      validators: [{ name: "tests", command: "true", timeout_s: "ten" }],
      expected_facts: [
        { id: "f1", text: "a" },
        { id: "f1", text: "b" },
      ],
    };
    const fields = problems(bad).map((p) => p.field);
    expect(fields).toEqual(expect.arrayContaining(["continuation_prompt", "validators[0].timeout_s"]));
    const dup = {
      ...GOOD,
      expected_facts: [
        { id: "f1", text: "a" },
        { id: "f1", text: "b" },
      ],
    };
    expect(problems(dup)[0]).toMatchObject({ field: "expected_facts[1].id", line: lineWith(dup, '"b"') - 1 });
    const dangling = { ...GOOD, setup_messages: [{ prompt: "x", establishes_fact_ids: ["nope"] }] };
    expect(problems(dangling)[0]).toMatchObject({ field: "setup_messages[0].establishes_fact_ids[0]" });
  });

  it("reports bad JSON by line without quoting the text", () => {
    const text = '{\n  "id": "x",\n  "secret": "sk-ant-api03-abcdefghijklmnop" oops\n}';
    const [p] = problems(text);
    expect(p!.line).toBe(3);
    expect(JSON.stringify(p)).not.toContain("sk-ant");
  });
});

describe("hostile files", () => {
  it("a deeply nested value is a problem with a line, not a crash", () => {
    const deep = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;
    const text = JSON.stringify({ ...GOOD, description: "x" }).replace('"x"', deep);
    const found = problems(text);
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]!.line).toBe(1);
  });

  it("a file that is not an object names the file", () => {
    expect(problems("[1, 2]")[0]!.field).toBe("");
    expect(problems('"just a string"')[0]!.line).toBe(1);
  });
});

describe("factRegExp", () => {
  it("matches case-insensitively by default, literally for a text, and as asked otherwise", () => {
    expect(factRegExp({ id: "a", text: "a.b(c)" }).test("A.B(C)")).toBe(true);
    expect(factRegExp({ id: "a", text: "a.b" }).test("axb")).toBe(false);
    expect(factRegExp({ id: "a", text: "Index", case_sensitive: true }).test("index")).toBe(false);
    expect(factRegExp({ id: "a", pattern: "^flush$", flags: "m" }).test("x\nFLUSH\ny")).toBe(true);
  });
});

describe("loadScenarioFile", () => {
  const dir = mkdtempSync(join(tmpdir(), "tapedeck-load-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const problem = (path: string) => {
    try {
      loadScenarioFile(path);
    } catch (error) {
      if (error instanceof ScenarioFileError) return error.problems[0]!.message;
      throw error;
    }
    return "";
  };

  it("says why a FIFO, a file over 8 MiB or a missing file cannot be read, without blocking", () => {
    const fifo = join(dir, "f.json");
    execFileSync("mkfifo", [fifo]);
    expect(problem(fifo)).toBe("cannot read the file: is not a regular file");
    const big = join(dir, "big.json");
    writeFileSync(big, Buffer.alloc(9 * 1024 * 1024, 0x20));
    expect(problem(big)).toMatch(/cannot read the file: is larger than 8388608 bytes/);
    expect(problem(join(dir, "nope.json"))).toBe("cannot read the file: ENOENT");
  });

  it("hashes the exact bytes", () => {
    const text = JSON.stringify(GOOD);
    const path = join(dir, "ok.json");
    writeFileSync(path, text);
    expect(loadScenarioFile(path).sha256).toBe(createHash("sha256").update(text).digest("hex"));
  });
});
