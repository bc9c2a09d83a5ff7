import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { ensureBuilt } from "../helpers/cli-run.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

beforeAll(ensureBuilt);
const project = useTempProjects();
const ids = (rows: Array<{ session_id: string }>) => rows.map((r) => r.session_id).sort();

describe("tapedeck prune", () => {
  it("removes exactly the sessions its dry run previewed, with the same bytes", async () => {
    const root = project();
    fakeSession(root, { id: "a", daysAgo: 40, eventBytes: 3000 });
    fakeSession(root, { id: "b", daysAgo: 35, status: "incomplete" });
    fakeSession(root, { id: "c", daysAgo: 2 });
    const cli = (args: string[]) => runCliInProcess([...args, "--project", root], join(root, "home"));
    const dry = JSON.parse((await cli(["prune", "--older-than", "30d", "--dry-run", "--json"])).stdout);
    expect(ids(dry.sessions)).toEqual(["a", "b"]);
    const done = JSON.parse((await cli(["prune", "--older-than", "30d", "--yes", "--json"])).stdout);
    expect(done.removed.sort()).toEqual(ids(dry.sessions));
    expect(done.bytes).toBe(dry.bytes);
    expect(existsSync(join(root, ".tapedeck", "claude-sessions", "c"))).toBe(true);
  });

  it("--keep-last and --status; an active session and a referenced baseline survive", async () => {
    const root = project();
    fakeSession(root, { id: "n1", daysAgo: 1 });
    fakeSession(root, { id: "n2", daysAgo: 2, status: "incomplete" });
    fakeSession(root, { id: "base", daysAgo: 3 });
    const live = fakeSession(root, { id: "live", daysAgo: 4, status: "incomplete", agentPid: process.pid });
    fakeSession(root, { id: "gone", daysAgo: 5, status: "incomplete" });
    const exp = join(root, ".tapedeck", "experiments", "e1");
    mkdirSync(exp, { recursive: true });
    writeFileSync(join(exp, "experiment.json"), JSON.stringify({ baseline: { session_id: "base" } }));
    writeFileSync(join(root, ".tapedeck", "memory.sqlite"), "promoted");
    const cli = (args: string[]) => runCliInProcess([...args, "--project", root], join(root, "home"));
    const keep = JSON.parse((await cli(["prune", "--keep-last", "1", "--yes", "--json"])).stdout);
    expect(keep.removed.sort()).toEqual(["gone", "n2"]);
    expect(ids(keep.kept)).toEqual(["base", "live"]);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(join(root, ".tapedeck", "memory.sqlite"))).toBe(true);
    const status = JSON.parse((await cli(["prune", "--status", "incomplete", "--dry-run", "--json"])).stdout);
    expect(ids(status.sessions)).toEqual([]);
    expect(ids(status.kept)).toEqual(["live"]);
  });

  it("applies the configured retention block when given no rule, and refuses with neither", async () => {
    const root = project();
    fakeSession(root, { id: "old", daysAgo: 10 });
    const cli = (args: string[]) => runCliInProcess([...args, "--project", root], join(root, "home"));
    expect((await cli(["prune", "--yes"])).code).toBe(2);
    writeFileSync(
      join(root, ".tapedeck", "config.json"),
      JSON.stringify({ schema_version: 1, providers: {}, retention: { older_than: "7d" } }),
    );
    expect(JSON.parse((await cli(["prune", "--yes", "--json"])).stdout).removed).toEqual(["old"]);
  });

  it("refuses without a terminal and without --yes (exit 2); bad values are usage errors", async () => {
    const root = project();
    fakeSession(root, { id: "old", daysAgo: 40 });
    const cli = (args: string[]) => runCliInProcess([...args, "--project", root], join(root, "home"));
    expect((await cli(["prune", "--older-than", "30d"])).code).toBe(2);
    expect(existsSync(join(root, ".tapedeck", "claude-sessions", "old"))).toBe(true);
    expect((await cli(["prune", "--keep-last", "-1"])).code).toBe(2);
    expect((await cli(["prune", "--status", "done"])).code).toBe(2);
    expect((await cli(["prune", "--older-than", "30d", "--provider", "nope"])).code).toBe(2);
  });

  it("--all-projects prunes every project the registry names", async () => {
    const a = project();
    const b = project();
    const home = join(a, "home");
    fakeSession(a, { id: "old-a", daysAgo: 40 });
    fakeSession(b, { id: "old-b", daysAgo: 40 });
    for (const [root, id] of [
      [a, "old-a"],
      [b, "old-b"],
    ] as const) {
      const dir = join(home, ".tapedeck", "registry", "claude");
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, `${id}.json`),
        JSON.stringify({ provider: "claude", provider_session_id: id, project_root: root }),
      );
    }
    const r = await runCliInProcess(["prune", "--all-projects", "--older-than", "30d", "--yes"], home);
    expect(r.code).toBe(0);
    expect(existsSync(join(a, ".tapedeck", "claude-sessions", "old-a"))).toBe(false);
    expect(existsSync(join(b, ".tapedeck", "claude-sessions", "old-b"))).toBe(false);
  });
});

describe("tapedeck prune with sessions recorded by the hook", () => {
  it("keeps a session while its agent runs, and removes it once it ended", async () => {
    const root = project();
    const home = join(root, "home");
    const hook = (payload: object) => {
      const r = spawnSync(process.execPath, [join(process.cwd(), "dist", "hook.cjs"), "claude"], {
        input: JSON.stringify({ session_id: "rec-1", transcript_path: "/nonexistent", ...payload }),
        encoding: "utf8",
        env: { ...process.env, CLAUDE_PROJECT_DIR: root, HOME: home, TAPEDECK_HOME: join(home, ".tapedeck") },
      });
      expect(r.status).toBe(0);
    };
    expect(
      (
        await runCliInProcess(
          ["install", "claude", "--yes", "--transport", "command", "--project", root],
          home,
        )
      ).code,
    ).toBe(0);
    hook({ hook_event_name: "SessionStart", source: "startup" });
    hook({ hook_event_name: "UserPromptSubmit", prompt: "hello" });
    const cli = (args: string[]) => runCliInProcess([...args, "--project", root], home);
    const during = JSON.parse((await cli(["prune", "--keep-last", "0", "--yes", "--json"])).stdout);
    expect(during.removed).toEqual([]);
    expect(during.kept).toHaveLength(1);
    expect(during.kept[0].reason).toMatch(/agent/);
    hook({ hook_event_name: "SessionEnd", reason: "other" });
    const after = JSON.parse((await cli(["prune", "--keep-last", "0", "--yes", "--json"])).stdout);
    expect(after.removed).toHaveLength(1);
    expect(JSON.parse((await cli(["list", "--json"])).stdout)).toEqual([]);
  });
});
