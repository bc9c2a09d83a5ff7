// @module-tag chromium
/**
 * The viewer over several projects (`view --all-projects`; issue 41, item 8): each session names its project,
 * a project menu filters the list, and no filter menu is cut short ("every pro"), at 1280 and 1400 px, in
 * Chromium. Screenshots of both widths go to the run's shots directory (TAPEDECK_VIEWER_SHOTS to keep them).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { startViewer, type ViewerServer } from "../../src/viewer/server.ts";
import { type Chromium, launchChromium, requireChromium } from "../helpers/chromium.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { identity, spec, useTempProjects } from "../helpers/session.ts";

const temp = useTempProjects("tapedeck-viewer-projects-");
const { tick, ev } = eventClock();

function session(root: string, prompt: string): void {
  const events: NormalizedEvent[] = [
    ev("session_start", `s-${prompt}`, { source: "startup" }),
    ev("user_prompt", `p-${prompt}`, { prompt }),
    ev("assistant_message", `a-${prompt}`, { text: "done" }),
    ev("session_end", `e-${prompt}`, { reason: "other" }),
  ];
  recordEvents(spec(root, { identity: identity(prompt.replace(/ /g, "-")) }), events, tick);
}

describe("the viewer's session list over several projects", () => {
  let server: ViewerServer;
  let browser: Chromium;
  let shots = "";

  beforeAll(async () => {
    requireChromium();
    const alpha = join(temp(), "alpha-service");
    const beta = join(temp(), "beta-frontend");
    mkdirSync(alpha);
    mkdirSync(beta);
    session(alpha, "alpha first");
    session(alpha, "alpha second");
    session(beta, "beta only");
    server = await startViewer({ projects: [alpha, beta] });
    browser = await launchChromium(temp());
    shots = browser.shots;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("names each session's project and filters by it, menus whole, at 1280 and 1400 px", async () => {
    const page = await browser.browser.newPage();
    await page.goto(server.url);
    await page.waitForSelector("#sessions a.session");
    for (const width of [1280, 1400]) {
      await page.setViewportSize({ width, height: 800 });
      await page.selectOption("#f-project", "");
      const metas = await page.$$eval("#sessions a.session .meta", (els) =>
        els.map((e) => e.textContent ?? ""),
      );
      expect(metas.filter((m) => m.startsWith("alpha-service · "))).toHaveLength(2);
      expect(metas.filter((m) => m.startsWith("beta-frontend · "))).toHaveLength(1);
      // Every menu shows its whole choice: its box is no narrower than its text.
      const cut = await page.$$eval(".filters select", (els) =>
        els
          .filter((e) => !(e as HTMLSelectElement).hidden)
          .filter((e) => e.scrollWidth > e.clientWidth + 1)
          .map((e) => e.id),
      );
      expect(cut, `at ${width} px`).toEqual([]);
      await page.screenshot({ path: join(shots, `projects-${width}.png`) });
      await page.selectOption("#f-project", { label: "beta-frontend" });
      expect(await page.textContent("#list-count")).toBe("1 of 3 sessions");
      await page.screenshot({ path: join(shots, `projects-${width}-beta.png`) });
    }
    await page.close();
  }, 60_000);
});
