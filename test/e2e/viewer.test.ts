// @module-tag claude
// @module-tag chromium
/**
 * The viewer in a real browser: sessions recorded from the real `claude` offline against the mock, served by
 * `tapedeck view`, driven in Debian's Chromium through playwright-core (no browser is downloaded). Also the
 * HTML export, opened from file:// with every network request aborted. Screenshots go to a temp directory
 * (TAPEDECK_VIEWER_SHOTS keeps them) so a person can look at the page.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { startViewer } from "../../src/viewer/server.ts";
import { type Chromium, launchChromium, requireChromium } from "../helpers/chromium.ts";
import { spec } from "../helpers/session.ts";
import { countKinds, readEventsFile } from "./archive-checks.ts";
import { offlineClaudeEnv, runClaude } from "./claude-runner.ts";
import { AWS_KEY_ID, plantSecrets } from "./planted-secrets.ts";
import { CLI_JS, REPO, useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();
const sb = useClaudeSandbox("viewer");
const { needles } = plantSecrets({ aws_access_key_id: AWS_KEY_ID });
const MARK = `zebrafinch${randomBytes(4).toString("hex")}`;

let chrome: Chromium | undefined;
let browser: BrowserContext;
let shots: string;
let viewer: ChildProcess;
let url: string;
let sessionId: string;
let events: Envelope[];
let sessionPath: string;
let experimentId: string;
let resultFile: string;

/** `tapedeck experiment run` replays every prompt in each arm: longer than the CLI helper's 30 s. */
function experiment(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...offlineClaudeEnv(sb.home, sb.mock.url) };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI_JS, "experiment", ...args],
      { cwd: sb.projectDir, env, encoding: "utf8", timeout: 300_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
    );
  });
}

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: false });
}

/** Starts `tapedeck view` and reads the URL it prints as JSON. */
function startView(): Promise<string> {
  const args = ["view", "--no-open", "--json", "--project", sb.projectDir, "--scenario-result", resultFile];
  viewer = spawn(process.execPath, [CLI_JS, ...args], {
    cwd: sb.projectDir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...sb.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    viewer.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      // The JSON is printed whole, then the server runs: it parses once all of it is there.
      try {
        resolve((JSON.parse(out) as { url: string }).url);
      } catch {
        // not all of it yet
      }
    });
    viewer.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
    });
    viewer.on("exit", (code) => reject(new Error(`tapedeck view exited ${code}: ${err}`)));
  });
}

function request(path: string, host: string): Promise<number> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: u.port, path, headers: { host } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

async function claude(args: string[]): Promise<void> {
  const res = await runClaude({
    home: sb.home,
    cwd: sb.projectDir,
    baseUrl: sb.mock.url,
    args: sessionId ? ["--resume", sessionId, ...args] : args,
  });
  expect(res.timedOut, res.stderr).toBe(false);
  expect(res.code, res.stderr).toBe(0);
  sessionId ||= res.sessionId!;
}

beforeAll(async () => {
  requireChromium();
  if (!existsSync(join(REPO, "dist", "viewer", "page.js")))
    throw new Error("the page is not built: npm run build");
  const install = await sb.cli([
    "install",
    "claude",
    "--project",
    sb.projectDir,
    "--transport",
    "command",
    "--yes",
  ]);
  expect(install.code, install.stderr).toBe(0);
  await claude([`SCENARIO_BASH echo ${MARK} ${AWS_KEY_ID}`]);
  await claude(["SCENARIO_FAIL"]);
  await claude(["SCENARIO_BASH printf 'one\\ntwo\\nthree\\n'"]);
  await claude(["SCENARIO_AGENT echo from-the-subagent"]);
  const list = await sb.cli(["list", "--json", "--project", sb.projectDir]);
  const sessions = JSON.parse(list.stdout) as Array<{ path: string; provider_session_id: string }>;
  sessionPath = sessions.find((s) => s.provider_session_id === sessionId)!.path;
  events = readEventsFile(join(sessionPath, "events.jsonl"));
  const run = await experiment([
    "run",
    "--session",
    sessionId,
    "--arm",
    "a:native-memory=on",
    "--arm",
    "b:native-memory=off",
    "--repeat",
    "1",
    "--json",
  ]);
  expect(run.code, run.stderr).toBe(0);
  experimentId = (JSON.parse(run.stdout) as { experiment_id: string }).experiment_id;
  // A scenario graded on the recorded session: its result artifact is shown with each check's evidence.
  const scenarioFile = join(sb.root, "scenario.json");
  const derived = await sb.cli([
    "scenario",
    "from-session",
    sessionId,
    "--out",
    scenarioFile,
    "--project",
    sb.projectDir,
  ]);
  expect(derived.code, derived.stderr).toBe(0);
  const scenario = JSON.parse(readFileSync(scenarioFile, "utf8"));
  scenario.expected_facts = [{ id: "subagent-report", text: "Agent finished" }];
  scenario.forbidden_facts = [{ id: "shrug", text: "I do not know" }];
  writeFileSync(scenarioFile, JSON.stringify(scenario));
  resultFile = join(sb.root, "result.json");
  const graded = await sb.cli([
    "scenario",
    "run",
    scenarioFile,
    "--out",
    resultFile,
    "--project",
    sb.projectDir,
  ]);
  expect(graded.code, graded.stderr).toBe(0);
  url = await startView();
  chrome = await launchChromium(sb.root);
  ({ browser, shots } = chrome);
}, 240_000);

afterAll(async () => {
  await chrome?.close();
  if (viewer && viewer.exitCode === null) viewer.kill("SIGTERM");
});

async function openSession(): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(url);
  await page.locator("#sessions .session").first().click();
  await page.locator(".ev").first().waitFor();
  return page;
}

describe("tapedeck view in Chromium, on sessions recorded from the real claude", () => {
  it("lists the recorded session with its title and status, and its experiment's runs under it", async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.locator("#sessions .session").first().waitFor();
    expect(await page.locator('#sessions .session[data-origin="recorded"]').count()).toBe(1);
    expect(await page.locator(".session .title").first().textContent()).toContain(MARK);
    expect(await page.locator(".session .badge").first().textContent()).toBe("complete");
    // The two arms' sessions follow their baseline, indented, each badged with its arm.
    const runs = page.locator('#sessions .session.nested[data-origin="run"]');
    expect(await runs.count()).toBe(2);
    expect((await runs.allTextContents()).join(" ")).toMatch(/arm a.*arm b|arm b.*arm a/);
    await shot(page, "list");
    await page.close();
  });

  it("opens a run's session with a link to its baseline, and the baseline links to its runs", async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.locator("#sessions .session.nested").first().click();
    await page.locator("#lineage a.baseline-link").waitFor();
    expect(await page.locator("#lineage").textContent()).toContain(`replay of claude:${sessionId}`);
    await page.locator("#lineage a.baseline-link").click();
    await page.locator("#lineage a.replay-link").first().waitFor();
    expect(await page.locator("#lineage a.replay-link").count()).toBe(2);
    expect(await page.locator("#lineage").textContent()).toContain("replayed 2 times");
    await shot(page, "lineage");
    await page.close();
  });

  it("finds a marker through the search index and opens the session at its event", async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.locator("#search").fill(MARK);
    await page.locator(".hit").first().waitFor();
    const hitSeq = Number(await page.locator(".hit").first().getAttribute("data-seq"));
    const marked = events.filter((e) => JSON.stringify(e.payload).includes(MARK)).map((e) => e.sequence);
    expect(marked).toContain(hitSeq);
    expect(await page.locator(".hit mark").first().textContent()).toBe(MARK);
    await shot(page, "search");
    await page.locator(".hit").first().click();
    await page.locator(`#seq-${hitSeq}.target`).waitFor();
    await page.close();
  });

  it("pairs every tool call with its result, with links both ways and the exit code", async () => {
    const page = await openSession();
    const calls = events.filter((e) => e.kind === "tool_call");
    // Three Bash calls, the Agent call and its subagent's Bash call.
    expect(calls.length).toBe(5);
    for (const call of calls) {
      const link = page.locator(`#seq-${call.sequence} .ev-head a.jump`);
      const text = (await link.textContent()) ?? "";
      const resultSeq = Number(/→ result #(\d+)/.exec(text)?.[1]);
      const result = events.find((e) => e.sequence === resultSeq)!;
      expect(["tool_result", "tool_error"]).toContain(result.kind);
      expect(result.payload.tool_use_id).toBe(call.payload.tool_use_id);
      expect(await page.locator(`#seq-${resultSeq} .ev-head a.jump`).textContent()).toBe(
        `← call #${call.sequence}`,
      );
    }
    const failed = events.find((e) => e.kind === "tool_error")!;
    expect(await page.locator(`#seq-${failed.sequence} [data-exit]`).textContent()).toBe("exit 3");
    const first = calls[0]!;
    const firstResult = /#(\d+)/.exec(
      (await page.locator(`#seq-${first.sequence} a.jump`).textContent()) ?? "",
    )![1];
    await page.locator(`#seq-${first.sequence} a.jump`).click();
    await expect.poll(() => page.locator(".ev.current").getAttribute("id")).toBe(`seq-${firstResult}`);
    await shot(page, "timeline");
    await page.close();
  });

  it("shows the subagent as a collapsible tree under its turn, with its calls and totals", async () => {
    const page = await openSession();
    const agentIds = [...new Set(events.filter((e) => e.agent_id).map((e) => e.agent_id!))];
    expect(agentIds.length).toBe(1);
    const node = page.locator(`details.agent[data-agent="${agentIds[0]}"]`);
    await node.locator("summary").click();
    const subCall = events.find((e) => e.kind === "tool_call" && e.agent_id === agentIds[0])!;
    expect(await node.locator(`a[href="#seq=${subCall.sequence}"]`).count()).toBe(1);
    expect(await node.locator("summary").textContent()).toMatch(/1 tool call · [\d.]+k? tokens/);
    expect(await page.locator(`#seq-${subCall.sequence}.sub`).count()).toBe(1);
    await node.scrollIntoViewIfNeeded();
    await shot(page, "subagent");
    await page.close();
  });

  it("shows each kind's count and hides a kind when its filter is off", async () => {
    const page = await openSession();
    const counts = countKinds(events);
    for (const [kind, n] of Object.entries(counts)) {
      expect(await page.locator(`.chip[data-kind="${kind}"] .count`).textContent(), kind).toBe(String(n));
    }
    expect(await page.locator(".ev[data-kind]:visible").count()).toBe(events.length);
    await page.locator('.chip[data-kind="tool_call"]').click();
    expect(await page.locator('.ev[data-kind="tool_call"]:visible').count()).toBe(0);
    expect(await page.locator(".ev[data-kind]:visible").count()).toBe(events.length - counts.tool_call!);
    expect(await page.locator("#loaded").textContent()).toContain(
      `${events.length - counts.tool_call!} of ${events.length} events shown`,
    );
    await shot(page, "filtered");
    await page.close();
  });

  it("folds and unfolds every event, and a deep link opens one", async () => {
    const page = await openSession();
    await page.locator("#close-all").click();
    expect(await page.locator("#rows details").count()).toBeGreaterThan(events.length - 1);
    expect(await page.locator("#rows details[open]").count()).toBe(0);
    await page.locator("#open-all").click();
    expect(await page.locator("#rows details:not([open])").count()).toBe(0);
    await page.locator("#close-all").click();
    const target = events.find((e) => e.kind === "tool_error")!;
    const deep = await browser.newPage();
    await deep.goto(`${url}#s=0&seq=${target.sequence}`);
    const row = deep.locator(`#seq-${target.sequence}`);
    await row.and(deep.locator(".target")).waitFor();
    expect(await row.locator("details").getAttribute("open")).toBe("");
    expect(await row.isVisible()).toBe(true);
    // Keyboard: j moves to the next event.
    await deep.keyboard.press("j");
    expect(await deep.locator(".ev.current").getAttribute("data-seq")).toBe(String(target.sequence + 1));
    await shot(deep, "deep-link");
    await deep.close();
    await page.close();
  });

  it("verifies the checksum in the page and shows the redaction count", async () => {
    const page = await openSession();
    await page.locator("[data-checksum]").waitFor();
    expect(await page.locator("[data-checksum]").getAttribute("data-checksum")).toBe("verified");
    const redactions = events.reduce((n, e) => n + e.redactions.length, 0);
    expect(redactions).toBeGreaterThan(0);
    expect(await page.locator("[data-redactions]").getAttribute("data-redactions")).toBe(String(redactions));
    const html = await page.content();
    for (const needle of needles) expect(html).not.toContain(needle);
    await shot(page, "integrity");
    await page.close();
  });

  it("refuses a request without the token, and one with a wrong Host", async () => {
    const u = new URL(url);
    const page = await browser.newPage();
    const res = await page.goto(`${u.origin}/api/sessions`);
    expect(res?.status()).toBe(403);
    await page.close();
    expect(await request("/", `127.0.0.1:${u.port}`)).toBe(403);
    expect(await request(`${u.pathname}api/sessions`, `127.0.0.1:${u.port}`)).toBe(200);
    expect(await request(`${u.pathname}api/sessions`, `rebound.example:${u.port}`)).toBe(403);
  });

  it("shows an experiment's arms side by side, aligned by prompt, with the report's figures", async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.locator(`.experiment-item[data-experiment="${experimentId}"]`).click();
    const view = page.locator(`section.experiment[data-experiment="${experimentId}"]`);
    await view.waitFor();
    expect(await view.locator("table.arms thead th").allTextContents()).toEqual(["", "arm a", "arm b"]);
    expect(await view.locator("table.arms tbody tr").first().textContent()).toContain("native memory on");
    // Four prompts replayed once per arm: a row per prompt, an answer per arm in each.
    const rows = view.locator("table.prompts tbody tr");
    expect(await rows.count()).toBe(4);
    for (let i = 0; i < 4; i++) expect(await rows.nth(i).locator(".answer").count()).toBe(2);
    expect(await view.locator("table.deltas").count()).toBe(1);
    expect(await view.locator("a.baseline").getAttribute("href")).toBe("#s=0");
    await shot(page, "experiment");
    await page.close();
  });

  it("opens a deep link far into a long session from its byte offset, without loading the pages before it", async () => {
    const root = join(sb.root, "long");
    mkdirSync(root);
    const many: NormalizedEvent[] = Array.from({ length: 3000 }, (_, i) => ({
      kind: i % 2 ? "tool_result" : "tool_call",
      event_id: `e${i}`,
      payload: {
        tool_name: "Bash",
        tool_use_id: `u${Math.floor(i / 2)}`,
        tool_input: { command: `echo ${i}` },
      },
    }));
    recordEvents(spec(root), many);
    const long = await startViewer({ projects: [root] });
    try {
      const page = await browser.newPage();
      await page.goto(`${long.url}#s=0&seq=2600`);
      await page.locator("#seq-2600.target").waitFor();
      // The first page (from the start) and the page located at #2600: never the 2,000 events between.
      expect(await page.locator(".ev[data-seq]").count()).toBeLessThanOrEqual(500);
      expect(await page.locator("#seq-1200").count()).toBe(0);
      expect(await page.locator(".window-note").textContent()).toContain(
        "Events before #2600 are not loaded",
      );
      await shot(page, "long-deep-link");
      await page.locator("#from-start").click();
      await page.locator("#seq-1").waitFor();
      await page.close();
    } finally {
      await long.close();
    }
  });

  it("shows a scenario result: each check's outcome and evidence, linked to the graded session", async () => {
    const page = await browser.newPage();
    await page.goto(url);
    await page.locator(".result-item").first().click();
    const view = page.locator("section.scenario-result");
    await view.waitFor();
    expect(await view.locator("h2 .badge").textContent()).toBe("passed");
    const fact = view.locator('tr[data-check="subagent-report"]');
    expect(await fact.getAttribute("data-outcome")).toBe("pass");
    expect(await fact.locator(".evidence").textContent()).toContain("Agent finished");
    expect(await view.locator('tr[data-check="shrug"]').getAttribute("data-outcome")).toBe("pass");
    expect(await view.locator("a.sample-session").getAttribute("href")).toBe("#s=0");
    await shot(page, "scenario-result");
    await page.close();
  });

  it("exports one self-contained HTML file that renders from file:// with all network blocked", async () => {
    const out = join(sb.root, "session.html");
    const res = await sb.cli([
      "export",
      sessionId,
      "--format",
      "html",
      "--out",
      out,
      "--project",
      sb.projectDir,
    ]);
    expect(res.code, res.stderr).toBe(0);
    const html = readFileSync(out, "utf8");
    for (const needle of needles) expect(html).not.toContain(needle);
    expect(html).toContain("Content-Security-Policy");
    const context = browser;
    const requested: string[] = [];
    // Every request but the file itself is aborted (and remembered: the page must make none).
    await context.route("**/*", (route) => {
      const target = route.request().url();
      if (target === `file://${out}`) return route.continue();
      requested.push(target);
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await page.goto(`file://${out}`);
    await page.locator(".ev").first().waitFor();
    expect(await page.locator(".ev[data-kind]").count()).toBe(events.length);
    await page.locator("[data-checksum]").waitFor();
    expect(await page.locator("[data-checksum]").getAttribute("data-checksum")).toBe("verified");
    const call = events.find((e) => e.kind === "tool_call")!;
    expect(await page.locator(`#seq-${call.sequence} a.jump`).textContent()).toMatch(/→ result #\d+/);
    await shot(page, "export");
    expect(requested).toEqual([]);
    expect(errors).toEqual([]);
    await context.unrouteAll();
    await page.close();
  });
});
