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
import { writeConfig } from "../src/core/config.ts";
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

export interface CliRow {
  command: string;
  cli: string;
  median_ms: number;
  p90_ms: number;
  vs_node: number;
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
    const rows: CliRow[] = Object.entries(samples)
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
    return { runs, node_ms: round(floor), rows };
  } finally {
    cleanup();
  }
}

/** The table for docs/benchmarks.md: one row per command, before and after side by side when measured. */
export function cliTable(result: ReturnType<typeof runCliBench>): string {
  const before = result.rows.some((r) => r.cli !== "after");
  const lines = before
    ? [
        "| CLI start-up (`node -e 0`: " +
          `${result.node_ms} ms) | before, median ms | before, × \`node -e 0\` | after, median ms | after, × \`node -e 0\` |`,
        "|---|---|---|---|---|",
      ]
    : [
        `| CLI start-up (\`node -e 0\`: ${result.node_ms} ms) | median ms | p90 ms | × \`node -e 0\` |`,
        "|---|---|---|---|",
      ];
  for (const command of Object.keys(COMMANDS)) {
    const after = result.rows.find((r) => r.command === command && r.cli === "after")!;
    const old = result.rows.find((r) => r.command === command && r.cli !== "after");
    lines.push(
      old
        ? `| \`tapedeck ${command}\` | ${old.median_ms} | ${old.vs_node} | ${after.median_ms} | ${after.vs_node} |`
        : `| \`tapedeck ${command}\` | ${after.median_ms} | ${after.p90_ms} | ${after.vs_node} |`,
    );
  }
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const result = runCliBench(Number(process.env.TAPEDECK_BENCH_RUNS ?? 31));
  console.log(JSON.stringify(result, null, 2));
  console.log(`\n${cliTable(result)}`);
}
