// @module-tag claude
// @module-tag promptfoo
// `tapedeck scenario export --to promptfoo --with-workspace` run by promptfoo itself (0.123, on the Node 22
// that scripts/test-promptfoo.mjs installs from npm): `promptfoo validate` accepts the config and
// `promptfoo eval` runs it with the export's own provider, which plays the conversation through the real
// claude CLI (offline, against the mock) in the prepared workspace: one session, a turn per message, the
// earlier turns in the last request; every fact, validator and limit graded as tapedeck grades it.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Scenario } from "../../src/scenario/schema.ts";
import { CLAUDE_BIN, offlineClaudeEnv } from "./claude-runner.ts";
import { commitProject, type Run, tapedeck } from "./replay-harness.ts";
import { REPO, useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();

interface Promptfoo {
  node: string;
  promptfoo: string;
  version: string;
}

const SETUP = ["SCENARIO_SAY Ready when you are.", "file://etc/passwd is a path, not a file to load"];
const CONTINUATION = 'SCENARIO_SAY The cache lives in IndexStore ("nightly" {{ not_a_var }}).';

describe("promptfoo runs the export", () => {
  const sb = useClaudeSandbox("scenario-promptfoo");
  let pf: Promptfoo;
  let revision = "";
  const out = () => join(sb.root, "export");

  function promptfoo(args: string[], env: Record<string, string>): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        pf.node,
        [pf.promptfoo, ...args],
        { cwd: out(), env, encoding: "utf8", timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr }),
      );
    });
  }

  beforeAll(() => {
    // Installed once into a cache (npm test's prerequisites step does it before the suite).
    const found = execFileSync(process.execPath, [join(REPO, "scripts", "test-promptfoo.mjs")], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
      timeout: 900_000,
    });
    pf = JSON.parse(found) as Promptfoo;
    revision = commitProject(sb.projectDir, "CLAUDE.md", "A project to review.");
    // Uncommitted: only workspace.files brings it into the workspace.
    writeFileSync(join(sb.projectDir, "fixture.txt"), "local fixture\n");
  }, 900_000);

  it("export --with-workspace: the project at its revision and the scenario's files, then validate and eval", async () => {
    const scenario: Scenario = {
      schema_version: 1,
      id: "promptfoo-e2e",
      category: "session-review",
      source_session: {
        provider: "claude",
        session_id: "claude:00000000-0000-4000-8000-000000000000",
        archive: null,
        repository_revision: revision,
      },
      workspace: { revision, files: ["fixture.txt"] },
      setup_messages: SETUP.map((prompt) => ({ prompt, establishes_fact_ids: [] })),
      continuation_prompt: CONTINUATION,
      expected_facts: [
        { id: "names-indexstore", text: "indexstore" },
        { id: "shape", pattern: "index\\s*store" },
        { id: "names-redis", text: "Redis" },
      ],
      forbidden_facts: [{ id: "no-shrug", text: "I don't know" }],
      validators: [
        { name: "tree", command: "test -f README.md && test -f fixture.txt", timeout_s: 10, expect_exit: 0 },
        { name: "always-fails", command: "exit 3", timeout_s: 10, expect_exit: 0 },
      ],
      limits: { max_duration_seconds: 180, max_output_tokens: 100000 },
    } as Scenario;
    const file = join(sb.root, "scenario.json");
    writeFileSync(file, JSON.stringify(scenario, null, 2));
    mkdirSync(out());
    const env = { ...offlineClaudeEnv(sb.home, sb.mock.url) };
    const exported = await tapedeck(
      ["scenario", "export", file, "--to", "promptfoo", "--out", out(), "--with-workspace", "--json"],
      { cwd: sb.projectDir, env },
    );
    expect(exported.code, exported.stderr).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({ notes: [] });
    const ws = join(out(), "workspace");
    expect(execFileSync("git", ["-C", ws, "rev-parse", "HEAD"], { encoding: "utf8" }).trim()).toBe(revision);
    expect(readFileSync(join(ws, "fixture.txt"), "utf8")).toBe("local fixture\n");
    // A second export into the same place does not touch the workspace it made.
    const again = await tapedeck(
      ["scenario", "export", file, "--to", "promptfoo", "--out", out(), "--with-workspace"],
      { cwd: sb.projectDir, env },
    );
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("exists");

    const pfEnv = {
      ...env,
      // The claude the tests pin, found by the export's provider on PATH.
      PATH: `${dirname(CLAUDE_BIN)}:${env.PATH}`,
      PROMPTFOO_CONFIG_DIR: join(sb.root, "promptfoo-home"),
      PROMPTFOO_DISABLE_TELEMETRY: "1",
      PROMPTFOO_DISABLE_UPDATE: "1",
    };
    const valid = await promptfoo(["validate", "-c", "promptfooconfig.yaml"], pfEnv);
    expect(valid.code, valid.stderr).toBe(0);
    expect(valid.stdout).toContain("Configuration is valid");

    const before = sb.mock.requests.length;
    const run = await promptfoo(
      ["eval", "-c", "promptfooconfig.yaml", "-o", "results.json", "--no-progress-bar"],
      pfEnv,
    );
    // promptfoo exits 100 when a test fails: names-redis and always-fails do.
    expect(run.code, run.stderr).toBe(100);
    const results = JSON.parse(readFileSync(join(out(), "results.json"), "utf8"));
    expect(results.results.version).toBe(3);
    const [r] = results.results.results;
    expect(r.response.error ?? null).toBeNull();
    expect(r.response.output).toContain("IndexStore");
    expect(r.response.metadata).toMatchObject({ turns: 3 });
    expect(r.response.tokenUsage.completion).toBeGreaterThan(0);
    const outcome = (
      r.gradingResult.componentResults as Array<{ pass: boolean; assertion: { metric: string } }>
    ).map((c) => [c.assertion.metric, c.pass]);
    expect(outcome).toEqual([
      ["expected_facts", true],
      ["expected_facts", true],
      ["expected_facts", false],
      ["forbidden_facts", true],
      ["validator:tree", true],
      ["validator:always-fails", false],
      ["limits", true],
      ["limits", true],
    ]);

    // One claude session, a turn per message: the last request carries the earlier turns.
    const turns = sb.mock.requests
      .slice(before)
      .filter((q) => q.path.startsWith("/v1/messages") && q.agentId === null && q.sessionId);
    expect(new Set(turns.map((q) => q.sessionId)).size).toBe(1);
    const last = JSON.stringify(
      turns.filter((q) => JSON.stringify(q.body).includes("IndexStore")).at(-1)!.body,
    );
    for (const prompt of SETUP) expect(last).toContain(prompt);
    // Nothing was read from the path the second setup message names.
    expect(last).not.toContain("root:x:0:0");
    expect(existsSync(join(ws, ".git"))).toBe(true);
  }, 600_000);
});
