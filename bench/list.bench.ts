// `tapedeck list` over 3,000 recorded sessions (one real session recorded
// through the store, its directory copied with fresh ids and start times), and
// `show` of one of them, beside `node -e 0` in the same interleaved run. With
// TAPEDECK_BENCH_BEFORE=<git rev> that revision's CLI is built aside (see
// cli.bench.ts) and listed too, so the cost of the title, turn, error and
// token columns reads as a ratio.
// Run: npm run build && npx tsx bench/list.bench.ts
//      TAPEDECK_BENCH_SESSIONS=3000 TAPEDECK_BENCH_BEFORE=<rev> npx tsx bench/list.bench.ts
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_LIMITS } from "../src/core/archive/bound.ts";
import { writeConfig } from "../src/core/archive/config.ts";
import type { NormalizedEvent } from "../src/core/archive/event.ts";
import { recordEvents } from "../src/core/archive/session-store.ts";
import { buildRevision } from "./cli.bench.ts";
import { interleaved, median, percentile, round, tempDir } from "./lib.ts";

const CLI = join(process.cwd(), "dist", "cli.js");

function oneSession(project: string): string {
  let t = Date.parse("2026-12-01T10:00:00.000Z");
  const ev = (kind: NormalizedEvent["kind"], id: string, payload: Record<string, unknown>, extra = {}) => {
    t += 500;
    return { kind, event_id: id, payload, timestamp: new Date(t).toISOString(), ...extra } as NormalizedEvent;
  };
  const out = recordEvents(
    {
      projectRoot: project,
      sessionRoot: join(project, ".tapedeck", "claude-sessions"),
      identity: {
        provider: "claude",
        provider_session_id: "s-0",
        session_id: "claude:s-0",
        identity_source: "provider",
      },
      mode: "capture-only",
      capabilities: [],
      agentPid: null,
      limits: DEFAULT_LIMITS,
    },
    [
      ev("session_start", "s", { source: "startup" }),
      ev("user_prompt", "p", { prompt: "fix the failing test in src/core and explain the cause" }),
      ev("tool_call", "c", { tool_name: "Bash", tool_input: { command: "npm test" }, tool_use_id: "u" }),
      ev("tool_error", "r", { tool_name: "Bash", tool_use_id: "u", error: "Exit code 1" }),
      ev("assistant_message", "a", { text: "Fixed." }),
      ev(
        "turn_usage",
        "u1",
        {},
        { usage: { source: "claude-transcript", input_tokens: 1200, output_tokens: 80 } },
      ),
      ev("session_end", "e", { reason: "other" }, { terminal: true }),
    ],
  );
  return out.sessionDir;
}

function timeIn(cwd: string, args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error || r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return ms;
}

export function runListBench(
  sessions = Number(process.env.TAPEDECK_BENCH_SESSIONS ?? 3000),
  runs = 11,
  before = process.env.TAPEDECK_BENCH_BEFORE,
) {
  const { dir, cleanup } = tempDir("tapedeck-listbench-");
  try {
    const project = join(dir, "project");
    mkdirSync(project);
    writeConfig(project, {
      schema_version: 1,
      providers: { claude: { recording: "on", mode: "capture-only" } },
    });
    const first = oneSession(project);
    const manifest = JSON.parse(readFileSync(join(first, "manifest.json"), "utf8"));
    for (let i = 1; i < sessions; i += 1) {
      const id = `s-${i}`;
      const copy = join(project, ".tapedeck", "claude-sessions", id);
      cpSync(first, copy, { recursive: true });
      const started = new Date(Date.parse(manifest.started_at) - i * 60_000).toISOString();
      const m = {
        ...manifest,
        session_id: `claude:${id}`,
        provider_session_id: id,
        session_dir: id,
        started_at: started,
      };
      writeFileSync(join(copy, "manifest.json"), JSON.stringify(m), { mode: 0o600 });
    }
    const clis: Record<string, string> = { after: CLI };
    if (before) clis.before = buildRevision(before, join(dir, "before"));
    const candidates: Record<string, () => number> = { "node -e 0": () => timeIn(project, ["-e", "0"]) };
    for (const [name, path] of Object.entries(clis)) {
      candidates[`${name}|list`] = () => timeIn(project, [path, "list"]);
      candidates[`${name}|list --json`] = () => timeIn(project, [path, "list", "--json"]);
    }
    candidates["after|show s-0"] = () => timeIn(project, [CLI, "show", "s-0"]);
    for (const fn of Object.values(candidates)) fn();
    const samples = interleaved(runs, candidates);
    const floor = median(samples["node -e 0"]!);
    const rows = Object.entries(samples)
      .filter(([name]) => name.includes("|"))
      .map(([name, xs]) => {
        const [cli, command] = name.split("|") as [string, string];
        return {
          command,
          cli: cli === "before" ? `before (${before})` : "after",
          median_ms: round(median(xs)),
          p90_ms: round(percentile(xs, 90)),
          vs_node: round(median(xs) / floor),
        };
      });
    return { sessions, runs, node_ms: round(floor), rows };
  } finally {
    cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(runListBench(), null, 2));
}
