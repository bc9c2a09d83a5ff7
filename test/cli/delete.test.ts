import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();
const sessionDir = (root: string, id: string, provider = "claude") =>
  join(root, ".tapedeck", `${provider}-sessions`, id);

describe("tapedeck delete", () => {
  it("takes several sessions; the preview lists what is then removed", async () => {
    const root = project();
    for (const id of ["s-1", "s-2", "s-3"]) fakeSession(root, { id, daysAgo: 3 });
    const cli = (args: string[]) => runCliInProcess([...args, "--project", root], join(root, "home"));
    const dry = JSON.parse((await cli(["delete", "s-1", "s-2", "--dry-run", "--json"])).stdout);
    expect(dry.sessions.map((s: { session_id: string }) => s.session_id).sort()).toEqual(["s-1", "s-2"]);
    expect(dry.bytes).toBeGreaterThan(0);
    expect(existsSync(sessionDir(root, "s-1"))).toBe(true);
    const done = JSON.parse((await cli(["delete", "s-1", "s-2", "--yes", "--json"])).stdout);
    expect(done.removed.sort()).toEqual(["s-1", "s-2"]);
    expect(done.bytes).toBe(dry.bytes);
    expect(existsSync(sessionDir(root, "s-1"))).toBe(false);
    expect(existsSync(sessionDir(root, "s-3"))).toBe(true);
  });

  it("refuses without a terminal and without --yes: exit 2, nothing removed, the preview shown", async () => {
    const root = project();
    fakeSession(root, { id: "keep-me", daysAgo: 40 });
    const r = await runCliInProcess(["delete", "--older-than", "30d", "--project", root], join(root, "home"));
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("keep-me");
    expect(r.stderr).toContain("--yes");
    expect(existsSync(sessionDir(root, "keep-me"))).toBe(true);
  });

  it("selects by --older-than and --provider", async () => {
    const root = project();
    fakeSession(root, { id: "old-claude", daysAgo: 40 });
    fakeSession(root, { id: "old-codex", daysAgo: 40, provider: "codex" });
    fakeSession(root, { id: "new-claude", daysAgo: 1 });
    const r = await runCliInProcess(
      ["delete", "--older-than", "30d", "--provider", "codex", "--yes", "--json", "--project", root],
      join(root, "home"),
    );
    expect(JSON.parse(r.stdout).removed).toEqual(["old-codex"]);
    expect(existsSync(sessionDir(root, "old-claude"))).toBe(true);
  });

  it("keeps an active session it was named unless --force, and a baseline unless --include-referenced", async () => {
    const root = project();
    const live = fakeSession(root, { id: "live", daysAgo: 40 });
    writeFileSync(join(live, "lock"), `${process.pid} token`);
    fakeSession(root, { id: "base", daysAgo: 40 });
    fakeSession(root, { id: "replay", daysAgo: 40, replayOf: "base" });
    const cli = (args: string[]) => runCliInProcess([...args, "--project", root], join(root, "home"));
    const named = await cli(["delete", "live", "--yes"]);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain("--force");
    expect(existsSync(live)).toBe(true);
    const bulk = JSON.parse((await cli(["delete", "--older-than", "30d", "--yes", "--json"])).stdout);
    expect(bulk.removed).toEqual(["replay"]);
    expect(bulk.kept.map((k: { session_id: string }) => k.session_id).sort()).toEqual(["base", "live"]);
    expect((await cli(["delete", "base", "--yes", "--include-referenced"])).code).toBe(0);
    expect((await cli(["delete", "live", "--yes", "--force"])).code).toBe(0);
    expect(existsSync(live)).toBe(false);
  });

  it("a usage error without sessions or --older-than, or with a bad age; exit 3 for an unknown session", async () => {
    const root = project();
    const cli = (args: string[]) => runCliInProcess([...args, "--project", root], join(root, "home"));
    expect((await cli(["delete"])).code).toBe(2);
    expect((await cli(["delete", "--older-than", "30 days"])).code).toBe(2);
    expect((await cli(["delete", "nope", "--yes"])).code).toBe(3);
  });
});

describe("tapedeck delete of a named baseline", () => {
  it("says which option removes it", async () => {
    const root = project();
    fakeSession(root, { id: "base", daysAgo: 1 });
    fakeSession(root, { id: "replay", daysAgo: 1, replayOf: "base" });
    const r = await runCliInProcess(["delete", "base", "--yes", "--project", root], join(root, "home"));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("--include-referenced");
    expect(r.stderr).not.toContain("stop the agent");
  });
});
