// Measures the rule for a bare AWS secret access key in a longer text (./../src/aws.ts, bareAwsSecrets):
// what it catches of generated secrets, and what it would rewrite in real text.
//
// - recall: secrets made as AWS makes them (30 random bytes in base64, here from a SHA-256 stream of a
//   seed) put in the contexts an agent sees them in without a name or a key id near (a log line, prose,
//   JSON, YAML, a shell's output, CSV, a table, a JSON-escaped tool result, arguments), each scored by
//   redactText (caught when no 8 characters of it survive), and the share of 10^6 such secrets that each
//   of the rule's tests refuses on its own;
// - damage: every maximal base64 run of exactly 40 characters in the files under the paths given (text
//   files only), with the test that refuses it, and each one the rule would redact listed by file, offset
//   and shape (A upper, a lower, 9 digit, + symbol): never its characters, since real files may hold real
//   secrets. `--encode` adds base64 of each file's bytes and of its gzip, on one line and wrapped at 64
//   and 76 as PEM and MIME do (also JSON-escaped); `--git <repo>` adds a repository's object ids.
//
// Usage: npx tsx packages/redact/scripts/aws-bare.ts [--seed S] [--uniform N] [--encode] [--git REPO] [PATH...]
// Nothing read is copied anywhere; the only values printed are the generated fakes' counts.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, lstatSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { type BareVerdict, bareAwsSecrets, bareRunVerdict } from "../src/aws.ts";
import { isB64Code } from "../src/chars.ts";
import { redactText } from "../src/index.ts";
import type { Span } from "../src/rule.ts";

const LEN = 40;
const MAX_FILE = 50e6;

/** `n` fake AWS secrets: 30 bytes of a SHA-256 stream of `seed` each, in base64. */
export function fakeSecrets(seed: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const a = createHash("sha256").update(`${seed}:${i}:a`).digest();
    const b = createHash("sha256").update(`${seed}:${i}:b`).digest();
    out.push(Buffer.concat([a, b]).subarray(0, 30).toString("base64"));
  }
  return out;
}

/** A key id made from the secret (so that it is fake too): AKIA and 16 of base32's letters and digits. */
function fakeKeyId(secret: string): string {
  const h = createHash("sha256").update(secret).digest();
  let id = "AKIA";
  for (let i = 0; i < 16; i++) id += "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"[(h[i] as number) % 32];
  return id;
}

/** Where an agent meets a secret with no name and no key id near it; each text is longer than 64. */
export const CONTEXTS: Record<string, (s: string) => string> = {
  log: (s) => `2026-03-02T10:14:07.233Z INFO  rotate: issued ${s} to ci-deployer (expires 2026-06-01)`,
  prose: (s) =>
    `I generated a fresh one for you: ${s}. Paste it into the deploy settings and drop the old one.`,
  json: (s) => `{"user":"ci-deployer","created":"2026-03-02T10:14:07Z","status":"Active","v":"${s}"}`,
  yaml: (s) => `deploy:\n  region: eu-west-1\n  values:\n    - ${s}\n    - fallback\n`,
  shell: (s) => `$ ./scripts/rotate.sh --user ci-deployer\nrotating...\n${s}\ndone in 1.2s\n`,
  csv: (s) => `ci-deployer,${s},Active,2026-03-02T10:14:07+00:00`,
  table: (s) => `| user | value | status |\n|---|---|---|\n| ci-deployer | ${s} | Active |\n`,
  escaped: (s) => `{"type":"tool_result","content":"rotating...\\n${s}\\ndone in 1.2s\\n"}`,
  args: (s) => `node deploy.js --region eu-west-1 --bucket assets-prod ${s} --dry-run`,
  call: (s) => `client = make_client("eu-west-1", "${s}", timeout=30, retries=3)`,
  backticks: (s) => `Use \`${s}\` for the staging account only; it expires on Friday.`,
  far: (s) => `${fakeKeyId(s)} created for ci-deployer.\n${"log line ".repeat(60)}\nlater: ${s} in use`,
};

function survives(secret: string, out: string): boolean {
  for (let i = 0; i + 8 <= secret.length; i++) if (out.includes(secret.slice(i, i + 8))) return true;
  return false;
}

export function recall(seed: string, perContext: number): Record<string, { caught: number; total: number }> {
  const out: Record<string, { caught: number; total: number }> = {};
  const secrets = fakeSecrets(`${seed}:contexts`, perContext);
  for (const [name, make] of Object.entries(CONTEXTS)) {
    let caught = 0;
    for (const s of secrets) if (!survives(s, redactText(make(s)).text)) caught++;
    out[name] = { caught, total: secrets.length };
  }
  return out;
}

/** The share of `n` generated secrets, standing alone between blanks, that each test refuses. */
export function uniformRefusals(seed: string, n: number): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of fakeSecrets(`${seed}:uniform`, n)) {
    const v = bareRunVerdict(` ${s} `, 1, 1 + LEN);
    counts[v] = (counts[v] ?? 0) + 1;
  }
  return counts;
}

export interface Found {
  where: string;
  at: number;
  shape: string;
}

export interface Tally {
  sources: number;
  chars: number;
  verdicts: Partial<Record<BareVerdict, number>>;
  redacted: Found[];
  /** Runs the rule's own scan redacted: must equal the "secret" verdicts. */
  ruleSpans: number;
}

export function newTally(): Tally {
  return { sources: 0, chars: 0, verdicts: {}, redacted: [], ruleSpans: 0 };
}

function shapeOf(text: string, s: number, e: number): string {
  let out = "";
  for (let i = s; i < e; i++) {
    const c = text[i] as string;
    out += c >= "A" && c <= "Z" ? "A" : c >= "a" && c <= "z" ? "a" : c >= "0" && c <= "9" ? "9" : "+";
  }
  return out;
}

/** Every maximal base64 run of 40 in `text` (an escaped `\n`'s letter is not part of it), judged. */
export function tallyText(text: string, where: string, t: Tally): void {
  t.sources++;
  t.chars += text.length;
  let i = 0;
  while (i < text.length) {
    while (i < text.length && !isB64Code(text.charCodeAt(i))) i++;
    let s = i;
    while (i < text.length && isB64Code(text.charCodeAt(i))) i++;
    const c = text.charCodeAt(s);
    if (text.charCodeAt(s - 1) === 92 && (c === 110 || c === 114 || c === 116)) s++;
    if (i - s !== LEN) continue;
    const v = bareRunVerdict(text, s, i);
    t.verdicts[v] = (t.verdicts[v] ?? 0) + 1;
    if (v === "secret") t.redacted.push({ where, at: s, shape: shapeOf(text, s, i) });
  }
  const spans: Span[] = [];
  bareAwsSecrets(text, spans);
  t.ruleSpans += spans.length;
}

function* files(path: string): Generator<string> {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return;
  }
  if (st.isFile()) {
    if (st.size > 0 && st.size < MAX_FILE) yield path;
    return;
  }
  if (!st.isDirectory()) return;
  let names: string[];
  try {
    names = readdirSync(path);
  } catch {
    return;
  }
  for (const n of names) if (n !== ".git") yield* files(join(path, n));
}

function isText(bytes: Buffer): boolean {
  return !bytes.subarray(0, 4096).includes(0);
}

function head(path: string): Buffer {
  const fd = openSync(path, "r");
  const b = Buffer.alloc(4096);
  const n = readSync(fd, b, 0, 4096, 0);
  closeSync(fd);
  return b.subarray(0, n);
}

function wrap(b64: string, width: number, sep: string): string {
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += width) lines.push(b64.slice(i, i + width));
  return lines.join(sep);
}

/** base64 of `bytes` as tools write it: one line, PEM's 64, MIME's 76, and the PEM form JSON-escaped. */
export function encodings(bytes: Buffer): Record<string, string> {
  const b64 = bytes.toString("base64");
  return {
    line: `data: ${b64}\n`,
    pem: `-----BEGIN DATA-----\n${wrap(b64, 64, "\n")}\n-----END DATA-----\n`,
    mime: `Content-Transfer-Encoding: base64\n\n${wrap(b64, 76, "\r\n")}\r\n`,
    json: JSON.stringify({ content: `-----BEGIN DATA-----\n${wrap(b64, 64, "\n")}\n-----END DATA-----\n` }),
  };
}

export function tallyPath(path: string, text: Tally, encoded: Tally | null): void {
  for (const f of files(path)) {
    const isTextFile = isText(head(f));
    if (!isTextFile && encoded === null) continue;
    const bytes = readFileSync(f);
    if (isTextFile) tallyText(bytes.toString("latin1"), f, text);
    if (encoded === null) continue;
    for (const [form, t] of Object.entries(encodings(bytes))) tallyText(t, `${f} (base64, ${form})`, encoded);
    for (const [form, t] of Object.entries(encodings(gzipSync(bytes)))) {
      tallyText(t, `${f} (gzip, base64, ${form})`, encoded);
    }
  }
}

export function tallyGit(repo: string, t: Tally): void {
  const opts = { cwd: repo, maxBuffer: 1 << 30, encoding: "latin1" as const };
  // Commit, tree and parent ids of every commit, and the ids of the newest tree's files (a shallow or
  // partial clone lacks the older blobs, so `rev-list --objects` is not asked for).
  tallyText(execFileSync("git", ["log", "--all", "--format=%H %T %P"], opts), `${repo} (commit ids)`, t);
  tallyText(execFileSync("git", ["ls-tree", "-r", "HEAD"], opts), `${repo} (file ids)`, t);
}

function report(name: string, t: Tally): void {
  const mb = (t.chars / 1e6).toFixed(1);
  const runs = Object.values(t.verdicts).reduce((a, b) => a + (b ?? 0), 0);
  console.log(`${name}: ${t.sources} texts, ${mb} M characters, ${runs} runs of exactly 40`);
  console.log(`  refused by: ${JSON.stringify(t.verdicts)}`);
  console.log(`  redacted: ${t.redacted.length} (the rule's own scan: ${t.ruleSpans})`);
  for (const f of t.redacted) console.log(`    ${f.where} @${f.at} ${f.shape}`);
}

function main(argv: string[]): void {
  const arg = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const seed = arg("--seed") ?? "aws-bare-2026";
  const uniform = Number(arg("--uniform") ?? 1_000_000);
  const git = arg("--git");
  const paths = argv.filter(
    (a, i) => !a.startsWith("--") && !["--seed", "--uniform", "--git"].includes(argv[i - 1] ?? ""),
  );
  const r = recall(seed, 200);
  let caught = 0;
  let total = 0;
  for (const [name, v] of Object.entries(r)) {
    caught += v.caught;
    total += v.total;
    console.log(`recall ${name}: ${v.caught}/${v.total}`);
  }
  console.log(`recall, all contexts: ${caught}/${total} (${((100 * caught) / total).toFixed(1)}%)`);
  const refused = uniformRefusals(seed, uniform);
  const shares = Object.entries(refused).map(([k, v]) => `${k} ${((100 * v) / uniform).toFixed(3)}%`);
  console.log(`${uniform} generated secrets, alone: ${shares.join(", ")}`);
  if (git !== undefined) {
    const t = newTally();
    tallyGit(git, t);
    report("git ids", t);
  }
  for (const p of paths) {
    const text = newTally();
    const encoded = argv.includes("--encode") ? newTally() : null;
    tallyPath(p, text, encoded);
    report(p, text);
    if (encoded !== null) report(`${p}, base64 of its files`, encoded);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) main(process.argv.slice(2));
