// Scores the redactor on the public leaky-repo benchmark (github.com/Plazmaz/leaky-repo, MIT: 44
// configuration and credential files with planted secrets), per planted secret, in three views of each file:
//
// - whole: the file as one text;
// - read: as Claude Code's Read tool shows it, every line prefixed with its number right-aligned in six
//   columns and `→`;
// - json: that Read text inside a JSON string, as a transcript line's tool_result carries it (`\n`, `\t`,
//   `\"` and `\\` escaped).
//
// A secret counts as redacted only when every one of its characters (blanks excepted) is inside a redacted
// span; a clean line is damaged when any of its characters is. Labels (which lines hold which secrets,
// never the values) are in ./redaction-leaky-labels.ts, with the method. The repository is not part of this
// project: it is read from $TAPEDECK_LEAKY_REPO, else from ../shared/leaky-repo beside the checkout.
//
// Usage: npx tsx packages/redact/scripts/leaky.ts [--json] [--misses] [--check] [--speed]
// --misses lists each miss and damaged line by file and line (no values); --check exits 1 when a view
// falls below 90% recall or damages a clean line; --speed times redactText over the files in each view.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { explainText, redactText } from "../src/index.ts";
import { type FileLabels, LEAKY_LABELS, type RiskLabel } from "./leaky-labels.ts";

export const VIEWS = ["whole", "read", "json"] as const;
export type View = (typeof VIEWS)[number];

export interface ViewScore {
  secrets: number;
  redacted: number;
  recall: number;
  cleanLines: number;
  damagedLines: number;
  informativeLines: number;
  informativeChanged: number;
  misses: string[];
  damages: string[];
}

/** A view of a file: its text and where each of the file's characters landed in it, [start, end). */
interface Rendered {
  text: string;
  start: Int32Array;
  end: Int32Array;
}

export function leakyRoot(): string {
  const env = process.env.TAPEDECK_LEAKY_REPO;
  if (env !== undefined && env !== "") return resolve(env);
  return resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "shared", "leaky-repo");
}

function fileLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Claude Code's Read: `${n.padStart(6)}→` before each line, lines joined by `\n`. */
function readView(file: string): Rendered {
  const start = new Int32Array(file.length);
  const end = new Int32Array(file.length);
  let out = "";
  let n = 1;
  let atLineStart = true;
  for (let i = 0; i < file.length; i++) {
    if (atLineStart) {
      out += `${String(n).padStart(6)}→`;
      atLineStart = false;
    }
    start[i] = out.length;
    out += file[i];
    end[i] = out.length;
    if (file[i] === "\n") {
      n++;
      atLineStart = i + 1 < file.length;
    }
  }
  return { text: out, start, end };
}

/** A view inside a JSON string of a tool_result, each character escaped as JSON.stringify escapes it. */
function jsonView(inner: Rendered): Rendered {
  const head =
    '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"';
  const at = new Int32Array(inner.text.length + 1);
  let out = head;
  for (let i = 0; i < inner.text.length; i++) {
    at[i] = out.length;
    out += JSON.stringify(inner.text[i]).slice(1, -1);
  }
  at[inner.text.length] = out.length;
  out += '"}]}}';
  const n = inner.start.length;
  const start = new Int32Array(n);
  const end = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    start[i] = at[inner.start[i] as number] as number;
    end[i] = at[inner.end[i] as number] as number;
  }
  return { text: out, start, end };
}

function render(file: string, view: View): Rendered {
  if (view === "whole") {
    const start = new Int32Array(file.length);
    const end = new Int32Array(file.length);
    for (let i = 0; i < file.length; i++) {
      start[i] = i;
      end[i] = i + 1;
    }
    return { text: file, start, end };
  }
  const read = readView(file);
  return view === "read" ? read : jsonView(read);
}

/** Which characters of `text` redaction covers (explainText's spans, converted from UTF-8 bytes). */
function covered(text: string): Uint8Array {
  const cover = new Uint8Array(text.length);
  const ex = explainText(text);
  if (ex.omitted !== undefined) return cover.fill(1);
  const byteAt: number[] = [];
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    byteAt.push(b);
    const c = text.charCodeAt(i);
    b += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 4 : c >= 0xdc00 && c < 0xe000 ? 0 : 3;
  }
  byteAt.push(b);
  let i = 0;
  for (const h of ex.hits) {
    while (i < text.length && (byteAt[i] as number) < h.offset) i++;
    for (let j = i; j < text.length && (byteAt[j] as number) < h.offset + h.length; j++) cover[j] = 1;
  }
  return cover;
}

/** The character ranges [s, e) of the file that each risk label names. */
function riskRanges(
  file: string,
  lineStarts: number[],
  label: RiskLabel,
  where: string,
): Array<[number, number]> {
  const lines = fileLines(file);
  if ("re" in label) {
    const line = lines[label.line - 1];
    const m = line === undefined ? null : new RegExp(label.re, "d").exec(line);
    const g = m?.indices?.[1];
    if (g === undefined || g[1] <= g[0]) throw new Error(`${where}: label does not match line ${label.line}`);
    const base = lineStarts[label.line - 1] as number;
    return [[base + g[0], base + g[1]]];
  }
  const out: Array<[number, number]> = [];
  for (let l = label.from; l <= label.to; l++) {
    const s = lineStarts[l - 1];
    if (s === undefined) throw new Error(`${where}: no line ${l}`);
    out.push([s, s + (lines[l - 1] as string).length]);
  }
  return out;
}

function lineLabel(label: RiskLabel): string {
  return "re" in label ? `line ${label.line}` : `lines ${label.from}-${label.to}`;
}

export function scoreFile(
  path: string,
  file: string,
  labels: FileLabels,
  view: View,
  score: ViewScore,
): void {
  const r = render(file, view);
  const cover = covered(r.text);
  const lines = fileLines(file);
  const lineStarts: number[] = [];
  for (let l = 0, s = 0; l < lines.length; l++) {
    lineStarts.push(s);
    s += (lines[l] as string).length + 1;
  }
  const isCovered = (i: number) => {
    for (let j = r.start[i] as number; j < (r.end[i] as number); j++) if (cover[j] === 0) return false;
    return true;
  };
  const touched = (i: number) => {
    for (let j = r.start[i] as number; j < (r.end[i] as number); j++) if (cover[j] === 1) return true;
    return false;
  };
  const riskLines = new Set<number>();
  for (const label of labels.risk) {
    score.secrets++;
    let whole = true;
    for (const [s, e] of riskRanges(file, lineStarts, label, path)) {
      for (let i = s; i < e; i++) if (!/\s/.test(file[i] as string) && !isCovered(i)) whole = false;
    }
    if (whole) score.redacted++;
    else score.misses.push(`${path} ${lineLabel(label)}`);
    if ("re" in label) riskLines.add(label.line);
    else for (let l = label.from; l <= label.to; l++) riskLines.add(l);
  }
  const informative = new Set(labels.informative ?? []);
  const armour = new Set(labels.armour ?? []);
  for (let l = 1; l <= lines.length; l++) {
    if (riskLines.has(l) || armour.has(l)) continue;
    const s = lineStarts[l - 1] as number;
    let changed = false;
    for (let i = s; i < s + (lines[l - 1] as string).length && !changed; i++) changed = touched(i);
    if (informative.has(l)) {
      score.informativeLines++;
      if (changed) score.informativeChanged++;
    } else {
      score.cleanLines++;
      if (changed) {
        score.damagedLines++;
        score.damages.push(`${path} line ${l}`);
      }
    }
  }
}

export function scoreLeaky(root: string, view: View): ViewScore {
  const score: ViewScore = {
    secrets: 0,
    redacted: 0,
    recall: 0,
    cleanLines: 0,
    damagedLines: 0,
    informativeLines: 0,
    informativeChanged: 0,
    misses: [],
    damages: [],
  };
  for (const [path, labels] of Object.entries(LEAKY_LABELS)) {
    scoreFile(path, readFileSync(join(root, path), "utf8"), labels, view, score);
  }
  score.recall = score.redacted / score.secrets;
  return score;
}

/** MB/s of redactText over the labelled files in a view: the median of five passes of 20 rounds. */
function speed(root: string, view: View): number {
  const texts = Object.keys(LEAKY_LABELS).map((p) => render(readFileSync(join(root, p), "utf8"), view).text);
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
  const rates: number[] = [];
  for (let pass = 0; pass < 6; pass++) {
    const t0 = process.hrtime.bigint();
    for (let round = 0; round < 20; round++) for (const t of texts) redactText(t);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (pass > 0) rates.push((bytes * 20) / 1e6 / s);
  }
  rates.sort((a, b) => a - b);
  return rates[2] as number;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = leakyRoot();
  if (!existsSync(join(root, ".leaky-meta"))) {
    process.stderr.write(
      `redaction-leaky: no leaky-repo at ${root} (set TAPEDECK_LEAKY_REPO); nothing scored\n`,
    );
    process.exit(0);
  }
  const scores = Object.fromEntries(VIEWS.map((v) => [v, scoreLeaky(root, v)])) as Record<View, ViewScore>;
  const speeds = process.argv.includes("--speed")
    ? Object.fromEntries(VIEWS.map((v) => [v, speed(root, v)]))
    : undefined;
  if (process.argv.includes("--json")) {
    process.stdout.write(`${JSON.stringify({ scores, speeds })}\n`);
  } else {
    for (const v of VIEWS) {
      const s = scores[v];
      process.stdout.write(
        `${v.padEnd(5)}  recall ${(s.recall * 100).toFixed(1)}% (${s.redacted}/${s.secrets})  ` +
          `clean lines damaged ${s.damagedLines}/${s.cleanLines}  informative changed ` +
          `${s.informativeChanged}/${s.informativeLines}${speeds ? `  ${speeds[v]?.toFixed(1)} MB/s` : ""}\n`,
      );
      if (process.argv.includes("--misses")) {
        for (const m of s.misses) process.stdout.write(`    missed   ${m}\n`);
        for (const d of s.damages) process.stdout.write(`    damaged  ${d}\n`);
      }
    }
  }
  if (process.argv.includes("--check")) {
    const failed = VIEWS.filter((v) => scores[v].recall < 0.9 || scores[v].damagedLines > 0);
    if (failed.length > 0) {
      process.stderr.write(`redaction-leaky: below the floor in ${failed.join(", ")}\n`);
      process.exit(1);
    }
  }
}
