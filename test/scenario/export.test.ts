import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { exportScenario, promptfooConfig } from "../../src/scenario/export.ts";
import { parseScenario } from "../../src/scenario/load.ts";
import { PromptfooConfig } from "./promptfoo-shape.ts";

const dir = mkdtempSync(join(tmpdir(), "tapedeck-export-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scenario = parseScenario(
  JSON.stringify({
    schema_version: 1,
    id: "review-abc",
    source_session: {
      provider: "claude",
      session_id: "claude:abc",
      archive: null,
      repository_revision: "deadbeef",
    },
    setup_messages: [{ prompt: "Remember: the codename is ZEPHYR", establishes_fact_ids: ["codename"] }],
    continuation_prompt: "What is the codename? {{not a var}}",
    expected_facts: [
      { id: "codename", text: "zephyr" },
      { id: "exact", text: "ZEPHYR", case_sensitive: true },
      { id: "shape", pattern: "ZEP[A-Z]+" },
      { id: "cs-shape", pattern: "ZEP[A-Z]+", case_sensitive: true },
    ],
    forbidden_facts: [
      { id: "unsure", text: "I don't know" },
      { id: "guess", pattern: "maybe" },
    ],
    validators: [
      { name: "ok", command: "test -f marker", timeout_s: 5 },
      { name: "bad", command: "exit 3", timeout_s: 5, expect_exit: 0 },
    ],
    limits: { max_duration_seconds: 60, max_turns: 4, max_cost_usd: 0.5, max_output_tokens: 1000 },
  }),
  "s.json",
);

describe("export --to promptfoo", () => {
  const config = promptfooConfig(scenario);

  it("fits promptfoo's published config schema", () => {
    const parsed = PromptfooConfig.safeParse(config);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  it("has one assertion per fact, validator and limit, of the documented types", () => {
    const t = (
      config.tests as Array<{ assert: Array<{ type: string; value?: unknown; threshold?: number }> }>
    )[0]!;
    expect(t.assert.map((a) => a.type)).toEqual([
      "icontains",
      "contains",
      "javascript",
      "regex",
      "not-icontains",
      "javascript",
      "javascript",
      "javascript",
      "latency",
      "cost",
      "javascript",
    ]);
    expect(t.assert[8]).toMatchObject({ threshold: 60_000 });
    expect(t.assert[6]).toMatchObject({ value: "file://validators.cjs:validator_0" });
    const providers = config.providers as Array<{ id: string; config: Record<string, unknown> }>;
    expect(providers[0]).toMatchObject({
      id: "anthropic:claude-agent-sdk",
      config: { working_dir: "./workspace", max_turns: 4, max_budget_usd: 0.5 },
    });
  });

  it("its inline javascript assertions judge an answer the way tapedeck does", () => {
    const t = (config.tests as Array<{ assert: Array<{ type: string; value: string }> }>)[0]!;
    const js = t.assert.filter((a) => a.type === "javascript" && !a.value.startsWith("file://"));
    const judge = (output: string, tokens: number) =>
      js.map((a) =>
        new Function("output", "context", `return (${a.value});`)(output, {
          providerResponse: { tokenUsage: { completion: tokens } },
        }),
      );
    expect(judge("it is zephyr", 10)).toEqual([true, true, true]);
    expect(judge("ZEPHYR, maybe", 2000)).toEqual([true, false, false]);
  });

  it("its validators module runs each command in the workspace and passes on the expected exit code", () => {
    const out = join(dir, "pf");
    mkdirSync(join(out, "workspace"), { recursive: true });
    for (const f of exportScenario(scenario, "promptfoo")) writeFileSync(join(out, f.name), f.text);
    writeFileSync(join(out, "workspace", "marker"), "");
    const mod = createRequire(import.meta.url)(join(out, "validators.cjs")) as Record<
      string,
      () => { pass: boolean }
    >;
    expect(mod.validator_0!().pass).toBe(true);
    expect(mod.validator_1!().pass).toBe(false);
  });

  it("keeps the prompt's text out of the template (vars are not rendered again)", () => {
    expect(config.prompts).toEqual(["{{prompt}}"]);
    const vars = (config.tests as Array<{ vars: { prompt: string } }>)[0]!.vars;
    expect(vars.prompt).toContain("Remember: the codename is ZEPHYR");
    expect(vars.prompt).toContain("What is the codename? {{not a var}}");
  });
});

describe("export --to inspect", () => {
  const files = exportScenario(scenario, "inspect");

  it("writes a task, a dataset sample with the prior turns, the scenario and a README", () => {
    expect(files.map((f) => f.name)).toEqual(["task.py", "dataset.jsonl", "scenario.json", "README.md"]);
    const sample = JSON.parse(files[1]!.text) as {
      id: string;
      input: Array<{ role: string; content: string }>;
    };
    expect(sample.id).toBe("review-abc");
    expect(sample.input.map((m) => m.content)).toEqual([
      "Remember: the codename is ZEPHYR",
      "What is the codename? {{not a var}}",
    ]);
    const task = files[0]!.text;
    expect(task).toContain("time_limit=60");
    expect(task).toContain("message_limit=9");
    expect(task).toContain("def review_abc():");
  });

  it("is valid Python", () => {
    const out = join(dir, "inspect");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "task.py"), files[0]!.text);
    const r = spawnSync(
      "python3",
      ["-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())", join(out, "task.py")],
      {
        encoding: "utf8",
      },
    );
    expect(r.status, r.stderr).toBe(0);
  });
});
