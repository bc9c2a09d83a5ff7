// Promotion and memory search: promote throughput (events/s and MB/s of events.jsonl, the plan pass and the
// write pass apart) on a synthetic session, then search latency over the 100,000 items it stored, beside
// `grep -c` on the same item text (the store exported as JSONL).
// Run: npx tsx bench/memory-promote.bench.ts [--items 100000]
import { spawnSync } from "node:child_process";
import { closeSync, openSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { findSession } from "../src/core/read/sessions.ts";
import { exportMemory } from "../src/memory/store/export.ts";
import { parseKinds, planPromotion, type Selection, writePromotion } from "../src/memory/store/promote.ts";
import { openMemory } from "../src/memory/store/store.ts";
import { median, percentile, round, tempDir } from "./lib.ts";
import { archive } from "./memory-index.bench.ts";

/**
 * The synthetic session cycles prompt, answer, tool call, tool result; its calls and results name no
 * tool_use_id and different tools, so none pair: one item per event.
 */
const EVENTS_PER_ITEM = 1;

const SELECTION: Selection = { kinds: parseKinds(undefined), excludeEvents: [], excludeFields: [] };

export function runPromoteBench(items = 100_000, queries = 200) {
  const { dir: root, cleanup } = tempDir("tapedeck-promotebench-");
  try {
    const { file, events } = archive(root, { events: Math.ceil(items * EVENTS_PER_ITEM) }, false);
    const bytes = statSync(file).size;
    spawnSync("cat", [file], { stdio: "ignore" });
    const ref = findSession(root, "last");
    const p0 = performance.now();
    const plan = planPromotion(ref, SELECTION, { rules: undefined });
    const planMs = performance.now() - p0;
    const store = openMemory(root)!;
    const w0 = performance.now();
    const result = writePromotion(store, ref, SELECTION, plan, { rules: undefined });
    const writeMs = performance.now() - w0;
    const again0 = performance.now();
    const again = writePromotion(store, ref, SELECTION, plan, { rules: undefined });
    const againMs = performance.now() - again0;
    if (result.created.length !== plan.items || again.created.length !== 0)
      throw new Error("promotion miscounted");
    const stored = store.count();
    const search = searchTimes(store, queries);
    const text = join(root, "memory.jsonl");
    const fd = openSync(text, "w", 0o600);
    try {
      exportMemory(store, "jsonl", (t) => writeSync(fd, t));
    } finally {
      closeSync(fd);
    }
    store.close();
    const grep = grepTimes(text, search.texts.slice(0, 16));
    const totalS = (planMs + writeMs) / 1000;
    return {
      name: "promote",
      events,
      archive_mb: round(bytes / 1e6, 1),
      items: stored,
      plan_s: round(planMs / 1000, 2),
      write_s: round(writeMs / 1000, 2),
      events_per_s: Math.round(events / totalS),
      mb_per_s: round(bytes / 1e6 / totalS, 2),
      plan_mb_per_s: round(bytes / 1e6 / (planMs / 1000), 1),
      again_s: round(againMs / 1000, 2),
      memory_mb: round(statSync(join(root, ".tapedeck", "memory.sqlite")).size / 1e6, 1),
      export_mb: round(statSync(text).size / 1e6, 1),
      queries,
      hits_per_query: search.hits,
      search_p50_ms: round(median(search.times), 2),
      search_p99_ms: round(percentile(search.times, 99), 2),
      search_p50_ms_by_shape: search.shapeP50,
      grep_c_p50_ms: round(median(grep), 1),
      grep_vs_search_p50: round(median(grep) / median(search.times), 1),
    };
  } finally {
    cleanup();
  }
}

/** Common words, rare ones, two words, a phrase, a prefix, a path fragment (trigram), an OR. */
function searchTimes(store: NonNullable<ReturnType<typeof openMemory>>, queries: number) {
  const sample = store.list({ limit: 2000 });
  const words = sample.flatMap((i) => i.body.split(/[^a-z_]+/).filter((w) => w.length >= 4));
  const fragments = sample.flatMap((i) => i.body.match(/src\/[a-z]+\/[a-z]+/g) ?? []);
  let n = 0;
  const pick = (xs: string[]) => xs[(n++ * 7919) % xs.length]!;
  const shapes: Array<() => string> = [
    () => pick(words),
    () => `${pick(words)} ${pick(words)}`,
    () => `"${pick(words)} ${pick(words)}"`,
    () => `${pick(words).slice(0, 3)}*`,
    () => pick(fragments).slice(4, 13),
    () => `${pick(words)} OR ${pick(words)}`,
  ];
  const texts = Array.from({ length: queries }, (_, i) => shapes[i % shapes.length]!());
  const times: number[] = [];
  const byShape: number[][] = shapes.map(() => []);
  let hits = 0;
  texts.forEach((t, i) => {
    const t0 = performance.now();
    hits += store.search(t, { limit: 10 }).length;
    const ms = performance.now() - t0;
    times.push(ms);
    byShape[i % shapes.length]!.push(ms);
  });
  const names = ["word", "two words", "phrase", "prefix", "path fragment", "OR"];
  const shapeP50 = Object.fromEntries(names.map((n, i) => [n, round(median(byShape[i]!), 2)]));
  return { texts, times, hits: round(hits / queries, 1), shapeP50 };
}

function grepTimes(file: string, texts: string[]): number[] {
  const out: number[] = [];
  for (const t of texts) {
    const word = t.replace(/["*]|OR.*/g, "").split(" ")[0]!;
    const t0 = performance.now();
    // stdout a pipe, not /dev/null: GNU grep given /dev/null stops at the first match, as -q would.
    const r = spawnSync("grep", ["-c", "-i", "-F", word, file], { stdio: ["ignore", "pipe", "ignore"] });
    out.push(performance.now() - t0);
    if (r.status !== 0 && r.status !== 1) throw new Error(`grep failed (${r.status})`);
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const i = process.argv.indexOf("--items");
  console.log(JSON.stringify(runPromoteBench(i > 0 ? Number(process.argv[i + 1]) : 100_000), null, 2));
}
