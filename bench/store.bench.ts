// Append throughput, the recovery/inspection scan of a large events.jsonl
// beside `wc -l` on the same file, and `inspect` of a sealed large session
// (the first inspect scans everything, a later one only what was appended).
// Run: npm run build && npx tsx bench/store.bench.ts [--scan-mb 200] [--only scan|inspect]
import { spawnSync } from "node:child_process";
import { closeSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_LIMITS } from "../src/core/archive/bound.ts";
import { CHECKPOINT_FILE } from "../src/core/archive/checkpoint.ts";
import { recoverSession } from "../src/core/archive/recovery.ts";
import { recordEvents } from "../src/core/archive/session-store.ts";
import { inspectSession, listSessions } from "../src/core/read/sessions.ts";
import { buildRevision } from "./cli.bench.ts";
import { interleaved, median, round, tempDir } from "./lib.ts";

/** Medians of this many interleaved runs: one run of `wc -l` takes 30 ms and a neighbour's burst skews it. */
const SCAN_RUNS = 5;

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

/** Writes a synthetic but valid events.jsonl of about `mb` megabytes directly; `end` closes it with a session_end. */
function writeLargeLog(path: string, mb: number, end = false): number {
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
    if (end) chunk.push(`${JSON.stringify({ ...lifecycle(seq), kind: "session_end" })}\n`);
    if (chunk.length) writeSync(fd, chunk.join(""));
  } finally {
    closeSync(fd);
  }
  return end ? seq : seq - 1;
}

function lifecycle(seq: number) {
  return {
    schema_version: 1,
    sequence: seq,
    event_id: `e${seq}`,
    timestamp: "2026-11-29T12:00:01.000Z",
    kind: "session_start",
    provider: "claude",
    session_id: "claude:bench",
    payload: {},
    redactions: [],
    truncations: [],
    omitted: [],
  };
}

export function runScanBench(mb = 200) {
  const { dir, cleanup } = tempDir("tapedeck-scanbench-");
  try {
    recordEvents(spec(dir), [toolResult(0)]);
    const sessionDir = join(dir, ".tapedeck", "claude-sessions", "bench");
    const file = join(sessionDir, "events.jsonl");
    const events = writeLargeLog(file, mb);
    const bytes = statSync(file).size;
    // Warm the page cache for both readers alike, then interleave them: a busy moment hits both.
    spawnSync("cat", [file], { stdio: "ignore" });
    const wcRuns: number[] = [];
    const scanRuns: number[] = [];
    let result: ReturnType<typeof recoverSession> | undefined;
    for (let run = 0; run < SCAN_RUNS; run += 1) {
      const w0 = performance.now();
      spawnSync("wc", ["-l", file], { stdio: "ignore" });
      wcRuns.push(performance.now() - w0);
      const r0 = performance.now();
      // A full scan: the checkpoint is what the inspect bench measures.
      result = recoverSession(sessionDir, { write: false, checkpoint: false });
      scanRuns.push(performance.now() - r0);
    }
    if (result?.report.valid_events !== events) throw new Error("scan miscounted");
    const wcMs = median(wcRuns);
    const scanMs = median(scanRuns);
    return {
      name: "scan",
      mb: round(bytes / 1e6, 1),
      events,
      tapedeck_mb_per_s: round(bytes / 1e6 / (scanMs / 1000), 1),
      wc_l_mb_per_s: round(bytes / 1e6 / (wcMs / 1000), 1),
      ratio_vs_wc: round(wcMs / scanMs, 3),
      scan_ms: round(scanMs, 1),
    };
  } finally {
    cleanup();
  }
}

/**
 * `tapedeck inspect` of a sealed session of `mb` megabytes (repair sealed it):
 * without a checkpoint (every line parsed, the whole file hashed; this one
 * leaves a checkpoint), again (nothing appended), and after 1 MB more was
 * appended (the seal then no longer matches, as it should not).
 */
export function runInspectBench(mb = 200) {
  const { dir, cleanup } = tempDir("tapedeck-inspectbench-");
  try {
    recordEvents(spec(dir), [toolResult(0)]);
    const sessionDir = join(dir, ".tapedeck", "claude-sessions", "bench");
    const file = join(sessionDir, "events.jsonl");
    const events = writeLargeLog(file, mb, true);
    recoverSession(sessionDir, { write: true });
    // Repair leaves a checkpoint; the first inspect is timed without one.
    rmSync(join(sessionDir, CHECKPOINT_FILE), { force: true });
    spawnSync("cat", [file], { stdio: "ignore" });
    const inspect = () => {
      const t0 = performance.now();
      const ref = listSessions(dir)[0];
      if (!ref) throw new Error("no session");
      const summary = inspectSession(ref);
      const ms = performance.now() - t0;
      return { ms, summary };
    };
    const first = inspect();
    if (first.summary.status !== "complete" || first.summary.checksums?.ok !== true) {
      throw new Error(`not sealed: ${first.summary.status} ${first.summary.checksums?.reason}`);
    }
    if (first.summary.event_count !== events) throw new Error("inspect miscounted");
    const again = median([inspect().ms, inspect().ms, inspect().ms]);
    const command = inspectCommandMs(dir);
    const fd = openSync(file, "a");
    try {
      for (let i = 0; i < 1200; i += 1) {
        const seq = events + 1 + i;
        writeSync(
          fd,
          `${JSON.stringify({ ...lifecycle(seq), kind: "tool_result", payload: { x: "z".repeat(800) } })}\n`,
        );
      }
    } finally {
      closeSync(fd);
    }
    const appended = inspect();
    if (appended.summary.event_count !== events + 1200) throw new Error("inspect after append miscounted");
    return {
      name: "inspect-sealed",
      mb: round(statSync(file).size / 1e6, 1),
      events,
      without_checkpoint_ms: round(first.ms, 1),
      again_ms: round(again, 1),
      ...command,
      after_1mb_append_ms: round(appended.ms, 1),
    };
  } finally {
    cleanup();
  }
}

/**
 * The whole `tapedeck inspect` command on the sealed session (checkpoint in place): what a user waits for,
 * start-up and the Claude transcript check included, beside `node -e 0` in the same interleaved run. With
 * TAPEDECK_BENCH_BEFORE=<git rev> that revision's CLI is built aside (see cli.bench.ts) and timed alongside.
 */
function inspectCommandMs(project: string, runs = 7) {
  const clis: Record<string, string> = { after: join(process.cwd(), "dist", "cli.js") };
  const before = process.env.TAPEDECK_BENCH_BEFORE;
  const aside = before ? tempDir("tapedeck-inspectbench-before-") : undefined;
  try {
    if (before && aside) clis.before = buildRevision(before, join(aside.dir, "build"));
    const run = (args: string[]) => () => {
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, args, { cwd: project, stdio: ["ignore", "ignore", "pipe"] });
      if (r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stderr}`);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    };
    const candidates: Record<string, () => number> = { node: run(["-e", "0"]) };
    for (const [name, cli] of Object.entries(clis)) {
      candidates[name] = run([cli, "inspect", "--project", project]);
      // The first transcript check of a session counts it in full and leaves its memo: not the sealed case.
      candidates[name]();
    }
    const samples = interleaved(runs, candidates);
    const min = (name: string) => round(Math.min(...samples[name]!), 1);
    const med = (name: string) => round(median(samples[name]!), 1);
    const out: {
      command_node_ms: number;
      command_min_ms: number;
      command_ms: number;
      command_before_min_ms?: number;
      command_before_ms?: number;
    } = { command_node_ms: med("node"), command_min_ms: min("after"), command_ms: med("after") };
    if (clis.before) {
      out.command_before_min_ms = min("before");
      out.command_before_ms = med("before");
    }
    return out;
  } finally {
    aside?.cleanup();
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
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  const results =
    only === "scan"
      ? [runScanBench(mb), runInspectBench(mb)]
      : only === "inspect"
        ? [runInspectBench(mb)]
        : [runAppendBench(), runScanBench(mb), runInspectBench(mb), runListBench()];
  console.log(JSON.stringify(results, null, 2));
}
