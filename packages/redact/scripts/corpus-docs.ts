// The second redaction corpus: documents in the formats each tool's public documentation shows (CLI
// output, config files, API-client collections, SDK snippets, error dumps), every value generated fresh.
//
// Made by another method than packages/redact/scripts/corpus.ts on purpose, so the two can disagree: that one
// crosses a list of credential kinds with a list of contexts; this one writes whole documents, one format
// each (./redaction-docs/*.ts), with values made the way their issuers make them (./redaction-docs/
// values.ts, a SHA-256 counter stream instead of the first corpus's generator). It was written before the
// rules that issue 26 added and is not a place to tune them: a miss here is a shape to generalize, not a
// string to match. Its look-alikes come from the same documentation: .env.example placeholders,
// environment lookups, --help texts, masked output, hashes and blobs.
//
// Usage: npx tsx packages/redact/scripts/corpus-docs.ts [--seed S] > corpus.jsonl
import { pathToFileURL } from "node:url";
import type { Corpus, LookAlikeCase, PositiveCase } from "./corpus.ts";
import { CLOUD } from "./docs/cloud.ts";
import { CODE } from "./docs/code.ts";
import { DATA } from "./docs/data.ts";
import type { Doc } from "./docs/doc.ts";
import { HTTP } from "./docs/http.ts";
import { DEFAULT_PASSWORDS, LOOKALIKES } from "./docs/lookalikes.ts";
import { Values } from "./docs/values.ts";

export const DOCS_SEED = "tapedeck-docs-2026";
/** Fresh documents per format: a format's `pick` alternatives are drawn across them. */
const COPIES = 4;

export const DOCS: Doc[] = [...CLOUD, ...DATA, ...HTTP, ...CODE, ...DEFAULT_PASSWORDS];

export function buildDocsCorpus(seed: string = DOCS_SEED): Corpus {
  const v = new Values(seed);
  const positives: PositiveCase[] = [];
  for (const d of DOCS) {
    for (let i = 0; i < COPIES; i++) {
      const text = d.make(v);
      // A format's alternatives are all written (`v.pick([...])` evaluates each), and one is kept:
      // its secrets are the recorded ones that are in the text (a split one by its first 8 characters).
      const taken = v.take();
      const secrets = taken.secrets.filter((s) => text.includes(s) || text.includes(s.slice(0, 8)));
      const prefixes = taken.prefixes.filter((p) => secrets.some((s) => s.startsWith(p)));
      if (secrets.length === 0) throw new Error(`${d.kind}: a document with no secret`);
      positives.push({
        id: `d${positives.length}`,
        kind: d.kind,
        text,
        secrets,
        ...(prefixes.length > 0 ? { prefixes } : {}),
      });
    }
  }
  const lookalikes: LookAlikeCase[] = [];
  for (const l of LOOKALIKES) {
    for (let i = 0; i < (l.once ? 1 : COPIES); i++) {
      lookalikes.push({ id: `dl${lookalikes.length}`, category: l.category, text: l.make(v) });
      v.take();
    }
  }
  return { seed: 0, positives, lookalikes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf("--seed");
  const c = buildDocsCorpus(at > 0 ? String(process.argv[at + 1]) : DOCS_SEED);
  for (const p of c.positives) process.stdout.write(`${JSON.stringify({ ...p, type: "positive" })}\n`);
  for (const l of c.lookalikes) process.stdout.write(`${JSON.stringify({ ...l, type: "lookalike" })}\n`);
}
