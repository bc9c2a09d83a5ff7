// What a usage report covers (issue 41, item 4): a report scoped to the current project read as the user's whole
// usage. Every report says its scope in its title and its --json, `usage project` and `--breakdown project` split
// the figures by project, and the notes name only providers that are in the table.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerSession } from "../../src/core/archive/session-registry.ts";
import { runProgram } from "../helpers/program.ts";
import { useScratchDir } from "../helpers/temp-project.ts";
import { claudeUsage, codexUsage, recordUsage } from "../usage/sessions.ts";

const scratch = useScratchDir("tapedeck-usage-scope-");

interface World {
  alpha: string;
  beta: string;
  home: string;
}

/** Two registered projects: alpha with a Claude and a Codex session, beta with a Claude session. */
function world(): World {
  const root = scratch.fresh("root");
  const w = { alpha: join(root, "alpha"), beta: join(root, "beta"), home: join(root, "home") };
  for (const d of Object.values(w)) mkdirSync(d, { recursive: true, mode: 0o700 });
  recordUsage(w.alpha, "claude", "a1", "2026-12-01T10:00:00.000Z", [
    { at: "2026-12-01T10:01:00.000Z", usage: claudeUsage("claude-sonnet-4", 1000, 100, 2000, 50) },
  ]);
  recordUsage(w.alpha, "codex", "a2", "2026-12-01T11:00:00.000Z", [
    { at: "2026-12-01T11:01:00.000Z", usage: codexUsage("gpt-5", 300, 30, "r-1") },
  ]);
  recordUsage(w.beta, "claude", "b1", "2026-12-02T09:00:00.000Z", [
    { at: "2026-12-02T09:01:00.000Z", usage: claudeUsage("claude-sonnet-4", 4000, 400, 8000, 0) },
  ]);
  const env = { TAPEDECK_HOME: join(w.home, ".tapedeck") };
  registerSession({ provider: "claude", provider_session_id: "a1", project_root: w.alpha }, env);
  registerSession({ provider: "claude", provider_session_id: "b1", project_root: w.beta }, env);
  return w;
}

function usage(w: World, args: string[]) {
  return runProgram(["usage", ...args, "--timezone", "UTC"], {
    cwd: w.alpha,
    env: { TAPEDECK_HOME: join(w.home, ".tapedeck"), HOME: w.home },
  });
}

async function json(w: World, args: string[]) {
  const r = await usage(w, [...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const total = (t: Record<string, number | null>) =>
  (t.input_tokens ?? 0) +
  (t.output_tokens ?? 0) +
  (t.cache_read_input_tokens ?? 0) +
  (t.cache_creation_input_tokens ?? 0);

describe("usage reports say what they cover", () => {
  it("the title names the project, or every registered project with --all-projects", async () => {
    const w = world();
    for (const kind of ["daily", "weekly", "monthly", "session", "model", "project"]) {
      const one = await usage(w, [kind]);
      expect(one.code, one.stderr).toBe(0);
      expect(one.stdout.split("\n")[0], kind).toMatch(
        new RegExp(`^Token usage by .+ in project ${w.alpha},`),
      );
      const all = await usage(w, [kind, "--all-projects"]);
      expect(all.stdout.split("\n")[0], kind).toMatch(/^Token usage by .+ in all 2 registered projects,/);
    }
    const blocks = await usage(w, ["blocks"]);
    expect(blocks.stdout.split("\n")[0]).toContain(
      `Claude Code usage in 5-hour blocks in project ${w.alpha},`,
    );
  });

  it("--json carries the scope and its projects", async () => {
    const w = world();
    expect((await json(w, ["daily"])).scope).toEqual({ kind: "project", projects: [w.alpha] });
    const all = await json(w, ["daily", "--all-projects"]);
    expect(all.scope.kind).toBe("all_projects");
    expect([...all.scope.projects].sort()).toEqual([w.alpha, w.beta].sort());
    expect((await json(w, ["blocks"])).scope).toEqual({ kind: "project", projects: [w.alpha] });
  });
});

describe("usage project and --breakdown project", () => {
  it("usage project: a row per project and provider, summing to the daily totals", async () => {
    const w = world();
    const byProject = await json(w, ["project", "--all-projects"]);
    const rows = byProject.rows.map((r: Record<string, unknown>) => [r.project, r.provider, r.total_tokens]);
    expect(rows).toEqual([
      [w.beta, "claude", 12400],
      [w.alpha, "claude", 3150],
      [w.alpha, "codex", 330],
    ]);
    const daily = await json(w, ["daily", "--all-projects"]);
    expect(byProject.totals).toEqual(daily.totals);
    const table = (await usage(w, ["project", "--all-projects"])).stdout;
    expect(table).toMatch(
      new RegExp(`\\n${w.beta} +Claude Code +4,000 +400 +8,000 +0 +12,400 +\\$[\\d.]+ +1\\n`),
    );
  });

  it("--breakdown project splits each row by project, the parts summing to the row", async () => {
    const w = world();
    const daily = await json(w, ["daily", "--all-projects", "--breakdown", "project"]);
    for (const row of daily.rows) {
      expect(row.projects.length).toBeGreaterThan(0);
      const parts = row.projects.reduce((n: number, p: { total_tokens: number }) => n + p.total_tokens, 0);
      expect(parts).toBe(row.total_tokens);
      expect(row.projects.reduce((n: number, p: { sessions: number }) => n + p.sessions, 0)).toBe(
        row.sessions,
      );
    }
    const monthly = await json(w, ["monthly", "--all-projects", "--breakdown", "project"]);
    const claude = monthly.rows.find((r: { provider: string }) => r.provider === "claude");
    expect(claude.projects.map((p: { project: string }) => p.project)).toEqual([w.beta, w.alpha]);
    const text = (await usage(w, ["monthly", "--all-projects", "--breakdown", "project"])).stdout;
    expect(text).toContain(`└ ${w.beta}`);
    expect(text).toContain(`└ ${w.alpha}`);
  });

  it("--breakdown project does not apply to a session or project report", async () => {
    const w = world();
    for (const kind of ["session", "project"]) {
      const r = await usage(w, [kind, "--breakdown", "project"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`--breakdown project does not apply to \`usage ${kind}\``);
    }
  });

  it("--machines: usage project sums each published project label across devices", async () => {
    const w = world();
    const dir = join(w.home, "sync");
    const pub = await usage(w, ["publish", "--to", dir, "--device", "laptop"]);
    expect(pub.code, pub.stderr).toBe(0);
    const r = await json(w, ["project", "--machines", dir]);
    expect(r.scope).toEqual({ kind: "machines", dir, machines: 1 });
    // A publish holds every registered project, each under a salted hash by default: no path.
    const rows = r.rows.map((x: { project: string; provider: string }) => x.provider);
    expect(rows.sort()).toEqual(["claude", "claude", "codex"]);
    expect(new Set(r.rows.map((x: { project: string }) => x.project)).size).toBe(2);
    expect(JSON.stringify(r.rows)).not.toContain(w.alpha);
    expect(total(r.totals)).toBe(3150 + 330 + 12400);
    const text = (await usage(w, ["daily", "--machines", dir])).stdout;
    expect(text.split("\n")[0]).toMatch(new RegExp(`^Token usage by day on 1 machine published in ${dir},`));
  });
});

describe("usage notes", () => {
  it("name only the providers in the table, each note once", async () => {
    const w = world();
    const all = (await usage(w, ["daily", "--all-projects"])).stdout;
    const notes = all.slice(all.indexOf("Notes:"));
    const lines = notes.split("\n").filter((l) => l.startsWith("  "));
    expect(new Set(lines).size).toBe(lines.length);
    expect(notes).toContain("Claude Code:");
    const codex = (await usage(w, ["daily", "--provider", "codex"])).stdout;
    expect(codex).not.toContain("Claude Code");
  });
});
