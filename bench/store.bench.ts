// Append throughput, and the recovery/inspection scan of a large events.jsonl
// beside `wc -l` on the same file.
// Run: npx tsx bench/store.bench.ts [--scan-mb 200]
import { spawnSync } from "node:child_process";
import { closeSync, openSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { listSessions } from "../src/core/archive.ts";
import { DEFAULT_LIMITS } from "../src/core/bound.ts";
import { recoverSession } from "../src/core/recovery.ts";
import { recordEvents } from "../src/core/store.ts";
import { round, tempDir } from "./lib.ts";

function spec(root: string) {
  return {
    projectRoot: root,
    sessionRoot: join(root, ".tapedeck", "claude-sessions"),
    identity: {
      provider: "claude",
      provider_session_id: "bench",
      session_id: "claude:bench",
      identity_source: "provider" as const,
    },
    mode: "capture-only" as const,
    capabilities: [],
    agentPid: null,
    limits: DEFAULT_LIMITS,
  };
}

function toolResult(i: number) {
  return {
    kind: "tool_result" as const,
    event_id: `e${i}`,
    payload: {
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_use_id: `toolu_${i}`,
      tool_input: { command: "npm test -- --reporter dot", description: "Run the tests" },
      tool_response: { stdout: "x".repeat(600), stderr: "", interrupted: false },
    },
  };
}

export function runAppendBench(count = 3000) {
  const { dir, cleanup } = tempDir("tapedeck-appendbench-");
  try {
    const s = spec(dir);
    const t0 = performance.now();
    for (let i = 0; i < count; i += 1) recordEvents(s, [toolResult(i)]);
    const ms = performance.now() - t0;
    // Cost must not grow with session length: time the last tenth against the first.
    const t1 = performance.now();
    for (let i = count; i < count + count / 10; i += 1) recordEvents(s, [toolResult(i)]);
    const lateMs = (performance.now() - t1) / (count / 10);
    return {
      name: "append",
      events: count,
      events_per_s: round((count / ms) * 1000, 0),
      ms_per_event_first: round(ms / count, 3),
      ms_per_event_after: round(lateMs, 3),
    };
  } finally {
    cleanup();
  }
}

/** Writes a synthetic but valid events.jsonl of about `mb` megabytes directly. */
function writeLargeLog(path: string, mb: number): number {
  const fd = openSync(path, "w", 0o600);
  let written = 0;
  let seq = 1;
  const chunk: string[] = [];
  try {
    while (written < mb * 1e6) {
      const line = `${JSON.stringify({
        schema_version: 1,
        sequence: seq,
        event_id: `e${seq}`,
        timestamp: "2026-11-29T12:00:00.000Z",
        kind: seq % 5 === 0 ? "turn_usage" : "tool_result",
        provider: "claude",
        session_id: "claude:bench",
        payload: { tool_name: "Bash", tool_response: { stdout: "y".repeat(700 + (seq % 300)) } },
        redactions: [],
        truncations: [],
        omitted: [],
      })}\n`;
      chunk.push(line);
      written += line.length;
      seq += 1;
      if (chunk.length >= 2000) {
        writeSync(fd, chunk.join(""));
        chunk.length = 0;
      }
    }
    if (chunk.length) writeSync(fd, chunk.join(""));
  } finally {
    closeSync(fd);
  }
  return seq - 1;
}

export function runScanBench(mb = 200) {
  const { dir, cleanup } = tempDir("tapedeck-scanbench-");
  try {
    recordEvents(spec(dir), [toolResult(0)]);
    const sessionDir = join(dir, ".tapedeck", "claude-sessions", "bench");
    const file = join(sessionDir, "events.jsonl");
    const events = writeLargeLog(file, mb);
    const bytes = statSync(file).size;
    // Warm the page cache for both readers alike.
    spawnSync("cat", [file], { stdio: "ignore" });
    const w0 = performance.now();
    spawnSync("wc", ["-l", file], { stdio: "ignore" });
    const wcMs = performance.now() - w0;
    const r0 = performance.now();
    const result = recoverSession(sessionDir, { write: false });
    const scanMs = performance.now() - r0;
    if (result.report.valid_events !== events) throw new Error("scan miscounted");
    return {
      name: "scan",
      mb: round(bytes / 1e6, 1),
      events,
      tapedeck_mb_per_s: round(bytes / 1e6 / (scanMs / 1000), 1),
      wc_l_mb_per_s: round(bytes / 1e6 / (wcMs / 1000), 1),
      ratio_vs_wc: round(wcMs / scanMs, 3),
    };
  } finally {
    cleanup();
  }
}

/** `tapedeck list` reads manifests only: time it over many sessions. */
export function runListBench(sessions = 2000) {
  const { dir, cleanup } = tempDir("tapedeck-listbench-");
  try {
    const base = spec(dir);
    for (let i = 0; i < sessions; i += 1) {
      recordEvents(
        { ...base, identity: { ...base.identity, provider_session_id: `s${i}`, session_id: `claude:s${i}` } },
        [toolResult(0)],
      );
    }
    const t0 = performance.now();
    const listed = listSessions(dir);
    const ms = performance.now() - t0;
    if (listed.length !== sessions) throw new Error("list miscounted");
    return { name: "list", sessions, ms: round(ms, 1), us_per_session: round((ms * 1000) / sessions, 1) };
  } finally {
    cleanup();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf("--scan-mb");
  const mb = i > 0 ? Number(process.argv[i + 1]) : 200;
  console.log(JSON.stringify([runAppendBench(), runScanBench(mb), runListBench()], null, 2));
}
