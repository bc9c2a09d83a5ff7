// The events index: build throughput beside the recovery scan of the same
// archive, the longest slice an idle update holds the hook server's event
// loop, and search latency over 1,000,000 indexed events beside `grep -c` on
// the same events.jsonl.
// Run: npx tsx bench/memory-index.bench.ts [--mb 200] [--events 1000000] [--only build|search]
import { spawnSync } from "node:child_process";
import { appendFileSync, closeSync, mkdirSync, openSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { DEFAULT_LIMITS } from "../src/core/archive/bound.ts";
import { recoverSession } from "../src/core/archive/recovery.ts";
import { recordEvents } from "../src/core/archive/session-store.ts";
import { indexPath, updateIndex, updateIndexSteps } from "../src/memory/index/index.ts";
import { parseQuery } from "../src/memory/index/query.ts";
import { searchDatabase } from "../src/memory/index/search.ts";
import { openDatabase } from "../src/memory/index/sqlite.ts";
import { interleaved, median, percentile, round, tempDir, timeCommand } from "./lib.ts";

/** CPU milliseconds of this process (user + system): on a shared, loaded machine, steadier than wall time. */
function cpuMs(): number {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
}

/** A deterministic generator, so every run indexes the same text. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ru",
  "sa",
  "ti",
  "vo",
  "ze",
  "pa",
  "qu",
  "di",
  "fo",
  "ga",
  "hu",
  "ji",
];
/** A vocabulary whose word frequencies fall off like a language's (Zipf): common words and rare ones. */
function vocabulary(n: number, next: () => number): string[] {
  const words = new Set<string>();
  while (words.size < n) {
    let w = "";
    const len = 2 + Math.floor(next() * 3);
    for (let i = 0; i < len; i += 1) w += SYLLABLES[Math.floor(next() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

function zipfPicker(words: string[], next: () => number): () => string {
  // Inverse-CDF of 1/rank over the vocabulary, precomputed.
  const cdf: number[] = [];
  let total = 0;
  for (let r = 1; r <= words.length; r += 1) {
    total += 1 / r;
    cdf.push(total);
  }
  return () => {
    const x = next() * total;
    let lo = 0;
    let hi = cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
}

interface Corpus {
  words: string[];
  sentence: (n: number) => string;
  path: () => string;
}

function corpus(seed: number): Corpus {
  const next = rng(seed);
  const words = vocabulary(20_000, next);
  const pick = zipfPicker(words, next);
  return {
    words,
    sentence: (n) => Array.from({ length: n }, pick).join(" "),
    path: () => `src/${pick()}/${pick()}_${pick()}.ts`,
  };
}

/** One envelope; `small` events carry a line of text, the others the sizes real prompts, answers and tools have. */
function envelope(seq: number, c: Corpus, small: boolean): string {
  const kinds = ["user_prompt", "assistant_message", "tool_call", "tool_result"] as const;
  const kind = kinds[seq % 4]!;
  const words = small ? 8 : { user_prompt: 30, assistant_message: 120, tool_call: 6, tool_result: 90 }[kind];
  const payload =
    kind === "user_prompt"
      ? { prompt: c.sentence(words) }
      : kind === "assistant_message"
        ? { text: c.sentence(words) }
        : kind === "tool_call"
          ? {
              tool_name: "Bash",
              tool_input: { command: `npm test -- ${c.path()} --reporter=${c.sentence(1)}` },
            }
          : { tool_name: "Read", tool_input: { file_path: c.path() }, tool_response: c.sentence(words) };
  return `${JSON.stringify({
    schema_version: 1,
    sequence: seq,
    event_id: `e${seq}`,
    timestamp: new Date(Date.UTC(2026, 10, 1) + seq * 1000).toISOString(),
    kind,
    provider: "claude",
    session_id: "claude:bench",
    payload,
    redactions: [],
    truncations: [],
    omitted: [],
  })}\n`;
}

/** A project with one recorded session whose events.jsonl is replaced by `bytes` MB or `events` synthetic events. */
export function archive(
  root: string,
  limit: { mb?: number; events?: number },
  small: boolean,
): { file: string; events: number; dir: string } {
  recordEvents(
    {
      projectRoot: root,
      sessionRoot: join(root, ".tapedeck", "claude-sessions"),
      identity: {
        provider: "claude",
        provider_session_id: "bench",
        session_id: "claude:bench",
        identity_source: "provider",
      },
      mode: "capture-only",
      capabilities: [],
      agentPid: null,
      limits: DEFAULT_LIMITS,
    },
    [{ kind: "session_start", event_id: "start", payload: {} }],
  );
  const dir = join(root, ".tapedeck", "claude-sessions", "bench");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "events.jsonl");
  const c = corpus(7);
  const fd = openSync(file, "w", 0o600);
  let written = 0;
  let seq = 0;
  const chunk: string[] = [];
  try {
    while (
      (limit.mb === undefined || written < limit.mb * 1e6) &&
      (limit.events === undefined || seq < limit.events)
    ) {
      seq += 1;
      const line = envelope(seq, c, small);
      chunk.push(line);
      written += line.length;
      if (chunk.length >= 5000) {
        writeSync(fd, chunk.join(""));
        chunk.length = 0;
      }
    }
    if (chunk.length) writeSync(fd, chunk.join(""));
  } finally {
    closeSync(fd);
  }
  return { file, events: seq, dir };
}

/** Runs the update as the hook server does, one slice at a time, timing each slice. */
function timedBuild(root: string): {
  ms: number;
  cpu: number;
  slices: number[];
  rssMb: number;
  rssBeforeMb: number;
} {
  const slices: number[] = [];
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  let rss = before;
  const steps = updateIndexSteps(root);
  const c0 = cpuMs();
  const t0 = performance.now();
  for (;;) {
    const s0 = performance.now();
    const r = steps.next();
    slices.push(performance.now() - s0);
    rss = Math.max(rss, process.memoryUsage().rss);
    if (r.done) break;
  }
  return {
    ms: performance.now() - t0,
    cpu: cpuMs() - c0,
    slices,
    rssMb: rss / 1e6,
    rssBeforeMb: before / 1e6,
  };
}

export function runIndexBuildBench(mb = 200) {
  const { dir: root, cleanup } = tempDir("tapedeck-indexbench-");
  try {
    const { file, events, dir } = archive(root, { mb }, false);
    const bytes = statSync(file).size;
    spawnSync("cat", [file], { stdio: "ignore" });
    const s0 = performance.now();
    const sc0 = cpuMs();
    const scan = recoverSession(dir, { write: false, checkpoint: false });
    const scanCpu = cpuMs() - sc0;
    const scanMs = performance.now() - s0;
    if (scan.report.valid_events !== events) throw new Error("scan miscounted");
    const build = timedBuild(root);
    const indexBytes = statSync(indexPath(root)).size;
    // Growth: 1,000 events appended are indexed from the offset the build reached, not from byte 0.
    const c = corpus(11);
    appendFileSync(file, Array.from({ length: 1000 }, (_, i) => envelope(events + 1 + i, c, false)).join(""));
    const g0 = performance.now();
    const grown = updateIndex(root);
    const growMs = performance.now() - g0;
    if (grown.events !== 1000 || grown.reindexed !== 0) throw new Error("incremental update miscounted");
    // What `search` pays before every query when nothing was recorded since.
    const n0 = performance.now();
    if (updateIndex(root).events !== 0) throw new Error("no-op update indexed something");
    const noopMs = performance.now() - n0;
    // The command as a user runs it, index already current: start-up, the update check, one query, the output.
    const cli = join(process.cwd(), "dist", "cli.js");
    const word = corpus(7).words[3]!;
    // Interleaved with `tapedeck --version` (the CLI's start-up alone) so that the machine's load hits both.
    const runs = interleaved(7, {
      version: () => timeCommand(process.execPath, [cli, "--version"]),
      search: () => timeCommand(process.execPath, [cli, "search", word, "--project", root]),
    });
    return {
      name: "index build",
      mb: round(bytes / 1e6, 1),
      events,
      index_mb_per_s: round(bytes / 1e6 / (build.ms / 1000), 2),
      scan_mb_per_s: round(bytes / 1e6 / (scanMs / 1000), 1),
      index_vs_scan: round(scanMs / build.ms, 3),
      index_cpu_mb_per_s: round(bytes / 1e6 / (build.cpu / 1000), 2),
      scan_cpu_mb_per_s: round(bytes / 1e6 / (scanCpu / 1000), 1),
      build_s: round(build.ms / 1000, 1),
      index_mb: round(indexBytes / 1e6, 1),
      index_vs_archive: round(indexBytes / bytes, 2),
      // The archive is streamed: the process's peak RSS while building, not the archive's size.
      build_peak_rss_mb: round(build.rssMb, 0),
      rss_before_build_mb: round(build.rssBeforeMb, 0),
      slice_p50_ms: round(median(build.slices), 2),
      slice_p99_ms: round(percentile(build.slices, 99), 2),
      slice_max_ms: round(Math.max(...build.slices), 1),
      append_1000_events_ms: round(growMs, 1),
      append_bytes_read: grown.bytes,
      noop_update_ms: round(noopMs, 1),
      cli_search_ms: round(median(runs.search!), 1),
      cli_version_ms: round(median(runs.version!), 1),
    };
  } finally {
    cleanup();
  }
}

export function runSearchBench(events = 1_000_000, queries = 200) {
  const { dir: root, cleanup } = tempDir("tapedeck-searchbench-");
  try {
    const { file } = archive(root, { events }, true);
    const bytes = statSync(file).size;
    const build = timedBuild(root);
    const c = corpus(7);
    const next = rng(99);
    const at = (lo: number, hi: number) => c.words[lo + Math.floor(next() * (hi - lo))]!;
    // Common, middling and rare words; two words; a phrase; a prefix; an identifier fragment (trigram).
    const shapes = [
      () => at(0, 20),
      () => at(100, 2000),
      () => at(5000, 20000),
      () => `${at(0, 200)} ${at(0, 200)}`,
      () => `"${at(0, 50)} ${at(0, 50)}"`,
      () => `${at(0, 500).slice(0, 4)}*`,
      () => `${at(0, 300)}_${at(0, 300)}`.slice(0, 9),
      () => `${at(0, 100)} OR ${at(5000, 20000)}`,
    ];
    const texts = Array.from({ length: queries }, (_, i) => shapes[i % shapes.length]!());
    const db = openDatabase(indexPath(root), { readonly: true });
    const times: number[] = [];
    const cpus: number[] = [];
    let hits = 0;
    try {
      for (const t of texts) {
        const t0 = performance.now();
        const c0 = cpuMs();
        hits += searchDatabase(db, root, parseQuery(t), {}, 20).length;
        cpus.push(cpuMs() - c0);
        times.push(performance.now() - t0);
      }
    } finally {
      db.close();
    }
    const grepTimes: number[] = [];
    for (const t of texts.slice(0, 16)) {
      const word = t.replace(/["*]|OR.*/g, "").split(" ")[0]!;
      const t0 = performance.now();
      // stdout piped and read: with its output on /dev/null, GNU grep stops at the first match.
      const r = spawnSync("grep", ["-c", "-i", "-F", word, file], { encoding: "utf8" });
      if (r.status === 2 || !/^\d+/.test(r.stdout)) throw new Error(`grep failed for ${word}`);
      grepTimes.push(performance.now() - t0);
    }
    return {
      name: "search",
      events,
      archive_mb: round(bytes / 1e6, 1),
      build_s: round(build.ms / 1000, 1),
      queries,
      hits_per_query: round(hits / queries, 1),
      p50_ms: round(median(times), 2),
      p99_ms: round(percentile(times, 99), 2),
      p50_cpu_ms: round(median(cpus), 2),
      p99_cpu_ms: round(percentile(cpus, 99), 2),
      grep_c_p50_ms: round(median(grepTimes), 1),
      grep_vs_search_p50: round(median(grepTimes) / median(times), 1),
    };
  } finally {
    cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const arg = (name: string, dflt: number) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : dflt;
  };
  const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
  if (only !== "search") console.log(JSON.stringify(runIndexBuildBench(arg("--mb", 200)), null, 2));
  if (only !== "build") console.log(JSON.stringify(runSearchBench(arg("--events", 1_000_000)), null, 2));
}
