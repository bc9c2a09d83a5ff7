import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
    expect(providers[0]).toEqual({
      id: "file://agent.cjs",
      label: "claude",
      config: { working_dir: "./workspace", max_budget_usd: 0.5 },
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

  it("is a conversation: a chat-format prompt over the setup messages and the continuation as user turns", () => {
    expect(config.prompts).toEqual([{ raw: "{{ messages | dump }}", label: "conversation" }]);
    const vars = (config.tests as Array<{ vars: Record<string, unknown> }>)[0]!.vars;
    // No string var of prompt text: promptfoo would read one starting with file:// as a file.
    expect(vars).toEqual({
      messages: [
        { role: "user", content: "Remember: the codename is ZEPHYR" },
        { role: "user", content: "What is the codename? {{not a var}}" },
      ],
    });
  });

  it("its agent.cjs plays the conversation as one session, a CLI turn per message, each resuming it", async () => {
    const out = join(dir, "agent");
    mkdirSync(join(out, "workspace"), { recursive: true });
    for (const f of exportScenario(scenario, "promptfoo")) writeFileSync(join(out, f.name), f.text);
    // A stand-in for claude -p: records its arguments and stdin, answers as claude's JSON result does.
    const log = join(out, "calls.jsonl");
    const fake = join(out, "fake-claude");
    writeFileSync(
      fake,
      `#!/usr/bin/env node
const fs = require("node:fs");
const input = fs.readFileSync(0, "utf8");
fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args: process.argv.slice(2), input, cwd: process.cwd() }) + "\\n");
const i = process.argv.indexOf("--session-id") + 1 || process.argv.indexOf("--resume") + 1;
console.log(JSON.stringify({ type: "result", is_error: false, result: "answer to " + input, session_id: process.argv[i], total_cost_usd: 0.01, usage: { input_tokens: 3, cache_read_input_tokens: 4, cache_creation_input_tokens: 5, output_tokens: 7 } }));
`,
    );
    chmodSync(fake, 0o755);
    const Provider = createRequire(import.meta.url)(join(out, "agent.cjs")) as new (
      o: unknown,
    ) => {
      callApi(prompt: string): Promise<Record<string, unknown>>;
    };
    const exported = (config.providers as Array<{ config: Record<string, unknown> }>)[0]!.config;
    const p = new Provider({ id: "file://agent.cjs", config: { ...exported, bin: fake } });
    const messages = (config.tests as Array<{ vars: { messages: unknown } }>)[0]!.vars.messages;
    const r = await p.callApi(JSON.stringify(messages));
    expect(r).toMatchObject({
      output: "answer to What is the codename? {{not a var}}",
      tokenUsage: { prompt: 24, completion: 14, total: 38, numRequests: 2 },
      metadata: { turns: 2 },
    });
    expect(r.cost).toBeCloseTo(0.02);
    const calls = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { args: string[]; input: string; cwd: string });
    expect(calls.map((c) => c.input)).toEqual([
      "Remember: the codename is ZEPHYR",
      "What is the codename? {{not a var}}",
    ]);
    const first = calls[0]!.args;
    const session = first[first.indexOf("--session-id") + 1]!;
    expect(session).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[1]!.args).toEqual(expect.arrayContaining(["--resume", session, "--max-budget-usd", "0.5"]));
    expect(calls.every((c) => c.cwd === join(out, "workspace"))).toBe(true);
    // A failing turn is the result's error, named by its turn; no workspace, a clear error.
    const broken = new Provider({ config: { bin: "/bin/false" } });
    expect((await broken.callApi(JSON.stringify(messages))).error).toMatch(/exited with 1 on turn 1 of 2/);
    rmSync(join(out, "workspace"), { recursive: true });
    expect((await p.callApi("plain")).error).toMatch(/workspace does not exist: make it with tapedeck/);
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
