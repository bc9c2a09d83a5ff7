// `tapedeck usage` over 10,000 generated sessions (Claude, Codex and Gemini, over 90 days, each with tool calls
// and outputs between its responses' usage) beside `node -e 0` in the same interleaved run: cold (no usage
// cache: every events.jsonl is read), warm (the cache, nothing changed: no events.jsonl is opened) and warm
// after 20 sessions grew (only their new lines are read); beside `tapedeck list` over the same sessions and
// `tapedeck --version`. Wall time, and CPU time (perf) in a second pass: on a
// shared machine the CPU time moves much less.
// Run: npm run build && npx tsx bench/usage.bench.ts
//      TAPEDECK_BENCH_SESSIONS=10000 TAPEDECK_BENCH_RUNS=7 npx tsx bench/usage.bench.ts
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeConfig } from "../src/core/archive/config.ts";
import { cpuIn } from "./cli.bench.ts";
import { interleaved, median, percentile, round, tempDir } from "./lib.ts";

const CLI = join(process.cwd(), "dist", "cli.js");
const PROVIDERS = [
  { name: "claude", weight: 6, model: "claude-sonnet-4-5-20250929", source: "claude-transcript" },
  { name: "codex", weight: 3, model: "gpt-5", source: "codex-transcript" },
  { name: "gemini", weight: 1, model: "gemini-2.5-pro", source: "gemini-hook" },
] as const;

function envelope(
  seq: number,
  at: number,
  kind: string,
  sid: string,
  provider: string,
  extra: object,
): string {
  return `${JSON.stringify({
    schema_version: 1,
    sequence: seq,
    event_id: `${kind}-${sid}-${seq}`,
    timestamp: new Date(at).toISOString(),
    kind,
    provider,
    session_id: sid,
    payload: {},
    redactions: [],
    truncations: [],
    omitted: [],
    ...extra,
  })}\n`;
}

/** One session: a prompt, then 10 responses over 40 minutes, each after a tool call and a 1 KB output. */
function sessionLines(i: number, provider: (typeof PROVIDERS)[number], start: number, sid: string): string {
  let seq = 0;
  let t = start;
  const out = [envelope(++seq, t, "user_prompt", sid, provider.name, { payload: { prompt: `task ${i}` } })];
  for (let r = 0; r < 10; r += 1) {
    t += 4 * 60_000;
    const payload = { tool_name: "Bash", tool_input: { command: "npm test" }, tool_use_id: `t${r}` };
    out.push(envelope(++seq, t, "tool_call", sid, provider.name, { payload }));
    out.push(
      envelope(++seq, t + 1000, "tool_result", sid, provider.name, {
        payload: { ...payload, tool_response: "x".repeat(1024) },
      }),
    );
    out.push(
      envelope(++seq, t + 2000, "turn_usage", sid, provider.name, {
        usage: {
          source: provider.source,
          model: provider.model,
          message_id: `m-${i}-${r}`,
          input_tokens: 1000 + r,
          output_tokens: 100 + r,
          cache_read_input_tokens: 5000,
          cache_creation_input_tokens: provider.name === "claude" ? 200 : 0,
        },
      }),
    );
  }
  return out.join("");
}

export function generate(project: string, sessions: number): string[] {
  const dirs: string[] = [];
  const wheel = PROVIDERS.flatMap((p) => Array.from({ length: p.weight }, () => p));
  const end = Date.parse("2026-12-01T00:00:00.000Z");
  for (let i = 0; i < sessions; i += 1) {
    const provider = wheel[i % wheel.length]!;
    const id = `s-${i}`;
    const sid = `${provider.name}:${id}`;
    const dir = join(project, ".tapedeck", `${provider.name}-sessions`, id);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Spread over 90 days, at any minute (many sessions cross a midnight).
    const start = end - ((i * 7919) % (90 * 24 * 60)) * 60_000;
    const events = sessionLines(i, provider, start, sid);
    writeFileSync(join(dir, "events.jsonl"), events, { mode: 0o600 });
    const manifest = {
      schema_version: 1,
      session_id: sid,
      provider: provider.name,
      provider_session_id: id,
      started_at: new Date(start).toISOString(),
      ended_at: null,
      status: "complete",
      run_type: "recorded",
      title: `task ${i}`,
      event_count: 31,
      byte_count: Buffer.byteLength(events),
    };
    writeFileSync(join(dir, "manifest.json"), JSON.stringify(manifest), { mode: 0o600 });
    dirs.push(dir);
  }
  return dirs;
}

function timeIn(cwd: string, args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error || r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return ms;
}

/** Wall time, or CPU time (perf's task-clock; NaN where perf cannot count) in the second pass. */
function measure(cwd: string, args: string[], cpu: boolean): number {
  return cpu ? (cpuIn(cwd, args) ?? Number.NaN) : timeIn(cwd, args);
}

export function runUsageBench(
  sessions = Number(process.env.TAPEDECK_BENCH_SESSIONS ?? 10_000),
  runs = Number(process.env.TAPEDECK_BENCH_RUNS ?? 7),
) {
  const { dir, cleanup } = tempDir("tapedeck-usagebench-");
  try {
    const project = join(dir, "project");
    mkdirSync(project);
    writeConfig(project, { schema_version: 1, providers: {} });
    const t0 = Date.now();
    const dirs = generate(project, sessions);
    const generatedMs = Date.now() - t0;
    const cache = join(project, ".tapedeck", "usage-cache.bin");
    const usage = (kind: string) => [CLI, "usage", kind, "--timezone", "Europe/Paris"];
    let grown = 0;
    const candidates = (cpu: boolean): Record<string, () => number> => ({
      "node -e 0": () => measure(project, ["-e", "0"], cpu),
      "usage daily, cold (no cache)": () => {
        rmSync(cache, { force: true });
        return measure(project, usage("daily"), cpu);
      },
      "usage daily, warm": () => measure(project, usage("daily"), cpu),
      // The same 10,000 sessions listed from their manifests: the reader every user already runs.
      "list (10,000 manifests)": () => measure(project, [CLI, "list"], cpu),
      "--version (the CLI's start)": () => measure(project, [CLI, "--version"], cpu),
      "usage session --json, warm": () => measure(project, [...usage("session"), "--json"], cpu),
      "usage daily, warm, 20 sessions grew": () => {
        for (let k = 0; k < 20; k += 1) {
          const d = dirs[(grown * 20 + k) % dirs.length]!;
          appendFileSync(
            join(d, "events.jsonl"),
            `${JSON.stringify({ sequence: 1000 + grown, event_id: `g${grown}-${k}`, kind: "turn_usage", timestamp: "2026-12-01T10:00:00.000Z", usage: { source: "claude-transcript", input_tokens: 1 } })}\n`,
          );
        }
        grown += 1;
        return measure(project, usage("daily"), cpu);
      },
    });
    for (const fn of Object.values(candidates(false))) fn();
    const wall = interleaved(runs, candidates(false));
    const cpu = interleaved(runs, candidates(true));
    const floor = median(wall["node -e 0"]!);
    const cpuFloor = median(cpu["node -e 0"]!);
    const rows = Object.entries(wall)
      .filter(([name]) => name !== "node -e 0")
      .map(([command, xs]) => ({
        command,
        median_ms: round(median(xs)),
        p90_ms: round(percentile(xs, 90)),
        vs_node: round(median(xs) / floor),
        cpu_ms: round(median(cpu[command]!)),
        cpu_vs_node: round(median(cpu[command]!) / cpuFloor),
      }));
    return {
      sessions,
      runs,
      generated_ms: generatedMs,
      cache_bytes: statSync(cache).size,
      events_bytes: dirs.reduce((n, d) => n + statSync(join(d, "events.jsonl")).size, 0),
      node_ms: round(floor),
      node_cpu_ms: round(cpuFloor),
      rows,
    };
  } finally {
    cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(runUsageBench(), null, 2));
}
