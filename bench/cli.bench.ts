// The CLI's start-up as a user feels it: `tapedeck --version`, `--help`,
// `list --json` in a project with no sessions and `status`, each beside
// `node -e 0` in the same interleaved run. With TAPEDECK_BENCH_BEFORE=<git rev>
// the CLI of that revision is built into a temporary directory (git archive, no
// change to the checkout) and measured in the same run, side by side.
// Run: npm run build && npx tsx bench/cli.bench.ts
//      TAPEDECK_BENCH_BEFORE=<rev> npx tsx bench/cli.bench.ts
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeConfig } from "../src/core/archive/config.ts";
import { interleaved, median, percentile, round, tempDir } from "./lib.ts";

const REPO = process.cwd();
const CLI = join(REPO, "dist", "cli.js");

/** The commands measured; each runs in `project`, a directory with tapedeck installed and nothing recorded. */
const COMMANDS: Record<string, string[]> = {
  "--version": ["--version"],
  "--help": ["--help"],
  "list --json": ["list", "--json"],
  status: ["status"],
};

/** Builds `rev`'s CLI in `dir` with this checkout's node_modules; answers its dist/cli.js. */
export function buildRevision(rev: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const archive = spawnSync("git", ["archive", rev], { cwd: REPO, maxBuffer: 1 << 30 });
  if (archive.status !== 0) throw new Error(`git archive ${rev} failed`);
  execFileSync("tar", ["-x", "-C", dir], { input: archive.stdout });
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: dir, stdio: "ignore" });
  return join(dir, "dist", "cli.js");
}

/** Wall time of one run, in ms; a failing command would measure its error path, so it stops the bench. */
function timeIn(cwd: string, args: string[]): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ["ignore", "ignore", "pipe"] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error || r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  return ms;
}

/**
 * CPU time (user + system, perf's task-clock) of one run, in ms: a neighbour's load moves it much less than
 * wall time. Undefined where perf cannot count (macOS, a container without perf events).
 */
export function cpuIn(cwd: string, args: string[], env?: NodeJS.ProcessEnv): number | undefined {
  const r = spawnSync("perf", ["stat", "-x,", "-e", "task-clock", "--", process.execPath, ...args], {
    cwd,
    env: env ?? process.env,
    stdio: ["ignore", "ignore", "pipe"],
    encoding: "utf8",
  });
  if (r.error || r.status !== 0) return undefined;
  const line = r.stderr.split("\n").find((l) => l.includes("task-clock"));
  const ms = Number(line?.split(",")[0]);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

export interface CliRow {
  command: string;
  cli: string;
  min_ms: number;
  median_ms: number;
  p90_ms: number;
  vs_node: number;
  /** median CPU ms and its ratio to `node -e 0`'s, when perf can count */
  cpu_ms?: number;
  cpu_vs_node?: number;
}

export function runCliBench(runs = 31, before = process.env.TAPEDECK_BENCH_BEFORE) {
  const { dir, cleanup } = tempDir("tapedeck-clibench-");
  try {
    const project = join(dir, "project");
    mkdirSync(project);
    writeConfig(project, {
      schema_version: 1,
      providers: { claude: { recording: "on", mode: "capture-only" } },
    });
    const clis: Record<string, string> = { after: CLI };
    if (before) clis.before = buildRevision(before, join(dir, "before"));
    for (const path of Object.values(clis))
      if (!existsSync(path)) throw new Error(`${path}: npm run build first`);
    const candidates: Record<string, () => number> = { "node -e 0": () => timeIn(project, ["-e", "0"]) };
    for (const [command, args] of Object.entries(COMMANDS)) {
      for (const [cli, path] of Object.entries(clis)) {
        candidates[`${cli}|${command}`] = () => timeIn(project, [path, ...args]);
      }
    }
    // One warm-up round: the first spawn of each file pays for the disk cache, not for tapedeck.
    for (const fn of Object.values(candidates)) fn();
    const samples = interleaved(runs, candidates);
    const floor = median(samples["node -e 0"]!);
    // CPU in a second interleaved pass (perf's own start would count in the wall times).
    const cpu: Record<string, number[]> = {};
    if (cpuIn(project, ["-e", "0"]) !== undefined) {
      const cpuCandidates = Object.fromEntries(
        Object.keys(candidates).map((name) => {
          const args = name === "node -e 0" ? ["-e", "0"] : cpuArgs(name);
          return [name, () => cpuIn(project, args) ?? Number.NaN];
        }),
      );
      Object.assign(cpu, interleaved(runs, cpuCandidates));
    }
    function cpuArgs(name: string): string[] {
      const [cli, command] = name.split("|") as [string, string];
      return [clis[cli]!, ...COMMANDS[command]!];
    }
    const cpuFloor = cpu["node -e 0"] ? median(cpu["node -e 0"]) : undefined;
    const rows: CliRow[] = Object.entries(samples)
      .filter(([name]) => name.includes("|"))
      .map(([name, xs]) => {
        const [cli, command] = name.split("|") as [string, string];
        return {
          command,
          cli: cli === "before" ? `before (${before})` : "after",
          min_ms: round(Math.min(...xs)),
          median_ms: round(median(xs)),
          p90_ms: round(percentile(xs, 90)),
          vs_node: round(median(xs) / floor),
          ...(cpuFloor && cpu[name]
            ? { cpu_ms: round(median(cpu[name])), cpu_vs_node: round(median(cpu[name]) / cpuFloor) }
            : {}),
        };
      });
    return { runs, node_ms: round(floor), node_cpu_ms: cpuFloor && round(cpuFloor), rows };
  } finally {
    cleanup();
  }
}

/** The table for docs/benchmarks.md: one row per command, before and after side by side when measured. */
export function cliTable(result: ReturnType<typeof runCliBench>): string {
  const before = result.rows.some((r) => r.cli !== "after");
  const cpu = result.node_cpu_ms ? `, CPU ${result.node_cpu_ms} ms` : "";
  const head = `| CLI start-up (\`node -e 0\`: ${result.node_ms} ms${cpu})`;
  const cell = (r: CliRow) => `${r.min_ms} / ${r.median_ms} | ${r.vs_node} | ${r.cpu_vs_node ?? "–"}`;
  const lines = before
    ? [
        `${head} | before: min / median ms | × \`node -e 0\` | CPU × | after: min / median ms | × \`node -e 0\` | CPU × |`,
        "|---|---|---|---|---|---|---|",
      ]
    : [`${head} | min / median ms | × \`node -e 0\` | CPU × |`, "|---|---|---|---|"];
  for (const command of Object.keys(COMMANDS)) {
    const after = result.rows.find((r) => r.command === command && r.cli === "after")!;
    const old = result.rows.find((r) => r.command === command && r.cli !== "after");
    lines.push(
      old
        ? `| \`tapedeck ${command}\` | ${cell(old)} | ${cell(after)} |`
        : `| \`tapedeck ${command}\` | ${cell(after)} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const result = runCliBench(Number(process.env.TAPEDECK_BENCH_RUNS ?? 31));
  console.log(JSON.stringify(result, null, 2));
  console.log(`\n${cliTable(result)}`);
}
