// Scores a redactor on the corpus of packages/redact/scripts/corpus.ts, in the terms
// of issue 12: a positive case is caught only if no 8-character run of any of
// its secrets survives (a listed public prefix may stay); a look-alike is
// damaged if its text changes at all.
//
// Usage: npx tsx packages/redact/scripts/score.ts [--docs] [--seed N] [--json] [--misses]
// (--docs scores the documented-formats corpus of packages/redact/scripts/corpus-docs.ts instead).
import { pathToFileURL } from "node:url";
import { redactText } from "../src/index.ts";
import { buildRedactionCorpus, type Corpus, DEFAULT_SEED, type PositiveCase } from "./corpus.ts";
import { buildDocsCorpus, DOCS_SEED } from "./corpus-docs.ts";

const RUN = 8;

export interface Score {
  cases: number;
  caught: number;
  recall: number;
  lookalikes: number;
  damaged: number;
  falsePositiveRate: number;
  perKind: Record<string, { caught: number; total: number }>;
  perCategory: Record<string, { damaged: number; total: number }>;
  misses: string[];
  damages: string[];
}

/** Whether any 8-character run of `secret` (past an allowed public prefix) is still in `out`. */
function survives(secret: string, out: string, prefixes: readonly string[]): boolean {
  let s = secret;
  for (const p of prefixes) if (p && s.startsWith(p)) s = s.slice(p.length);
  if (s.length < RUN) return out.includes(s);
  for (let i = 0; i + RUN <= s.length; i++) if (out.includes(s.slice(i, i + RUN))) return true;
  return false;
}

export function caught(c: PositiveCase, out: string): boolean {
  return !c.secrets.some((s) => survives(s, out, c.prefixes ?? []));
}

export function scoreCorpus(
  corpus: Corpus,
  redact: (text: string) => string = (t) => redactText(t).text,
): Score {
  const perKind: Score["perKind"] = {};
  const perCategory: Score["perCategory"] = {};
  const misses: string[] = [];
  const damages: string[] = [];
  let ok = 0;
  for (const c of corpus.positives) {
    perKind[c.kind] ??= { caught: 0, total: 0 };
    const k = perKind[c.kind] as { caught: number; total: number };
    k.total++;
    if (caught(c, redact(c.text))) {
      k.caught++;
      ok++;
    } else misses.push(c.id);
  }
  let damaged = 0;
  for (const l of corpus.lookalikes) {
    perCategory[l.category] ??= { damaged: 0, total: 0 };
    const k = perCategory[l.category] as { damaged: number; total: number };
    k.total++;
    if (redact(l.text) !== l.text) {
      k.damaged++;
      damaged++;
      damages.push(l.id);
    }
  }
  return {
    cases: corpus.positives.length,
    caught: ok,
    recall: ok / corpus.positives.length,
    lookalikes: corpus.lookalikes.length,
    damaged,
    falsePositiveRate: damaged / corpus.lookalikes.length,
    perKind,
    perCategory,
    misses,
    damages,
  };
}

function report(s: Score): string {
  const lines = [
    `recall ${s.recall.toFixed(3)} (${s.caught}/${s.cases} cases, ${Object.keys(s.perKind).length} kinds)`,
    `false positives ${(s.falsePositiveRate * 100).toFixed(2)}% (${s.damaged}/${s.lookalikes} look-alikes damaged)`,
    "",
    "kinds below 100% (caught/total):",
  ];
  for (const [k, v] of Object.entries(s.perKind))
    if (v.caught < v.total) lines.push(`  ${k} ${v.caught}/${v.total}`);
  lines.push("", "categories (damaged/total):");
  for (const [k, v] of Object.entries(s.perCategory)) lines.push(`  ${k} ${v.damaged}/${v.total}`);
  return lines.join("\n");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf("--seed");
  const seed = at > 0 ? process.argv[at + 1] : undefined;
  const corpus = process.argv.includes("--docs")
    ? buildDocsCorpus(seed ?? DOCS_SEED)
    : buildRedactionCorpus(seed === undefined ? DEFAULT_SEED : Number(seed));
  const s = scoreCorpus(corpus);
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify(s)}\n`);
  } else {
    process.stdout.write(`${report(s)}\n`);
    if (process.argv.includes("--misses")) {
      // Local debugging only: these print the generated (fake) secrets.
      const byId = new Map([...corpus.positives, ...corpus.lookalikes].map((c) => [c.id, c] as const));
      for (const id of [...s.misses, ...s.damages]) {
        const c = byId.get(id);
        if (!c) continue;
        process.stdout.write(
          `\n--- ${id} ${"kind" in c ? c.kind : c.category}\n${c.text}\n>>> ${redactText(c.text).text}\n`,
        );
      }
    }
  }
}
