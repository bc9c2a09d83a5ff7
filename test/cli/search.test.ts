// `tapedeck search` and `tapedeck index` as a user runs them, in process (test/helpers/program.ts); the
// built dist/cli.js for updates in processes of their own at once.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { openDatabase } from "../../src/memory/index/sqlite.ts";
import { runProgram } from "../helpers/program.ts";
import { event, identity, spec, useTempProjects } from "../helpers/session.ts";

const CLI = join(process.cwd(), "dist", "cli.js");

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

const project = useTempProjects("tapedeck-search-cli-");

function cli(args: string[], env: Record<string, string> = {}) {
  return runProgram(args, { env: { TAPEDECK_HOME: join(project(), "home"), ...env } });
}

function seeded(): string {
  const root = project();
  recordEvents(spec(root, { identity: identity("s-1") }), [
    event("user_prompt", "a", { prompt: "rename \u001b]0;pwned\u0007 the recorder module" }),
    event("tool_call", "b", {
      tool_name: "Bash",
      tool_input: { command: "git mv src/core/store.ts src/core/archive-store.ts" },
    }),
  ]);
  return root;
}

describe("tapedeck search", () => {
  it("prints ranked hits (plain when piped) and exits 0; 1 with none; 2 for a bad query", async () => {
    const root = seeded();
    const found = await cli(["search", "recorder", "--project", root]);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain("claude  s-1  #1  user_prompt");
    expect(found.stdout).toContain("the recorder module");
    // Piped: no highlighting, and the recorded escape sequence never reaches the terminal.
    expect(found.stdout).not.toContain("\u001b");
    expect(found.stdout).not.toContain("\ue000");
    const none = await cli(["search", "absent", "--project", root]);
    expect(none).toMatchObject({ code: 1, stdout: "" });
    expect(none.stderr).toContain("no matches");
    const bad = await cli(["search", '"open', "--project", root]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bad query: unterminated quote");
    expect(bad.stderr).not.toContain("SQLITE");
    expect((await cli(["search", "x", "--project", root, "--limit", "0"])).code).toBe(2);
    expect((await cli(["search", "x", "--project", root, "--since", "yesterday"])).code).toBe(2);
    expect((await cli(["search", "x", "--project", root, "--kind", "banana"])).code).toBe(2);
    expect((await cli(["search", "x".repeat(100_000), "--project", root])).stderr).toContain(
      "longer than 4096 bytes",
    );
  });

  it("reads --since as list does: weeks, days, a date; an age past the calendar is every event", async () => {
    const root = project();
    const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
    recordEvents(spec(root, { identity: identity("s-1") }), [
      { ...event("user_prompt", "a", { prompt: "the kettle from last month" }), timestamp: ago(30) },
      { ...event("user_prompt", "b", { prompt: "the kettle from last week" }), timestamp: ago(10) },
      { ...event("user_prompt", "c", { prompt: "the kettle from today" }), timestamp: ago(0) },
    ]);
    const prompts = async (since: string) => {
      const r = await cli(["search", "kettle", "--project", root, "--since", since, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { snippet: string }[]).map((h) => h.snippet).sort();
    };
    expect(await prompts("2w")).toEqual(["the kettle from last week", "the kettle from today"]);
    expect(await prompts("1d")).toEqual(["the kettle from today"]);
    expect(await prompts(ago(20).slice(0, 10))).toEqual([
      "the kettle from last week",
      "the kettle from today",
    ]);
    expect(await prompts("999999w")).toHaveLength(3);
    const bad = await cli(["search", "kettle", "--project", root, "--since", "2 weeks"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not a date or a duration");
  });

  it("answers --json with the snippet as plain text and the match offsets", async () => {
    const root = seeded();
    const r = await cli(["search", "store.ts", "--project", root, "--json"]);
    expect(r.code).toBe(0);
    const [hit] = JSON.parse(r.stdout);
    expect(hit).toMatchObject({
      provider: "claude",
      provider_session_id: "s-1",
      sequence: 2,
      kind: "tool_call",
    });
    const [start, end] = hit.matches[0];
    expect(hit.snippet.slice(start, end).toLowerCase()).toContain("store");
    expect(JSON.parse((await cli(["search", "absent", "--project", root, "--json"])).stdout)).toEqual([]);
  });

  it("searches every registered project with --all-projects, naming the gone ones", async () => {
    const a = seeded();
    const b = seeded();
    const home = project();
    mkdirSync(join(home, "registry", "claude"), { recursive: true });
    for (const [id, root] of [
      ["x", b],
      ["y", join(home, "gone")],
    ]) {
      writeFileSync(
        join(home, "registry", "claude", `${id}.json`),
        JSON.stringify({
          provider: "claude",
          provider_session_id: id,
          project_root: root,
          registered_at: "",
        }),
      );
    }
    const r = await cli(["search", "recorder", "--project", a, "--all-projects", "--json"], {
      TAPEDECK_HOME: home,
    });
    expect(r.code).toBe(0);
    expect(new Set(JSON.parse(r.stdout).map((h: { project: string }) => h.project))).toEqual(new Set([a, b]));
    expect(r.stderr).toContain("skipped 1 registered project(s) no longer on disk");
    // One project's unusable index is named and skipped; the others still answer.
    execFileSync("rm", ["-f", join(b, ".tapedeck", "index.sqlite")]);
    execFileSync("mkfifo", [join(b, ".tapedeck", "index.sqlite")]);
    const partial = await cli(["search", "recorder", "--project", a, "--all-projects", "--json"], {
      TAPEDECK_HOME: home,
    });
    expect(partial.code).toBe(0);
    expect(new Set(JSON.parse(partial.stdout).map((h: { project: string }) => h.project))).toEqual(
      new Set([a]),
    );
    expect(partial.stderr).toContain(`skipped ${b}:`);
  });
});

describe("tapedeck index", () => {
  it("updates, reports status and rebuilds, the file 0600", async () => {
    const root = seeded();
    const before = JSON.parse((await cli(["index", "status", "--project", root, "--json"])).stdout);
    expect(before).toMatchObject({ exists: false, behind_sessions: 1 });
    const up = JSON.parse((await cli(["index", "update", "--project", root, "--json"])).stdout);
    expect(up).toMatchObject({ action: "update", events: 2, sessions: 1 });
    expect(JSON.parse((await cli(["index", "update", "--project", root, "--json"])).stdout)).toMatchObject({
      events: 0,
    });
    expect(statSync(join(root, ".tapedeck", "index.sqlite")).mode & 0o777).toBe(0o600);
    const rebuilt = await cli(["index", "rebuild", "--project", root]);
    expect(rebuilt.stdout).toContain("Rebuilt: 2 events");
    expect((await cli(["index", "status", "--project", root])).stdout).toContain("up to date");
    expect((await cli(["index", "banana", "--project", root])).code).toBe(2);
  });

  it("says how to fix a corrupt index it cannot replace, without an SQLite stack", async () => {
    const root = seeded();
    mkdirSync(join(root, ".tapedeck"), { recursive: true });
    execFileSync("mkfifo", [join(root, ".tapedeck", "index.sqlite")]);
    const r = await cli(["search", "recorder", "--project", root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("index.sqlite is not a regular file");
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  });
});

describe("concurrent updates", () => {
  it("two `index update` at once index every line exactly once", async () => {
    const root = project();
    const events = Array.from({ length: 3000 }, (_, i) =>
      event("user_prompt", `p${i}`, { prompt: `concurrent prompt number ${i} about src/x_${i}.ts` }),
    );
    recordEvents(spec(root), events);
    const run = () =>
      new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [CLI, "index", "update", "--project", root], {
          stdio: "ignore",
        });
        child.on("exit", resolve);
      });
    const codes = await Promise.all([run(), run(), run()]);
    // One may give up on a lock it waited 2 s for (exit 1); the others finish the work.
    expect(codes.filter((c) => c === 0).length).toBeGreaterThan(0);
    expect((await cli(["index", "update", "--project", root])).code).toBe(0);
    const db = openDatabase(join(root, ".tapedeck", "index.sqlite"));
    try {
      expect(db.prepare("SELECT count(*) AS n, count(DISTINCT seq) AS d FROM events").get()).toEqual({
        n: 3000,
        d: 3000,
      });
      // FTS5 checks that both indexes hold exactly the content table's rows.
      db.prepare("INSERT INTO events_fts (events_fts) VALUES ('integrity-check')").run();
      db.prepare("INSERT INTO events_tri (events_tri) VALUES ('integrity-check')").run();
    } finally {
      db.close();
    }
    expect(
      JSON.parse(
        (await cli(["search", "concurrent", "--project", root, "--json", "--limit", "1000"])).stdout,
      ),
    ).toHaveLength(1000);
  });
});

describe("highlight", () => {
  it("turns the markers into bold inverse on a terminal only, after making the recorded text safe", async () => {
    const { highlight } = await import("../../src/cli/commands/search.ts");
    const snippet = "a \ue000match\ue001 \u001b[2J b";
    expect(highlight(snippet, true)).toBe("a \u001b[1;7mmatch\u001b[0m \ufffd b");
    expect(highlight(snippet, false)).toBe("a match \ufffd b");
  });
});
