// A command hook's start-up per event (a recorded PostToolUse, a recorded UserPromptSubmit, a hook with
// recording off) beside `node -e 0`: the hook's code compiled from source (dist/hook-<hash>.cjs run
// directly, as dist/hook.cjs was before the loader) and dist/hook.cjs (the loader: the same code with its V8
// code cache). Interleaved; CPU time (perf's task-clock, user + system) is
// reported beside wall time because on a shared machine wall time moves with the neighbours' load and CPU
// time much less. Without `perf` only wall time is reported.
// Run: npm run build && npx tsx bench/hook-start.bench.ts [runs]
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeConfig } from "../src/core/archive/config.ts";
import { median, round, tempDir } from "./lib.ts";

const DIST = join(process.cwd(), "dist");

function hasPerf(): boolean {
  return spawnSync("perf", ["stat", "-x,", "-e", "task-clock", "true"], { stdio: "ignore" }).status === 0;
}

/** One run: wall ms, and CPU ms when perf is there. */
function once(argv: string[], cwd: string, input: string, env: NodeJS.ProcessEnv, perf: boolean) {
  const cmd = perf ? ["perf", "stat", "-x,", "-e", "task-clock", ...argv] : argv;
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd[0]!, cmd.slice(1), { cwd, input, env, stdio: ["pipe", "ignore", "pipe"] });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(" ")} failed (${r.status}): ${r.stderr}`);
  const cpu = perf ? Number(/^([\d.]+),msec,task-clock/m.exec(String(r.stderr))?.[1]) : Number.NaN;
  return { wall, cpu };
}

export function runHookStartBench(runs = 30) {
  const { dir, cleanup } = tempDir("tapedeck-hookstart-");
  try {
    writeConfig(dir, { schema_version: 1, providers: { claude: { recording: "on", mode: "capture-only" } } });
    const loader = readFileSync(join(DIST, "hook.cjs"), "utf8");
    const code = /"(hook-[0-9a-f]{16}\.cjs)"/.exec(loader)?.[1];
    if (!code) throw new Error("dist/hook.cjs names no hook code: npm run build first");
    const env = { ...process.env, TAPEDECK_HOME: join(dir, "home") };
    const off = join(dir, "off");
    mkdirSync(off);
    writeConfig(off, {
      schema_version: 1,
      providers: { claude: { recording: "off", mode: "capture-only" } },
    });
    const fixture = (name: string, project: string) =>
      JSON.stringify({
        ...JSON.parse(readFileSync(join("test", "fixtures", "claude", name), "utf8")),
        cwd: project,
        transcript_path: join(project, "none.jsonl"),
      });
    const events: Record<string, { payload: string; project: string }> = {
      PostToolUse: { payload: fixture("PostToolUse.json", dir), project: dir },
      UserPromptSubmit: { payload: fixture("UserPromptSubmit.json", dir), project: dir },
      "recording off": { payload: fixture("PostToolUse.json", off), project: off },
    };
    const perf = hasPerf();
    const runners: Record<string, { argv: string[]; event?: string }> = {
      "node -e 0": { argv: [process.execPath, "-e", "0"] },
    };
    for (const event of Object.keys(events)) {
      runners[`${event}: compiled from source`] = {
        argv: [process.execPath, join(DIST, code), "claude"],
        event,
      };
      runners[`${event}: code cache`] = { argv: [process.execPath, join(DIST, "hook.cjs"), "claude"], event };
    }
    const samples: Record<string, { wall: number[]; cpu: number[] }> = {};
    for (const name of Object.keys(runners)) samples[name] = { wall: [], cpu: [] };
    let n = 0;
    for (let i = 0; i <= runs; i += 1) {
      for (const [name, { argv, event }] of Object.entries(runners)) {
        const e = event ? events[event]! : { payload: "", project: dir };
        // Fresh ids each run, so that deduplication does not skip the write.
        const input = e.payload
          .replace(/"tool_use_id":"[^"]+"/, `"tool_use_id":"t${n++}"`)
          .replace(/"prompt_id":"[^"]+"/, `"prompt_id":"p${n++}"`);
        const r = once(argv, e.project, input, { ...env, CLAUDE_PROJECT_DIR: e.project }, perf);
        if (i === 0) continue; // warm-up round: the disk cache, not the hook
        samples[name]!.wall.push(r.wall);
        samples[name]!.cpu.push(r.cpu);
      }
    }
    const floor = samples["node -e 0"]!;
    const rows = Object.entries(samples).map(([name, s]) => ({
      name,
      wall_min_ms: round(Math.min(...s.wall)),
      wall_median_ms: round(median(s.wall)),
      wall_vs_node: round(median(s.wall) / median(floor.wall)),
      cpu_min_ms: perf ? round(Math.min(...s.cpu)) : null,
      cpu_median_ms: perf ? round(median(s.cpu)) : null,
      cpu_vs_node: perf ? round(median(s.cpu) / median(floor.cpu)) : null,
    }));
    return { name: "hook-start", runs, rows };
  } finally {
    cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const result = runHookStartBench(Number(process.argv[2] ?? 30));
  console.log(JSON.stringify(result, null, 2));
  console.log("\n| command hook start-up | wall median ms | × `node -e 0` | CPU median ms | × `node -e 0` |");
  console.log("|---|---|---|---|---|");
  for (const r of result.rows) {
    console.log(
      `| ${r.name} | ${r.wall_median_ms} | ${r.wall_vs_node} | ${r.cpu_median_ms ?? "—"} | ${r.cpu_vs_node ?? "—"} |`,
    );
  }
}
