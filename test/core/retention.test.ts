import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import {
  applyRetention,
  parseAge,
  planRemoval,
  removeSessions,
  retentionDue,
  treeBytes,
} from "../../src/core/read/retention.ts";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();
const ids = (xs: Array<{ ref: { manifest: { session_id: string } } }>) =>
  xs.map((x) => x.ref.manifest.session_id).sort();

describe("parseAge", () => {
  it("reads minutes, hours, days and weeks, and nothing else", () => {
    expect(parseAge("30d")).toBe(30 * 86_400_000);
    expect(parseAge("2w")).toBe(14 * 86_400_000);
    expect(parseAge("90m")).toBe(90 * 60_000);
    for (const bad of ["30", "d", "-1d", "1y", "1.5d", ""]) expect(parseAge(bad)).toBeUndefined();
  });
});

describe("planRemoval and removeSessions", () => {
  it("selects by age, keeps the newest N, filters by provider and status", () => {
    const root = project();
    fakeSession(root, { id: "old-1", daysAgo: 40 });
    fakeSession(root, { id: "old-2", daysAgo: 50, status: "incomplete" });
    fakeSession(root, { id: "new-1", daysAgo: 1 });
    fakeSession(root, { id: "old-codex", daysAgo: 60, provider: "codex" });
    expect(ids(planRemoval(root, { olderThanMs: parseAge("30d") }).remove)).toEqual([
      "old-1",
      "old-2",
      "old-codex",
    ]);
    expect(ids(planRemoval(root, { olderThanMs: parseAge("30d"), provider: "claude" }).remove)).toEqual([
      "old-1",
      "old-2",
    ]);
    expect(ids(planRemoval(root, { status: "incomplete" }).remove)).toEqual(["old-2"]);
    // newest first: new-1, old-1, old-2, old-codex; the two newest stay
    expect(ids(planRemoval(root, { keepLast: 2 }).remove)).toEqual(["old-2", "old-codex"]);
  });

  it("removes exactly what the preview listed, with the bytes it announced", () => {
    const root = project();
    fakeSession(root, { id: "a", daysAgo: 40, eventBytes: 5000 });
    fakeSession(root, { id: "b", daysAgo: 40 });
    fakeSession(root, { id: "c", daysAgo: 2 });
    const plan = planRemoval(root, { olderThanMs: parseAge("30d") });
    const result = removeSessions(root, plan);
    expect(ids(result.removed)).toEqual(ids(plan.remove));
    expect(result.bytes).toBe(plan.bytes);
    expect(existsSync(join(root, ".tapedeck", "claude-sessions", "a"))).toBe(false);
    expect(existsSync(join(root, ".tapedeck", "claude-sessions", "c"))).toBe(true);
  });

  it("never removes an active session: lock held, recent append, or agent alive while not sealed", () => {
    const root = project();
    const locked = fakeSession(root, { id: "locked", daysAgo: 40 });
    writeFileSync(join(locked, "lock"), `${process.pid} token`);
    fakeSession(root, { id: "alive", daysAgo: 40, status: "incomplete", agentPid: process.pid });
    const recent = fakeSession(root, { id: "recent", daysAgo: 40, status: "incomplete" });
    const sealed = fakeSession(root, { id: "sealed", daysAgo: 40 });
    writeFileSync(join(sealed, "events.jsonl"), "appended\n", { flag: "a" });
    writeFileSync(join(recent, "events.jsonl"), "appended\n", { flag: "a" });
    fakeSession(root, { id: "idle", daysAgo: 40 });
    const plan = planRemoval(root, { olderThanMs: parseAge("30d") });
    expect(ids(plan.remove)).toEqual(["idle", "sealed"]);
    expect(ids(plan.kept)).toEqual(["alive", "locked", "recent"]);
  });

  it("an unsealed session whose agent is known and gone is not active, however recent its last append", () => {
    const root = project();
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid!;
    const dir = fakeSession(root, { id: "ended", daysAgo: 40, status: "incomplete", agentPid: gone });
    writeFileSync(join(dir, "events.jsonl"), "appended\n", { flag: "a" });
    expect(ids(planRemoval(root, { olderThanMs: parseAge("30d") }).remove)).toEqual(["ended"]);
  });

  it("re-checks at removal time: a session that woke up after the preview stays", () => {
    const root = project();
    const dir = fakeSession(root, { id: "woke", daysAgo: 40 });
    const plan = planRemoval(root, { olderThanMs: parseAge("30d") });
    writeFileSync(join(dir, "lock"), `${process.pid} token`);
    const result = removeSessions(root, plan);
    expect(result.removed).toEqual([]);
    expect(existsSync(dir)).toBe(true);
  });

  it("keeps a replay's or an experiment's baseline unless asked", () => {
    const root = project();
    fakeSession(root, { id: "base-replay", daysAgo: 40 });
    fakeSession(root, { id: "the-replay", daysAgo: 40, replayOf: "base-replay" });
    fakeSession(root, { id: "base-exp", daysAgo: 40 });
    const exp = join(root, ".tapedeck", "experiments", "x1");
    mkdirSync(exp, { recursive: true });
    writeFileSync(join(exp, "experiment.json"), JSON.stringify({ baseline: { session_id: "base-exp" } }));
    const sel = { olderThanMs: parseAge("30d") };
    expect(ids(planRemoval(root, sel).remove)).toEqual(["the-replay"]);
    expect(ids(planRemoval(root, { ...sel, includeReferenced: true }).remove)).toEqual([
      "base-exp",
      "base-replay",
      "the-replay",
    ]);
  });

  it("never touches the promoted memory nor follows a symlink out of a session", () => {
    const root = project();
    const outside = join(root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "keep.txt"), "keep");
    const dir = fakeSession(root, { id: "linked", daysAgo: 40 });
    writeFileSync(join(root, ".tapedeck", "memory.sqlite"), "memory");
    symlinkSync(outside, join(dir, "escape"));
    // A symlinked session entry is never a session at all.
    symlinkSync(outside, join(root, ".tapedeck", "claude-sessions", "planted"));
    const result = removeSessions(root, planRemoval(root, { olderThanMs: 0 }));
    expect(ids(result.removed)).toEqual(["linked"]);
    expect(existsSync(join(outside, "keep.txt"))).toBe(true);
    expect(existsSync(join(root, ".tapedeck", "memory.sqlite"))).toBe(true);
  });
});

describe("a hook writing while a session is removed", () => {
  it("a session a hook spooled into after the preview stays, whole, with no lock or temporary name left", () => {
    const root = project();
    const dir = fakeSession(root, { id: "resumed", daysAgo: 40 });
    fakeSession(root, { id: "idle", daysAgo: 40 });
    const plan = planRemoval(root, { olderThanMs: 0 });
    expect(ids(plan.remove)).toEqual(["idle", "resumed"]);
    // `claude --resume` of a sealed session: the hook found the writer lock busy and spooled its event.
    mkdirSync(join(dir, "pending"), { recursive: true });
    writeFileSync(join(dir, "pending", "0001.json"), JSON.stringify({ kind: "session_start" }));
    const result = removeSessions(root, plan);
    expect(ids(result.removed)).toEqual(["idle"]);
    expect(result.failed.map((f) => [f.ref.manifest.session_id, f.reason])).toEqual([
      ["resumed", "written to since the preview"],
    ]);
    expect(readFileSync(join(dir, "pending", "0001.json"), "utf8")).toContain("session_start");
    expect(existsSync(join(dir, "manifest.json"))).toBe(true);
    expect(existsSync(join(dir, "lock"))).toBe(false);
    expect(readdirSync(join(root, ".tapedeck", "claude-sessions"))).toEqual(["resumed"]);
  });
});

describe("a session root configured outside the project", () => {
  it("removes only the sessions recorded for this project, never another project's (a planted config)", () => {
    const victim = project();
    const hostile = project();
    fakeSession(victim, { id: "theirs", daysAgo: 40 });
    // A cloned repository's config pointing its session root at another project's archive.
    const victimRoot = join(victim, ".tapedeck", "claude-sessions");
    const setRoot = (sessionRoot: string) =>
      writeFileSync(
        join(hostile, ".tapedeck", "config.json"),
        JSON.stringify({
          schema_version: 1,
          providers: { claude: { session_root: sessionRoot } },
          retention: { older_than: "1m" },
        }),
      );
    mkdirSync(join(hostile, ".tapedeck"), { recursive: true });
    setRoot(relative(hostile, victimRoot));
    const plan = planRemoval(hostile, { olderThanMs: 0 });
    expect(ids(plan.remove)).toEqual([]);
    expect(plan.kept.map((k) => k.reason)).toEqual([expect.stringMatching(/another project/)]);
    expect(applyRetention(hostile)).toMatchObject({ ran: true, removed: 0 });
    expect(
      removeSessions(
        hostile,
        { ...plan, remove: plan.kept.map((k) => ({ ref: k.ref, bytes: 0 })) },
        { force: true },
      ).removed,
    ).toEqual([]);
    expect(existsSync(join(victimRoot, "theirs", "manifest.json"))).toBe(true);
    // The same shared root seen from the project that recorded the session: that one may go.
    const manifestPath = join(victimRoot, "theirs", "manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    writeFileSync(manifestPath, JSON.stringify({ ...manifest, project_root: hostile }));
    expect(ids(planRemoval(hostile, { olderThanMs: 0 }).remove)).toEqual(["theirs"]);
  });
});

describe("treeBytes", () => {
  it("equals du -b (apparent size) of the same tree", () => {
    const root = project();
    fakeSession(root, { id: "a", daysAgo: 1, eventBytes: 12345 });
    fakeSession(root, { id: "b", daysAgo: 1, provider: "codex", eventBytes: 777 });
    symlinkSync("a-target-that-does-not-exist", join(root, ".tapedeck", "dangling"));
    const du = (p: string) => Number(execFileSync("du", ["-sb", p], { encoding: "utf8" }).split("\t")[0]);
    expect(treeBytes(join(root, ".tapedeck"))).toBe(du(join(root, ".tapedeck")));
    const one = join(root, ".tapedeck", "claude-sessions", "a");
    expect(treeBytes(one)).toBe(du(one));
  });
});

describe("automatic retention", () => {
  it("runs only when configured and at most once a day", () => {
    const root = project();
    fakeSession(root, { id: "old", daysAgo: 40 });
    fakeSession(root, { id: "old-2", daysAgo: 45 });
    const config = join(root, ".tapedeck", "config.json");
    writeFileSync(config, JSON.stringify({ schema_version: 1, providers: {} }));
    expect(retentionDue(root)).toBe(false);
    writeFileSync(
      config,
      JSON.stringify({ schema_version: 1, providers: {}, retention: { older_than: "30d" } }),
    );
    expect(retentionDue(root)).toBe(true);
    expect(applyRetention(root)).toMatchObject({ ran: true, removed: 2 });
    fakeSession(root, { id: "old-3", daysAgo: 50 });
    expect(retentionDue(root)).toBe(false);
    expect(applyRetention(root).ran).toBe(false);
    expect(applyRetention(root, Date.now() + 25 * 3_600_000)).toMatchObject({ ran: true, removed: 1 });
  });
});

describe("automatic retention through a symlinked .tapedeck", () => {
  it("writes no stamp and removes nothing", () => {
    const root = project();
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    writeFileSync(
      join(elsewhere, "config.json"),
      JSON.stringify({ schema_version: 1, providers: {}, retention: { older_than: "1d" } }),
    );
    symlinkSync(elsewhere, join(root, ".tapedeck"));
    expect(applyRetention(root).ran).toBe(false);
    expect(existsSync(join(elsewhere, "retention-state.json"))).toBe(false);
  });
});
