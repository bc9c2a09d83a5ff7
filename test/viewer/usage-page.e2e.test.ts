// @module-tag chromium
/**
 * The viewer's usage page in Debian's Chromium (playwright-core, no browser downloaded), on sessions of three
 * providers recorded through the store: the same numbers as `tapedeck usage` for the browser's own time zone,
 * a bar per day with a gap for a day without usage, stacks by provider and by model, the cost view, a bad
 * time zone answered with its reason, nothing refused by the CSP. Screenshots go to a temp directory
 * (TAPEDECK_VIEWER_SHOTS keeps them) so a person can look at the page.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { startViewer, type ViewerServer } from "../../src/viewer/server.ts";
import { ensureBuilt } from "../helpers/cli-run.ts";
import { tempProject } from "../helpers/temp-project.ts";
import { claudeUsage, codexUsage, recordUsage, report } from "../usage/sessions.ts";

const CHROMIUM = process.env.TAPEDECK_CHROMIUM || "/usr/bin/chromium";
const ZONE = "Asia/Tokyo";

let project: { root: string; cleanup: () => void };
let viewer: ViewerServer;
let browser: BrowserContext;
let userDataDir: string;
let shots: string;

function sessions(p: string): void {
  // Gemini's price as the project's own (the same figures as tapedeck's), and one entry refused.
  writeConfig(p, {
    schema_version: 1,
    providers: {},
    pricing: {
      as_of: "2025-11-01",
      models: {
        "gemini-2.5-pro": { input: 1.25, output: 10, cache_read: 0.31 },
        free: { input: 0, output: 0 },
      },
    },
  } as never);
  // Tokyo is UTC+9: 14:55 UTC on 1 December is 23:55 there, 15:05 is 00:05 on the 2nd.
  recordUsage(p, "claude", "night", "2026-12-01T14:50:00.000Z", [
    {
      at: "2026-12-01T14:55:00.000Z",
      usage: claudeUsage("claude-sonnet-4-5-20250929", 1200, 300, 20_000, 900),
    },
    { at: "2026-12-01T15:05:00.000Z", usage: claudeUsage("claude-haiku-4-5", 800, 100, 5_000, 0) },
  ]);
  recordUsage(p, "codex", "c1", "2026-12-02T03:00:00.000Z", [
    {
      at: "2026-12-02T03:01:00.000Z",
      usage: codexUsage("gpt-5", 9000, 700, "resp_1", { cache_read_input_tokens: 6000 }),
    },
  ]);
  // Nothing on the 3rd and the 4th; Gemini on the 5th.
  recordUsage(p, "gemini", "g1", "2026-12-05T01:00:00.000Z", [
    {
      at: "2026-12-05T01:01:00.000Z",
      usage: { source: "gemini-hook", model: "gemini-2.5-pro", input_tokens: 4000, output_tokens: 250 },
    },
    {
      at: "2026-12-05T01:02:00.000Z",
      usage: {
        source: "gemini-chat",
        model: "gemini-2.5-pro",
        message_id: "g-m1",
        cache_read_input_tokens: 1500,
        reasoning_output_tokens: 120,
      },
    },
  ]);
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the viewer's browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  }
  ensureBuilt();
  project = tempProject("tapedeck-usage-page-");
  sessions(project.root);
  viewer = await startViewer({ projects: [project.root] });
  userDataDir = mkdtempSync(join(tmpdir(), "tapedeck-chromium-"));
  shots = process.env.TAPEDECK_VIEWER_SHOTS ?? join(project.root, "shots");
  mkdirSync(shots, { recursive: true });
  browser = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 900 },
    timezoneId: ZONE,
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await viewer?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  project?.cleanup();
});

async function openUsage(): Promise<{ page: Page; refused: string[] }> {
  const page = await browser.newPage();
  // What the CSP refused, and any request of the page's own that failed (the browser's favicon.ico, asked
  // without the token, is refused by design).
  const refused: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Refused/.test(m.text())) refused.push(m.text());
  });
  page.on("response", (r) => {
    if (r.status() >= 400 && !r.url().endsWith("/favicon.ico")) refused.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${viewer.url}#u=daily`);
  await page.locator("#usage-total").waitFor();
  return { page, refused };
}

const cellsOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));

describe("the viewer's usage page in Chromium", () => {
  it("shows the CLI's numbers for the browser's time zone, a bar per day, stacked by provider", async () => {
    const { page, refused } = await openUsage();
    expect(await page.inputValue("#u-tz")).toBe(ZONE);
    const cli = report([project.root], { kind: "daily", timeZone: ZONE });
    const rows = await cellsOf(page, ".usage-table tbody tr:not(.total)");
    expect(rows.map((r) => [r[0], r[1], r[2], r[6], r[8]])).toEqual(
      cli.rows.map((r) => [
        r.date,
        r.provider,
        r.input_tokens?.toLocaleString("en-US"),
        r.total_tokens?.toLocaleString("en-US"),
        String(r.sessions),
      ]),
    );
    // The night session falls on both Tokyo days: 23:55 and 00:05.
    expect(rows.map((r) => r[0])).toEqual(["2026-12-01", "2026-12-02", "2026-12-02", "2026-12-05"]);
    const [total] = await cellsOf(page, "#usage-total");
    const t = cli.totals;
    expect(total!.slice(2, 6)).toEqual(
      [t.input_tokens, t.output_tokens, t.cache_read_input_tokens, t.cache_creation_input_tokens].map((n) =>
        n.toLocaleString("en-US"),
      ),
    );
    expect(total![7]).toBe(`$${cli.totals.cost_usd!.toFixed(4)}`);
    // Five days from the first to the last, the 3rd and the 4th empty.
    const bars = page.locator(".usage-chart g[data-bar]");
    expect(
      await bars.evaluateAll((gs) => gs.map((g) => [g.getAttribute("data-bar"), g.children.length])),
    ).toEqual([
      ["2026-12-01", 1],
      ["2026-12-02", 2],
      ["2026-12-03", 0],
      ["2026-12-04", 0],
      ["2026-12-05", 1],
    ]);
    expect(await page.locator(".usage-chart .legend").textContent()).toContain("codex");
    // What the figures cover, as the CLI's title says it.
    expect(await page.locator("#usage-scope").textContent()).toMatch(
      new RegExp(`^in project ${project.root} · time zone`),
    );
    const notes = await page.locator("#usage-notes").textContent();
    expect(notes).toContain("gemini: the model-router call before each prompt reaches no hook or file");
    expect(notes).toContain("codex, gemini: input as reported includes the cache reads");
    expect(notes).toContain(`gemini-2.5-pro priced by the project's own "pricing", not tapedeck's table`);
    expect(notes).toContain(
      `pricing.models.free in ${project.root}/.tapedeck/config.json refused: input 0 is out of range`,
    );
    await page.screenshot({ path: join(shots, "usage-daily.png") });
    expect(refused).toEqual([]);
    await page.close();
  });

  it("stacks by model, draws the estimated cost, and answers a bad time zone with its reason", async () => {
    const { page, refused } = await openUsage();
    await page.check("#u-models");
    await page.locator(".usage-table tr.model-row").first().waitFor();
    const series = await page
      .locator(".usage-chart rect[data-series]")
      .evaluateAll((rs) => [...new Set(rs.map((r) => r.getAttribute("data-series")))]);
    expect(series).toEqual([
      "claude · claude-sonnet-4-5-20250929",
      "claude · claude-haiku-4-5",
      "codex · gpt-5",
      "gemini · gemini-2.5-pro",
    ]);
    await page.selectOption("#u-metric", "cost");
    await page.locator('.usage-chart svg[aria-label="estimated cost daily"]').waitFor();
    await page.screenshot({ path: join(shots, "usage-daily-models-cost.png") });
    await page.selectOption("#u-report", "session");
    await page.waitForFunction(() => document.querySelector(".usage-table th")?.textContent === "session");
    expect(await page.locator(".usage-chart").count()).toBe(0);
    expect(await page.locator(".usage-table tbody tr[data-provider]").count()).toBe(3);
    await page.fill("#u-tz", "Mars/Olympus");
    await page.press("#u-tz", "Enter");
    await page.locator("#usage-error").waitFor();
    expect(await page.locator("#usage-error").textContent()).toContain('unknown time zone "Mars/Olympus"');
    expect(refused).toEqual([
      expect.stringMatching(/^400 .*api\/usage\?report=session&tz=Mars%2FOlympus&breakdown=1$/),
    ]);
    await page.close();
  });
});
