// `tapedeck import --dry-run` with nothing new to import: it says so, never an empty plan of `? → ?`
// (issue 41, item 12).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { fixtureLines, SAMPLE_ID, writeTranscript } from "../import/fixture.ts";

const temp = useTempProjects("tapedeck-cli-import-plan-");

describe("tapedeck import --dry-run", () => {
  it("after an import of everything: nothing to import, how many are unchanged, no empty range", async () => {
    const root = temp();
    const home = join(root, "home");
    const project = join(root, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    const env = {
      CLAUDE_CONFIG_DIR: join(home, ".claude"),
      CODEX_HOME: join(home, ".codex"),
      GEMINI_CLI_HOME: home,
    };
    const run = (args: string[]) => runCliInProcess([...args, "--project", project], home, env);
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    const first = await run(["import", "claude", "--yes"]);
    expect(first.code, first.stderr).toBe(0);
    const plan = await run(["import", "claude", "--dry-run"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toBe("Nothing to import: 1 session(s) imported before and unchanged since\n");
    expect(plan.stdout).not.toContain("?");
  });
});
