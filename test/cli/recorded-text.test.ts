// A cwd and a title recorded with a newline, a carriage return and escape sequences: every human output that
// shows them (import, list, show, inspect, du, usage) keeps each record on its own line and shows the
// controls as U+FFFD, so a transcript cannot forge a line of tapedeck's output nor steer the terminal.

import { mkdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runProgram } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { CLAUDE_FIXTURES, SAMPLE_ID, writeTranscript } from "../import/fixture.ts";

const temp = useTempProjects("tapedeck-recorded-text-");

const HOSTILE_DIR = "proj\nFORGED LINE\r\x1b[31mred\x1b]0;owned\x07";
const HOSTILE_TITLE = "title\nFORGED TITLE\r\x1b[2J\x1b]0;owned\x07 end";

/** The captured transcript with its cwd and first prompt replaced, escaped as JSON writes them. */
function hostileLines(cwd: string): string[] {
  const esc = (s: string) => JSON.stringify(s).slice(1, -1);
  return readFileSync(join(CLAUDE_FIXTURES, "transcript.sample.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) =>
      l
        .split("/home/user/project")
        .join(esc(cwd))
        .split("SCENARIO_BASH please run echo hello")
        .join(esc(HOSTILE_TITLE)),
    );
}

/** No recorded control reached the output, and no recorded text began a line of its own. */
function expectOneLineEach(text: string, what: string): void {
  expect(text, what).not.toMatch(/[\r\x1b\x07]/);
  for (const line of text.split("\n")) expect(line, what).not.toMatch(/^\s*(FORGED|red|0;owned)/);
}

function setUp() {
  const root = temp();
  const home = join(root, "home");
  const here = join(root, "here");
  const hostile = join(root, HOSTILE_DIR);
  for (const dir of [here, hostile]) mkdirSync(join(dir, ".git"), { recursive: true });
  writeTranscript(home, hostile, SAMPLE_ID, hostileLines(hostile));
  const env = {
    HOME: home,
    TAPEDECK_HOME: join(home, ".tapedeck"),
    CLAUDE_CONFIG_DIR: join(home, ".claude"),
    CODEX_HOME: join(home, ".codex"),
    GEMINI_CLI_HOME: home,
  };
  // From inside `here`, the project the user stands in.
  const anywhere = (args: string[]) => runProgram(args, { cwd: here, env });
  const run = (args: string[], project: string) => anywhere([...args, "--project", project]);
  return { root, hostile, run, anywhere };
}

describe("a recorded cwd and title with a newline, a carriage return and escapes", () => {
  it("are shown on their line by import, list, show, inspect, du and usage", async () => {
    const { hostile, run, anywhere } = setUp();
    const outputs: Array<[string, { code: number | null; stdout: string; stderr: string }]> = [];
    // Another project's import is asked for: the project, a recorded cwd, is listed on stderr.
    const asked = await anywhere(["import", "claude", "--all-projects"]);
    outputs.push(["import (asks)", asked]);
    expect(asked.stderr).toContain("proj\ufffdFORGED LINE\ufffd\ufffd");
    outputs.push(["import --dry-run", await anywhere(["import", "claude", "--all-projects", "--dry-run"])]);
    const imported = await anywhere(["import", "claude", "--all-projects", "--yes"]);
    expect(imported.code, imported.stderr).toBe(0);
    outputs.push(["import --yes", imported]);
    outputs.push(["list", await run(["list"], hostile)]);
    outputs.push(["list --all-projects", await anywhere(["list", "--all-projects"])]);
    outputs.push(["show", await run(["show", "last"], hostile)]);
    outputs.push(["inspect", await run(["inspect", "last"], hostile)]);
    outputs.push(["du --all-projects", await anywhere(["du", "--all-projects"])]);
    outputs.push(["usage session --all-projects", await anywhere(["usage", "session", "--all-projects"])]);
    for (const [what, r] of outputs) {
      expectOneLineEach(r.stdout, `${what}: stdout`);
      expectOneLineEach(r.stderr, `${what}: stderr`);
    }
    const list = outputs.find(([w]) => w === "list")![1].stdout;
    expect(list).toMatch(/title.FORGED TITLE/);
    expect(list.trimEnd().split("\n")).toHaveLength(2);
  });

  it("is one line of an error that names it", async () => {
    const { hostile, anywhere } = setUp();
    const r = await anywhere(["show", "nothing\nFORGED LINE\x1b[2J", "--project", hostile]);
    expect(r.code).toBe(3);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expectOneLineEach(r.stderr, "show's error");
  });

  it("is named on one line when the project it names is gone", async () => {
    const { root, hostile, anywhere } = setUp();
    renameSync(hostile, join(root, "moved"));
    const r = await anywhere(["import", "claude", "--all-projects", "--dry-run"]);
    expect(r.stderr).toContain("project not found: ");
    expectOneLineEach(r.stderr, "import's skipped reasons");
    expectOneLineEach(r.stdout, "import's plan");
  });
});
