// The viewer's time to first render: `tapedeck view`'s server and page in Chromium, from navigation to the
// first event row on screen, for a 100,000-event session and for a 10-event one (the floor: same server,
// same page). The page asks for the first 500 events by byte offset, so the two should be close.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import type { NormalizedEvent } from "../src/core/archive/event.ts";
import { recordEvents } from "../src/core/archive/session-store.ts";
import { startViewer } from "../src/viewer/server.ts";
import { spec } from "../test/helpers/session.ts";
import { median, round, tempDir } from "./lib.ts";

// Debian's Chromium; elsewhere (macOS) TAPEDECK_CHROMIUM names one (scripts/test-prereqs.sh says how).
const CHROMIUM = process.env.TAPEDECK_CHROMIUM || "/usr/bin/chromium";

function session(root: string, events: number): void {
  const list: NormalizedEvent[] = [{ kind: "session_start", event_id: "s", payload: { source: "startup" } }];
  for (let i = 0; list.length < events; i += 1) {
    if (i % 50 === 0) list.push({ kind: "user_prompt", event_id: `p${i}`, payload: { prompt: `step ${i}` } });
    list.push({
      kind: "tool_call",
      event_id: `c${i}`,
      payload: { tool_name: "Bash", tool_input: { command: `echo ${i}` }, tool_use_id: `u${i}` },
    });
    list.push({
      kind: "tool_result",
      event_id: `r${i}`,
      payload: { tool_name: "Bash", tool_response: { stdout: `${i}\n`.repeat(20) }, tool_use_id: `u${i}` },
    });
  }
  recordEvents(spec(root), list.slice(0, events));
}

async function firstRender(root: string, runs: number): Promise<number[]> {
  const viewer = await startViewer({ projects: [root] });
  const profile = mkdtempSync(join(tmpdir(), "tapedeck-bench-chromium-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  try {
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const page = await browser.newPage();
      const t0 = performance.now();
      await page.goto(`${viewer.url}#s=0`);
      await page.locator(".ev").first().waitFor();
      times.push(performance.now() - t0);
      await page.close();
    }
    return times;
  } finally {
    await browser.close();
    await viewer.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

export async function runViewerBench(events = 100_000, runs = 5) {
  if (!existsSync(CHROMIUM)) throw new Error(`the viewer bench needs Chromium at ${CHROMIUM}`);
  const big = tempDir("tapedeck-viewerbench-");
  const small = tempDir("tapedeck-viewerbench-floor-");
  try {
    session(big.dir, events);
    session(small.dir, 10);
    const bigMs = median(await firstRender(big.dir, runs));
    const floorMs = median(await firstRender(small.dir, runs));
    return {
      name: "viewer first render",
      events,
      first_render_ms: round(bigMs, 1),
      floor_10_events_ms: round(floorMs, 1),
      vs_floor: round(bigMs / floorMs, 2),
    };
  } finally {
    big.cleanup();
    small.cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runViewerBench(), null, 2));
}
