// Recording overhead per hook, measured in every arm alike (seed "Reliability and concurrency": timing
// counters, so recording, retrieval and MCP start-up are told apart). The run's installed hook commands
// point at a small timer beside the run's config root instead of dist/hook.cjs; the timer loads the very
// same bundle in the same process (argv[1] set back, so the bundle still finds retrieval.cjs and launch.js)
// and, on exit, appends how long the process lived and how much of it was Node's own start-up.
import { join } from "node:path";
import { readRegularFileSync, writeFileAtomicSync } from "../core/base/fsutil.ts";

export const TIMINGS_FILE = "hook-timings.jsonl";
const TIMER_FILE = "tapedeck-hook-timer.cjs";

function timerSource(hookJs: string, out: string): string {
  return `"use strict";
const { appendFileSync } = require("node:fs");
const bootMs = process.uptime() * 1000;
process.argv[1] = ${JSON.stringify(hookJs)};
process.on("exit", (code) => {
  try {
    const line = JSON.stringify({ total_ms: Math.round(process.uptime() * 10000) / 10, boot_ms: Math.round(bootMs * 10) / 10, code });
    appendFileSync(${JSON.stringify(out)}, line + "\\n", { mode: 0o600 });
  } catch {}
});
require(${JSON.stringify(hookJs)});
`;
}

/**
 * Points every installed hook command in `settingsFiles` at the timer. Answers whether any was; a path the
 * installer would have had to shell-quote is left alone (a quote in it would end the quoted word).
 */
export function installHookTimer(opts: {
  home: string;
  runDir: string;
  hookJs: string;
  settingsFiles: string[];
}): boolean {
  const timer = join(opts.home, TIMER_FILE);
  if (/['"\\$`\s]/.test(timer)) return false;
  writeFileAtomicSync(timer, timerSource(opts.hookJs, join(opts.runDir, TIMINGS_FILE)));
  const from = JSON.stringify(opts.hookJs).slice(1, -1);
  const to = JSON.stringify(timer).slice(1, -1);
  let changed = false;
  for (const file of opts.settingsFiles) {
    let text: string;
    try {
      text = readRegularFileSync(file).toString("utf8");
    } catch {
      continue;
    }
    if (!text.includes(from)) continue;
    writeFileAtomicSync(file, text.split(from).join(to));
    changed = true;
  }
  return changed;
}

export interface HookTimings {
  invocations: number;
  total_ms: number;
  mean_ms: number;
  max_ms: number;
  /** Node's start-up inside each hook process: the part no recording work can shave. */
  boot_mean_ms: number;
}

export function readHookTimings(runDir: string): HookTimings | null {
  let lines: string[];
  try {
    lines = readRegularFileSync(join(runDir, TIMINGS_FILE)).toString("utf8").split("\n");
  } catch {
    return null;
  }
  const totals: number[] = [];
  const boots: number[] = [];
  for (const line of lines) {
    try {
      const v = JSON.parse(line) as { total_ms?: unknown; boot_ms?: unknown };
      if (typeof v.total_ms === "number" && typeof v.boot_ms === "number") {
        totals.push(v.total_ms);
        boots.push(v.boot_ms);
      }
    } catch {
      // a torn last line of a hook killed mid-write
    }
  }
  if (totals.length === 0) return null;
  const mean = (xs: number[]) => Math.round((xs.reduce((s, x) => s + x, 0) / xs.length) * 10) / 10;
  return {
    invocations: totals.length,
    total_ms: Math.round(totals.reduce((a, b) => a + b, 0) * 10) / 10,
    mean_ms: mean(totals),
    max_ms: Math.max(...totals),
    boot_mean_ms: mean(boots),
  };
}
