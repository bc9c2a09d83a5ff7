// @module-tag chromium
/**
 * The site `tapedeck export --all --all-projects --format html` writes, in Chromium from file:// with every
 * other request aborted (issue 41, item 13): the index over all projects searches offline (a word of a prompt,
 * a project, nothing), HTML recorded in a prompt shows as text and never runs (not in the index, not on the
 * session's page), the pages link index → project → session → back, and nothing is refused by the CSP nor
 * fetched. Screenshots go to the run's shots directory (TAPEDECK_VIEWER_SHOTS keeps them).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerSession } from "../../src/core/archive/session-registry.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { type Chromium, launchChromium, requireChromium } from "../helpers/chromium.ts";
import { ensureBuilt } from "../helpers/cli-run.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { runProgram } from "../helpers/program.ts";
import { identity, spec, tempProject } from "../helpers/session.ts";

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

let chrome: Chromium;
let project: { root: string; cleanup: () => void };
let out = "";
const requested: string[] = [];
const errors: string[] = [];

function record(root: string, id: string, prompt: string): void {
  const { tick, ev } = eventClock();
  recordEvents(
    spec(root, { identity: identity(id) }),
    [
      ev("session_start", `s-${id}`, { source: "startup" }),
      ev("user_prompt", `p-${id}`, { prompt }),
      ev("assistant_message", `a-${id}`, { text: `answer of ${id}` }),
      ev("session_end", `e-${id}`, { reason: "other" }),
    ],
    tick,
  );
}

beforeAll(async () => {
  requireChromium();
  ensureBuilt();
  project = tempProject("tapedeck-site-export-");
  const alpha = join(project.root, "alpha-service");
  const beta = join(project.root, "beta-frontend");
  const home = join(project.root, "home");
  for (const d of [alpha, beta, home]) mkdirSync(d, { mode: 0o700 });
  record(alpha, "a1", "migrate the billing tables to the new schema");
  record(alpha, "a2", `render this markup: ${HOSTILE}`);
  record(beta, "b1", "the beta task about wombats and their burrows");
  const env = { TAPEDECK_HOME: join(home, ".tapedeck"), HOME: home };
  registerSession({ provider: "claude", provider_session_id: "b1", project_root: beta }, env);
  out = join(project.root, "site");
  const r = await runProgram(["export", "--all", "--all-projects", "--format", "html", "--out", out], {
    cwd: alpha,
    env,
  });
  expect(r.code, r.stderr).toBe(0);
  chrome = await launchChromium(project.root);
  await chrome.browser.route("**/*", (route) => {
    const target = route.request().url();
    if (target.startsWith(`file://${out}/`)) return route.continue();
    requested.push(target);
    return route.abort();
  });
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  project?.cleanup();
});

async function open(path: string): Promise<Page> {
  const page = await chrome.browser.newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("dialog", (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(`file://${join(out, path)}`);
  return page;
}

const titles = (page: Page) => page.$$eval("#sessions li a", (els) => els.map((e) => e.textContent ?? ""));

describe("the exported site in Chromium, offline", () => {
  it("searches every project's sessions from the top index, with no network", async () => {
    const page = await open("index.html");
    await page.waitForSelector("#sessions li");
    expect(await page.textContent("#count")).toBe("3 of 3 sessions");
    expect(await page.$$eval("#projects a", (els) => els.map((e) => e.textContent))).toEqual([
      "alpha-service",
      "beta-frontend",
    ]);
    await page.fill("#q", "WOMBATS");
    await page.waitForFunction(
      () => document.getElementById("count")?.textContent === "1 of 3 sessions match",
    );
    expect(await titles(page)).toEqual(["the beta task about wombats and their burrows"]);
    await page.fill("#q", "answer of a1");
    await page.waitForFunction(
      () => document.getElementById("count")?.textContent === "1 of 3 sessions match",
    );
    expect(await page.textContent("#sessions li .snip mark")).toBe("answer of a1");
    await page.screenshot({ path: join(chrome.shots, "site-search.png") });
    await page.fill("#q", "no such words anywhere");
    await page.waitForFunction(
      () => document.getElementById("count")?.textContent === "0 of 3 sessions match",
    );
    await page.fill("#q", "");
    await page.screenshot({ path: join(chrome.shots, "site-index.png") });
    expect(requested).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("shows HTML from a prompt as text and runs none of it, in the index and on the session's page", async () => {
    const page = await open("index.html");
    await page.fill("#q", "onerror");
    await page.waitForFunction(
      () => document.getElementById("count")?.textContent === "1 of 3 sessions match",
    );
    expect(await titles(page)).toEqual([`render this markup: ${HOSTILE}`]);
    expect(await page.locator("#sessions img").count()).toBe(0);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.click("#sessions li a");
    await page.waitForSelector(".ev[data-kind='user_prompt']");
    expect(page.url().split("#")[0]).toBe(`file://${join(out, "alpha-service", "claude-a2.html")}`);
    expect(await page.locator("#main img").count()).toBe(0);
    expect(await page.textContent("#main")).toContain(HOSTILE);
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.screenshot({ path: join(chrome.shots, "site-session.png") });
    // Back to the project's index, and from there to the index over all.
    await page.click("#site-index");
    await page.waitForSelector("#sessions li");
    expect(page.url()).toBe(`file://${join(out, "alpha-service", "index.html")}`);
    expect(await page.textContent("#count")).toBe("2 of 2 sessions");
    await page.click("#up");
    await page.waitForSelector("#projects");
    expect(page.url()).toBe(`file://${join(out, "index.html")}`);
    expect(requested).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
