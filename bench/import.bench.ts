// `tapedeck import claude` on one generated Claude Code transcript of TAPEDECK_BENCH_IMPORT_MB (default 1024)
// megabytes: MB/s and the peak RSS of the whole command (spawn to exit), beside `wc -l` on the same file, and
// a second import of the unchanged file (what a user pays to learn there is nothing new).
//
// The transcript is the captured session (test/fixtures/claude/transcript.sample.jsonl: attachments, request
// blobs, prompt snapshots, an assistant message in three block records, a Bash call and its result) repeated,
// every id made unique per turn, the tool's output grown to 8 KB of varied text: most bytes are the records
// Claude writes that become no event, as in real transcripts.
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { median, round, tempDir } from "./lib.ts";

const FIXTURE = join(import.meta.dirname, "..", "test", "fixtures", "claude", "transcript.sample.jsonl");
const CLI = join(import.meta.dirname, "..", "dist", "cli.js");
const SESSION = "2b78a515-1a4e-4949-93a8-4a58deaec546";
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const MOCK_ID = /\b(msg|req|toolu)_mock[a-z0-9]+/g;
const WORDS =
  "the quick brown fox jumps over a lazy dog while tests run and builds pass in /src/core/store.ts".split(
    " ",
  );

function output(turn: number): string {
  const words: string[] = [];
  for (let i = 0, length = 0; length < 8192; i += 1) {
    const word = WORDS[(turn * 7 + i * 13) % WORDS.length]!;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(" ");
}

export async function writeTranscript(path: string, mb: number, cwd: string): Promise<number> {
  const template = readFileSync(FIXTURE, "utf8").split("/home/user/project").join(cwd);
  const out = createWriteStream(path);
  let bytes = 0;
  let turns = 0;
  while (bytes < mb * 1024 * 1024) {
    const n = turns;
    const turn = template
      .replace(UUID, (u) => (u === SESSION ? u : `${u.slice(0, 24)}${n.toString(16).padStart(12, "0")}`))
      .replace(MOCK_ID, (id) => `${id}_${n}`)
      .replace('"stdout":"hello"', `"stdout":"${output(n)}"`);
    bytes += Buffer.byteLength(turn);
    turns += 1;
    if (!out.write(turn)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((resolve) => out.end(resolve));
  return turns;
}

/** The import command as a user runs it, with its peak RSS reported by the process itself at exit. */
function runImport(
  home: string,
  project: string,
): { ms: number; cpuMs: number; rssMb: number; result: Record<string, number> } {
  const wrapper = `process.on("exit",()=>{const u=process.cpuUsage();require("fs").writeSync(2,"\\nMAXRSS "+process.resourceUsage().maxRSS+" CPU "+(u.user+u.system)+"\\n")});process.argv=[process.argv[0],${JSON.stringify(CLI)},...process.argv.slice(1)];import(${JSON.stringify(CLI)});`;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["-e", wrapper, "import", "claude", "--project", project, "--json"], {
    env: { PATH: process.env.PATH ?? "", HOME: home, TAPEDECK_HOME: join(home, ".tapedeck") },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`import failed: ${r.stderr}`);
  const m = /MAXRSS (\d+) CPU (\d+)/.exec(r.stderr);
  return {
    ms,
    cpuMs: m ? Number(m[2]) / 1000 : Number.NaN,
    rssMb: m ? Number(m[1]) / 1024 : Number.NaN,
    result: JSON.parse(r.stdout),
  };
}

export async function runImportBench(mb = Number(process.env.TAPEDECK_BENCH_IMPORT_MB ?? 1024)) {
  const { dir, cleanup } = tempDir("tapedeck-importbench-");
  try {
    const home = join(dir, "home");
    const project = join(dir, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    const slug = join(home, ".claude", "projects", project.replace(/[^a-zA-Z0-9]/g, "-"));
    mkdirSync(slug, { recursive: true });
    const file = join(slug, `${SESSION}.jsonl`);
    const turns = await writeTranscript(file, mb, project);
    const bytes = statSync(file).size;
    spawnSync("cat", [file], { stdio: "ignore" });
    const wc = [0, 1, 2].map(() => {
      const t0 = performance.now();
      spawnSync("wc", ["-l", file], { stdio: "ignore" });
      return performance.now() - t0;
    });
    const first = runImport(home, project);
    const again = runImport(home, project);
    const events = first.result.events ?? 0;
    const archive = statSync(join(project, ".tapedeck", "claude-sessions", SESSION, "events.jsonl")).size;
    const wcMs = median(wc);
    return {
      name: "import",
      mb: round(bytes / 1e6, 1),
      turns,
      events,
      archive_mb: round(archive / 1e6, 1),
      import_ms: round(first.ms, 0),
      import_mb_per_s: round(bytes / 1e6 / (first.ms / 1000), 1),
      // Per CPU second: what an idle machine gives; wall time on a shared one waits for a core.
      import_cpu_ms: round(first.cpuMs, 0),
      import_mb_per_cpu_s: round(bytes / 1e6 / (first.cpuMs / 1000), 1),
      peak_rss_mib: round(first.rssMb, 1),
      wc_l_mb_per_s: round(bytes / 1e6 / (wcMs / 1000), 1),
      import_vs_wc: round(first.ms / wcMs, 1),
      again_ms: round(again.ms, 0),
      again_events: again.result.events ?? 0,
      again_peak_rss_mib: round(again.rssMb, 1),
    };
  } finally {
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runImportBench(), null, 2));
}
