// `tapedeck import` as a command: its JSON, its exit codes, what it says about what it skipped, and that it
// asks before writing into another project. In process, but for the full disk: a file size limit (ulimit -f)
// is a process's own, so that import runs the built CLI under it.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { REASONS } from "../../src/import/plan.ts";
import { CLI, ensureBuilt } from "../helpers/cli-run.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { identity, spec } from "../helpers/session.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import {
  claudeTurns,
  fixtureLines,
  SAMPLE_ID,
  SUBAGENT_SESSION,
  transcriptPath,
  writeTranscript,
} from "../import/fixture.ts";

const temp = useTempProjects("tapedeck-cli-import-");
beforeAll(ensureBuilt);

function setUp() {
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
  const runAll = (args: string[]) => runCliInProcess(args, home, env);
  return { home, project, run, runAll };
}

describe("tapedeck import", () => {
  it("--json: what was imported and skipped, sessions and events; exit 0, then 0 with nothing new", async () => {
    const { home, project, run } = setUp();
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    execFileSync("mkfifo", [transcriptPath(home, project, "fifo-session")]);
    const first = await run(["import", "claude", "--json"]);
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out).toMatchObject({
      sessions: 1,
      events: 8,
      dry_run: false,
      imported: [
        { provider: "claude", session_id: `claude:${SAMPLE_ID}`, status: "new", events: 8, torn_tail: false },
      ],
      skipped: [
        {
          source: transcriptPath(home, project, "fifo-session"),
          reason: expect.stringContaining("not a regular file"),
        },
      ],
    });
    const again = JSON.parse((await run(["import", "claude", "--json"])).stdout);
    expect(again).toMatchObject({ sessions: 0, events: 0, unchanged: 1 });
  });

  it("--dry-run lists sessions, bytes and dates, and writes nothing", async () => {
    const { home, project, run } = setUp();
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    const r = await run(["import", "all", "--dry-run"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Would import 1 session\(s\), [\d.]+ KB, 2026-11-29 18:40 → 2026-11-29 18:40:$/m,
    );
    expect(r.stdout).toContain(SAMPLE_ID);
    expect(existsSync(join(project, ".tapedeck"))).toBe(false);
  });

  it("from tapedeck's own home: refused with its reason alone, no 'no sessions found' beside it", async () => {
    const { home, project, runAll } = setUp();
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    const r = await runAll(["import", "all", "--dry-run", "--project", home]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is tapedeck's own folder (its user home), not a project");
    expect(r.stderr).not.toContain("sessions found");
    const nothing = join(temp(), "nothing");
    mkdirSync(join(nothing, ".git"), { recursive: true });
    const empty = await runAll(["import", "all", "--project", nothing]);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain(`no agent sessions found for ${nothing}`);
  });

  it("exit 3 when the agent has no session for the project, saying where others are; 2 for a wrong source", async () => {
    const { home, project, run } = setUp();
    const other = join(temp(), "elsewhere");
    writeTranscript(home, other, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", other));
    const none = await run(["import", "claude"]);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain("no Claude Code sessions found for");
    expect(none.stderr).toContain("1 session(s) of other projects left out (--all-projects");
    expect((await run(["import", "antigravity"])).code).toBe(2);
    expect((await run(["import", "claude", "--all-projects"])).code).toBe(2);
    expect(existsSync(join(project, ".tapedeck"))).toBe(false);
  });

  it("exit 0 when the project's only session is one its hooks recorded: found, skipped with why, not 'none found'", async () => {
    const { home, project, run } = setUp();
    writeTranscript(home, project, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", project));
    recordEvents(spec(project, { identity: identity(SAMPLE_ID, "claude") }), [
      { kind: "session_start", event_id: "s1", payload: { source: "startup" } },
    ]);
    const json = await run(["import", "claude", "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      sessions: 0,
      skipped: [{ reason: REASONS.hooks }],
    });
    const human = await run(["import", "claude"]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).not.toContain("no Claude Code sessions found");
    expect(human.stderr).toContain(REASONS.hooks);
  });

  it("--all-projects asks before writing into another project: without a terminal only --yes does", async () => {
    const { home, runAll } = setUp();
    const other = join(temp(), "other");
    mkdirSync(join(other, ".git"), { recursive: true });
    writeTranscript(home, other, SAMPLE_ID, fixtureLines("transcript.sample.jsonl", other));
    const refused = await runAll(["import", "claude", "--all-projects"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("pass --yes");
    expect(existsSync(join(other, ".tapedeck"))).toBe(false);
    const yes = await runAll(["import", "claude", "--all-projects", "--yes", "--json"]);
    expect(yes.code, yes.stderr).toBe(0);
    expect(JSON.parse(yes.stdout).imported[0].project).toBe(other);
    expect(existsSync(join(other, ".tapedeck", "claude-sessions", SAMPLE_ID, "manifest.json"))).toBe(true);
  });

  it("--help says what it reads and every option", async () => {
    const r = await runCliInProcess(["import", "--help"], temp());
    expect(r.code).toBe(0);
    for (const o of ["--project", "--all-projects", "--since", "--dry-run", "--json", "--yes"])
      expect(r.stdout).toContain(o);
    expect(r.stdout).toMatch(/choices: "claude", "codex",\s+"gemini", "all"/);
    expect(r.stdout).toContain("tapedeck import claude --dry-run");
  });
});

describe("tapedeck import on a full disk", () => {
  /**
   * The import under a file size limit (RLIMIT_FSIZE, SIGXFSZ ignored): a write past it fails with EFBIG, cut
   * short where the limit is, as a full disk cuts it.
   */
  function runLimited(home: string, project: string, kb: number, args: string[] = []) {
    const r = spawnSync(
      "bash",
      [
        "-c",
        `trap '' XFSZ; ulimit -f ${kb}; exec "$0" "$@"`,
        process.execPath,
        CLI,
        "import",
        "claude",
        "--project",
        project,
        ...args,
      ],
      {
        encoding: "utf8",
        env: { ...process.env, HOME: home, TAPEDECK_HOME: join(home, ".tapedeck") },
        input: "",
      },
    );
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }
  const sessionsOf = (project: string) => join(project, ".tapedeck", "claude-sessions");
  const linesOf = (project: string, id: string) =>
    readFileSync(join(sessionsOf(project), id, "events.jsonl"), "utf8").split("\n").length - 1;

  it("a session stopped part-way reports the events it got (--json and on screen); the next import completes it", async () => {
    for (const json of [true, false]) {
      const { home, project, run } = setUp();
      // 701 events, about 370 KB of events.jsonl: the second batch of 200 meets the limit.
      writeTranscript(home, project, SAMPLE_ID, claudeTurns(project, 0, 100));
      const failed = runLimited(home, project, 160, json ? ["--json"] : []);
      expect(failed.code, failed.stderr).toBe(1);
      const got = linesOf(project, SAMPLE_ID);
      expect(got).toBeGreaterThan(200);
      expect(got).toBeLessThan(701);
      if (json) {
        expect(JSON.parse(failed.stdout)).toMatchObject({
          sessions: 1,
          events: got,
          failed: 1,
          imported: [{ session_id: `claude:${SAMPLE_ID}`, status: "new", events: got, error: "EFBIG" }],
          skipped: [{ reason: "import failed (EFBIG)" }],
        });
      } else {
        expect(failed.stdout).toContain(`${SAMPLE_ID}  new  ${got} events (stopped part-way (EFBIG))`);
        expect(failed.stdout).toContain(`Imported 1 session(s), ${got} event(s)`);
        expect(failed.stdout).toContain("tapedeck import again resumes them");
        expect(failed.stderr).toContain("import failed (EFBIG)");
      }
      const done = await run(["import", "claude", "--json"]);
      expect(done.code, done.stderr).toBe(0);
      expect(JSON.parse(done.stdout).imported[0]).toMatchObject({ resumed: true, events: 701 - got });
      expect(linesOf(project, SAMPLE_ID)).toBe(701);
    }
  });

  it("a new session stopped before its first event leaves no directory behind", async () => {
    const { home, project, run } = setUp();
    writeTranscript(home, project, SAMPLE_ID, claudeTurns(project, 0, 3));
    writeTranscript(home, project, SUBAGENT_SESSION, claudeTurns(project, 3, 3));
    // Not even a manifest fits.
    const failed = runLimited(home, project, 1, ["--json"]);
    expect(failed.code, failed.stderr).toBe(1);
    expect(JSON.parse(failed.stdout)).toMatchObject({ sessions: 0, events: 0, failed: 2, imported: [] });
    expect(readdirSync(sessionsOf(project))).toEqual([]);
    const done = await run(["import", "claude", "--json"]);
    expect(JSON.parse(done.stdout)).toMatchObject({ sessions: 2, events: 44, failed: 0 });
  });
});
