import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fakeSession } from "../helpers/archive-fixture.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();
const duB = (p: string) => Number(execFileSync("du", ["-sb", p], { encoding: "utf8" }).split("\t")[0]);

describe("tapedeck du", () => {
  it("figures equal du -b of the same tree: the project total and each session", async () => {
    const root = project();
    const big = fakeSession(root, { id: "big", daysAgo: 1, eventBytes: 50_000 });
    fakeSession(root, { id: "small", daysAgo: 1, eventBytes: 10 });
    fakeSession(root, { id: "cx", daysAgo: 1, provider: "codex", eventBytes: 2000 });
    mkdirSync(join(big, "pending"));
    writeFileSync(join(big, "pending", "1.json"), "x".repeat(700));
    writeFileSync(join(root, ".tapedeck", "index.sqlite"), "i".repeat(4096));
    writeFileSync(join(root, ".tapedeck", "memory.sqlite"), "m".repeat(1234));
    writeFileSync(join(root, ".tapedeck", "memory.sqlite-wal"), "w".repeat(99));
    mkdirSync(join(root, ".tapedeck", "experiments", "e1"), { recursive: true });
    writeFileSync(join(root, ".tapedeck", "experiments", "e1", "experiment.json"), "{}");
    writeFileSync(
      join(root, ".tapedeck", "config.json"),
      JSON.stringify({ schema_version: 1, providers: {} }),
    );
    symlinkSync("/nonexistent-target", join(root, ".tapedeck", "planted"));
    const r = await runCliInProcess(["du", "--json", "--project", root], join(root, "home"));
    expect(r.code).toBe(0);
    const [usage] = JSON.parse(r.stdout).projects;
    expect(usage.total_bytes).toBe(duB(join(root, ".tapedeck")));
    expect(usage.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["big", "cx", "small"]);
    expect(usage.sessions[0].bytes).toBe(duB(big));
    expect(usage.kinds.spool).toBe(duB(join(big, "pending")));
    expect(usage.kinds.memory).toBe(1234 + 99);
    expect(usage.kinds.index).toBe(4096);
    expect(usage.kinds.experiments).toBe(duB(join(root, ".tapedeck", "experiments")));
    expect(usage.providers.map((p: { provider: string }) => p.provider)).toEqual(["claude", "codex"]);
    const human = (await runCliInProcess(["du", "--project", root], join(root, "home"))).stdout;
    expect(human).toContain("largest sessions");
    expect(human.indexOf("big")).toBeLessThan(human.indexOf("small"));
  });

  it("a session root configured outside .tapedeck counts its sessions only, never the rest of it", async () => {
    const root = project();
    const shared = join(project(), "recordings");
    const session = fakeSession(root, { id: "mine", daysAgo: 1, eventBytes: 3000 });
    const claudeRoot = join(shared, "claude");
    mkdirSync(claudeRoot, { recursive: true });
    execFileSync("mv", [session, claudeRoot]);
    // Not tapedeck's: what a root of "/" or "~" holds besides sessions.
    mkdirSync(join(claudeRoot, "photos", "2026"), { recursive: true });
    writeFileSync(join(claudeRoot, "photos", "2026", "big.jpg"), "j".repeat(200_000));
    writeFileSync(
      join(root, ".tapedeck", "config.json"),
      JSON.stringify({ schema_version: 1, providers: { claude: { session_root: claudeRoot } } }),
    );
    const r = await runCliInProcess(["du", "--json", "--project", root], join(root, "home"));
    expect(r.code, r.stderr).toBe(0);
    const [usage] = JSON.parse(r.stdout).projects;
    expect(usage.sessions.map((s: { session_id: string }) => s.session_id)).toEqual(["mine"]);
    expect(usage.kinds.archive).toBe(duB(join(claudeRoot, "mine")));
    expect(usage.total_bytes).toBeLessThan(
      duB(join(root, ".tapedeck")) + duB(join(claudeRoot, "mine")) + 10_000,
    );
  });

  it("doctor warns past the configured threshold", async () => {
    const root = project();
    fakeSession(root, { id: "s", daysAgo: 1, eventBytes: 5000 });
    const config = (warn: number) =>
      writeFileSync(
        join(root, ".tapedeck", "config.json"),
        JSON.stringify({ schema_version: 1, providers: {}, retention: { warn_bytes: warn } }),
      );
    config(1000);
    const over = JSON.parse(
      (await runCliInProcess(["doctor", "--json", "--project", root], join(root, "home"))).stdout,
    );
    const checks = over.providers.flatMap(
      (p: { checks: Array<{ name: string; status: string }> }) => p.checks,
    );
    expect(checks.find((c: { name: string }) => c.name === "disk usage")?.status).toBe("warn");
    config(10 ** 9);
    const under = JSON.parse(
      (await runCliInProcess(["doctor", "--json", "--project", root], join(root, "home"))).stdout,
    );
    const none = under.providers.flatMap((p: { checks: Array<{ name: string }> }) => p.checks);
    expect(none.find((c: { name: string }) => c.name === "disk usage")).toBeUndefined();
  });
});
