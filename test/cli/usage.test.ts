import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { claudeUsage, codexUsage, recordUsage } from "../usage/sessions.ts";

const project = useTempProjects("tapedeck-usage-cli-");

function withSessions(): string {
  const p = project();
  recordUsage(p, "claude", "a", "2026-12-01T10:00:00.000Z", [
    { at: "2026-12-01T10:01:00.000Z", usage: claudeUsage("claude-sonnet-4", 1000, 100, 2000, 50) },
  ]);
  recordUsage(p, "codex", "b", "2026-12-02T10:00:00.000Z", [
    { at: "2026-12-02T10:01:00.000Z", usage: codexUsage("mystery", 10, 1, "r-1") },
  ]);
  return p;
}

const usage = (p: string, args: string[]) =>
  runCliInProcess(["usage", ...args, "--project", p], join(p, "home"));

describe("tapedeck usage", () => {
  it("--json is {rows, totals, refused_prices}: the five totals, cost null when a model has no price", async () => {
    const p = withSessions();
    const r = await usage(p, ["daily", "--json", "--timezone", "UTC"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(Object.keys(out)).toEqual(["scope", "rows", "totals", "refused_prices"]);
    expect(out.totals).toEqual({
      input_tokens: 1010,
      output_tokens: 101,
      cache_read_input_tokens: 2000,
      cache_creation_input_tokens: 50,
      cost_usd: null,
    });
    expect(
      out.rows.map((x: { date: string; provider: string; cost_usd: number | null }) => [
        x.date,
        x.provider,
        x.cost_usd === null,
      ]),
    ).toEqual([
      ["2026-12-01", "claude", false],
      ["2026-12-02", "codex", true],
    ]);
    expect(
      (await usage(p, ["daily", "--json", "--provider", "claude", "--timezone", "UTC"])).stdout,
    ).toContain('"cost_usd": 0.00');
  });

  it("prints a table with a total line and the notes, and says so when nothing was recorded", async () => {
    const p = withSessions();
    const r = await usage(p, ["monthly", "--timezone", "UTC"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^Token usage by month in project .+, time zone UTC; cost estimated at the prices of 2026-11-24\n/,
    );
    expect(r.stdout).toMatch(/\n2026-12 +Claude Code +1,000 +100 +2,000 +50 +3,150 +\$0\.\d{4} +1\n/);
    expect(r.stdout).toMatch(/\nTOTAL +1,010 +101 +2,000 +50 +3,161 +≥\$0\.\d{4} +2\n/);
    expect(r.stdout).toContain("no price for mystery: cost unknown");
    const empty = project();
    const none = await usage(empty, ["daily"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`No usage recorded in ${empty}.\n`);
    expect(JSON.parse((await usage(empty, ["session", "--json"])).stdout)).toEqual({
      scope: { kind: "project", projects: [empty] },
      rows: [],
      totals: {
        input_tokens: 0,
        output_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
        cost_usd: 0,
      },
      refused_prices: [],
    });
  });

  it("answers a wrong report, zone, date, provider or scope with exit 2 and the reason", async () => {
    const p = withSessions();
    const cases: Array<[string[], RegExp]> = [
      [
        ["yearly"],
        /argument 'yearly' is invalid.*daily, weekly, monthly, session, model|Allowed choices are daily/s,
      ],
      [["daily", "--timezone", "Mars/Olympus"], /unknown time zone "Mars\/Olympus"/],
      [["daily", "--since", "2026-13-01"], /--since: "2026-13-01" is not a date/],
      [["daily", "--provider", "cursor"], /unknown provider "cursor"/],
      [["daily", "--all-projects"], /--project and --all-projects: use one of them/],
    ];
    for (const [args, message] of cases) {
      const r = await usage(p, args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(message);
    }
  });
});

describe("a project's own price table", () => {
  /** A project pricing the model its one session used, `price` per million input and output tokens. */
  function priced(models: Record<string, unknown>): string {
    const p = project();
    writeConfig(p, { schema_version: 1, providers: {}, pricing: { as_of: "2026-06-01", models } } as never);
    recordUsage(p, "claude", "a", "2026-12-01T10:00:00.000Z", [
      { at: "2026-12-01T10:01:00.000Z", usage: claudeUsage("claude-sonnet-4", 1000, 100, 2000, 50) },
      { at: "2026-12-01T10:02:00.000Z", usage: claudeUsage("my-model", 1000, 100) },
    ]);
    return p;
  }

  it("refuses a price out of range, names it, and never prints Infinity or makes a model free", async () => {
    const p = priced({
      "claude-sonnet-4": { input: 1e308, output: 1e308 },
      "my-model": { input: 0, output: 0 },
      "gpt-5": { input: 1001, output: 1 },
    });
    const r = await usage(p, ["daily", "--timezone", "UTC"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/Infinity|NaN/);
    // claude-sonnet-4 keeps tapedeck's price; my-model has none, so the cost is unknown, not $0.
    expect(r.stdout).toMatch(/\nTOTAL +2,000 +200 +2,000 +50 +4,250 +≥\$0\.\d{4} +1\n/);
    expect(r.stdout).toContain("no price for my-model: cost unknown");
    for (const [model, why] of [
      ["claude-sonnet-4", "input 1e+308 is out of range"],
      ["my-model", "input 0 is out of range"],
      ["gpt-5", "input 1001 is out of range"],
    ]) {
      expect(r.stdout).toContain(
        `pricing.models.${model} in .tapedeck/config.json refused: ${why} (above 0, at most 1000 USD per million tokens)`,
      );
    }
    const json = JSON.parse((await usage(p, ["daily", "--json", "--timezone", "UTC"])).stdout);
    expect(json.refused_prices.map((x: { model: string }) => x.model)).toEqual([
      "claude-sonnet-4",
      "my-model",
      "gpt-5",
    ]);
    expect(json.refused_prices[0]).toMatchObject({
      project: p,
      reason: expect.stringMatching(/^input 1e\+308/),
    });
    expect(json.rows[0].cost_usd).toBeNull();
    expect(json.rows[0].project_priced_models).toEqual([]);
    const show = await runCliInProcess(["show", "claude:a", "--project", p], join(p, "home"));
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).not.toMatch(/Infinity|NaN/);
    expect(show.stderr).toContain(
      "tapedeck: pricing.models.my-model in .tapedeck/config.json refused: input 0",
    );
  });

  it("says in every report that prints a cost when the project's own price was used", async () => {
    const p = priced({ "my-model": { input: 2, output: 8 } });
    const r = await usage(p, ["model", "--timezone", "UTC"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`my-model priced by the project's own "pricing" in .tapedeck/config.json`);
    const json = JSON.parse((await usage(p, ["daily", "--json", "--timezone", "UTC"])).stdout);
    expect(json.rows[0].project_priced_models).toEqual(["my-model"]);
    expect(json.refused_prices).toEqual([]);
    const home = join(p, "home");
    const show = await runCliInProcess(["show", "claude:a", "--project", p], home);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(
      /Cost: ~\$\d\.\d{4} est\. \(prices of 2026-06-01, 2026-11-24; the project's own price for my-model\)/,
    );
    const shown = JSON.parse(
      (await runCliInProcess(["show", "claude:a", "--json", "--project", p], home)).stdout,
    );
    expect(JSON.stringify(shown)).toContain('"project_priced_models":["my-model"]');
  });
});

describe("tapedeck usage over hostile archive text", () => {
  it("a session whose provider is named like an object's own property is counted, not a crash", async () => {
    const p = project();
    const names = ["constructor", "__proto__", "toString"];
    for (const name of names)
      recordUsage(p, name, "a", "2026-12-01T10:00:00.000Z", [
        { at: "2026-12-01T10:01:00.000Z", usage: claudeUsage("claude-sonnet-4", 100, 10) },
      ]);
    for (const args of [["daily"], ["model", "--json"], ["daily", "--breakdown", "version"], ["blocks"]]) {
      const r = await usage(p, [...args, "--timezone", "UTC"]);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
    }
    const daily = JSON.parse((await usage(p, ["daily", "--json", "--timezone", "UTC"])).stdout);
    expect(daily.rows.map((r: { provider: string }) => r.provider).sort()).toEqual([...names].sort());
    expect(daily.totals.input_tokens).toBe(300);
    const to = join(p, "synced");
    const pub = await usage(p, ["publish", "--to", to]);
    expect(pub.code, pub.stderr).toBe(0);
    const all = await runCliInProcess(
      ["usage", "daily", "--json", "--timezone", "UTC", "--machines", to],
      join(p, "home"),
    );
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout).totals.input_tokens).toBe(300);
  });
});

describe("tapedeck usage --help", () => {
  it("says every command's --json shape and what --breakdown version flags, in plain words", async () => {
    const r = await runCliInProcess(["usage", "--help"], join(project(), "home"));
    expect(r.code, r.stderr).toBe(0);
    const help = r.stdout.replace(/\s+/g, " ");
    expect(help).toContain('blocks: {"scope": {...}, "blocks": [...], "active": {...} | null}');
    expect(help).toContain('publish: {"device_id", "device_name", "folder", "published_at", "days",');
    expect(help).toContain("flagged when the newest version's share is less than half the one's before it");
    expect(help).not.toContain("version's halves");
  });
});
