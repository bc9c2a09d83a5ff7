// @module-tag chromium
/**
 * The viewer's pages at 1280 and 1400 px in Chromium (issue 41, item 8): the usage page's by-session table,
 * whose session cells held the whole first prompt on one line, stays inside the page; the usage page is not
 * styled as a turn's small grey usage line; a healthy session's integrity panel is one closed summary line
 * above the conversation. Screenshots of every page at both widths go to the run's shots directory
 * (TAPEDECK_VIEWER_SHOTS keeps them) so a person can look at them.
 */
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startViewer, type ViewerServer } from "../../src/viewer/server.ts";
import { type Chromium, launchChromium, requireChromium } from "../helpers/chromium.ts";
import { ensureBuilt } from "../helpers/cli-run.ts";
import { tempProject } from "../helpers/session.ts";
import { claudeUsage, codexUsage, recordUsage } from "../usage/sessions.ts";

const LONG =
  "Refactor the payment module so that the retry logic handles idempotency keys correctly and add tests";
const WIDTHS = [1280, 1400];

let server: ViewerServer;
let chrome: Chromium;
let project: { root: string; cleanup: () => void } | undefined;

/** What sticks out of the page sideways: the document's overflow, and any usage table wider than its pane. */
function overflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > innerWidth) out.push(`document ${doc.scrollWidth} > ${innerWidth}`);
    const main = document.getElementById("main")!.getBoundingClientRect();
    for (const t of document.querySelectorAll("table")) {
      const r = t.getBoundingClientRect();
      if (r.right > main.right + 1) out.push(`${t.className} ends at ${Math.round(r.right)} > ${main.right}`);
    }
    return out;
  });
}

beforeAll(async () => {
  requireChromium();
  ensureBuilt();
  project = tempProject("tapedeck-viewer-layout-");
  const root = project.root;
  const prompt = (id: string, day: string) => ({
    kind: "user_prompt" as const,
    event_id: `long-${id}`,
    timestamp: `2026-12-${day}T10:00:01.000Z`,
    payload: { prompt: `${LONG} (${id})` },
  });
  recordUsage(
    root,
    "claude",
    "a1b2c3d4-e5f6-7890-abcd-ef1234567890",
    "2026-12-01T10:00:00.000Z",
    [
      {
        at: "2026-12-01T10:01:00.000Z",
        usage: claudeUsage("claude-sonnet-4-5-20250929", 123_456, 45_678, 2_345_678, 123_456),
      },
    ],
    [prompt("claude", "01")],
  );
  recordUsage(
    root,
    "codex",
    "019a2b3c-4d5e-6f70-8192-a3b4c5d6e7f8",
    "2026-12-02T10:00:00.000Z",
    [
      {
        at: "2026-12-02T10:01:00.000Z",
        usage: codexUsage("gpt-5-codex", 1_234_567, 45_678, "resp_1", { cache_read_input_tokens: 1_000_000 }),
      },
    ],
    [prompt("codex", "02")],
  );
  server = await startViewer({ projects: [root] });
  chrome = await launchChromium(root);
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await server?.close();
  project?.cleanup();
});

describe("the viewer's pages at 1280 and 1400 px", () => {
  it("keeps every usage report inside the page, in the page's own type", async () => {
    const page = await chrome.browser.newPage();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      for (const report of ["daily", "weekly", "monthly", "session", "model"]) {
        await page.goto("about:blank");
        await page.goto(`${server.url}#u=${report}`);
        await page.locator("#usage-total").waitFor();
        await page.screenshot({ path: join(chrome.shots, `usage-${report}-${width}.png`) });
        expect(await overflow(page), `${report} at ${width} px`).toEqual([]);
        // The page's heading in the page's colour and size, not a turn's dim 12 px usage line.
        const font = await page.$eval("#usage", (e) => getComputedStyle(e).fontSize);
        expect(font, `${report} at ${width} px`).not.toBe("12px");
      }
    }
    await page.close();
  }, 60_000);

  it("folds a healthy session's integrity panel into one closed summary line", async () => {
    const page = await chrome.browser.newPage();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("about:blank");
      await page.goto(server.url);
      await page.waitForSelector("#sessions a.session");
      await page.click("#sessions a.session");
      await page.locator("[data-checksum]").waitFor();
      // Still being written (no checksums.json yet) is no fault: the panel stays closed.
      expect(await page.getAttribute("[data-checksum]", "data-checksum")).toBe("none");
      await page.screenshot({ path: join(chrome.shots, `session-${width}.png`) });
      expect(
        await page.$eval("#integrity", (e) => e.tagName === "DETAILS" && !(e as HTMLDetailsElement).open),
      ).toBe(true);
      // Closed, it is one line: the first turn starts within the first screen.
      const turn = await page.$eval(".turn", (e) => e.getBoundingClientRect().top);
      expect(turn).toBeLessThan(900);
      expect(await overflow(page), `session at ${width} px`).toEqual([]);
      await page.click("#integrity > summary");
      await page.screenshot({ path: join(chrome.shots, `session-integrity-${width}.png`) });
      expect(await page.isVisible("#integrity table.kv")).toBe(true);
      await page.goto(`${server.url}`);
      await page.waitForSelector("#sessions a.session");
      await page.screenshot({ path: join(chrome.shots, `list-${width}.png`) });
      expect(await overflow(page), `list at ${width} px`).toEqual([]);
    }
    await page.close();
  }, 60_000);
});
