// Throughput of the redaction hot path over a realistic mix of agent traffic.
// Run: npx tsx packages/redact/bench/redact.bench.ts  ->  {"name":"redact","mb_per_s":...,"bytes":...}
// `mb_per_s` is redactText over the corpus (MB = 10^6 UTF-8 bytes, median of
// three passes); `value_mb_per_s` is redactValue over hook-shaped payloads.
//
// The corpus is generated in memory from a fixed seed, so runs are comparable.
// Secrets are planted in a known subset of documents; the report also counts
// spans found in the clean documents, which should be zero (false positives).
//
// Issue 12 asks for >= 100 MB/s on both figures. Measured on the shared two-core
// VM: 232 / 242 MB/s before the issue-12 rules, 151-173 / 154-170 MB/s after
// (packages/redact/README.md has the conditions); after issue 26's structural rules, on an idle VM, 125-130 /
// 117-121 MB/s.
import { pathToFileURL } from "node:url";
import { redactText, redactValue } from "../src/index.ts";

const MB = 1_000_000;

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";
const B64 = `${ALNUM}+/`;

class Gen {
  readonly r: () => number;
  constructor(seed: number) {
    this.r = rng(seed);
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)] as T;
  }
  str(alphabet: string, n: number): string {
    let s = "";
    for (let i = 0; i < n; i++) s += alphabet[this.int(alphabet.length)];
    return s;
  }
  hex(n: number): string {
    return this.str(HEX, n);
  }
  uuid(): string {
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-a${this.hex(3)}-${this.hex(12)}`;
  }
  ident(): string {
    const a = this.pick(WORDS);
    const b = this.pick(WORDS);
    return this.r() < 0.5 ? a + b[0]!.toUpperCase() + b.slice(1) : `${a}_${b}`;
  }
  base64(bytes: number): string {
    // Real base64 of random bytes, like an encoded PNG.
    const buf = new Uint8Array(bytes);
    for (let i = 0; i < bytes; i++) buf[i] = this.int(256);
    return Buffer.from(buf).toString("base64");
  }
}

const WORDS = [
  "user",
  "item",
  "session",
  "request",
  "config",
  "value",
  "result",
  "error",
  "handler",
  "cache",
  "stream",
  "buffer",
  "token",
  "count",
  "index",
  "event",
  "record",
  "path",
  "file",
  "line",
  "parse",
  "build",
  "render",
  "fetch",
  "client",
  "server",
  "model",
  "schema",
  "state",
  "queue",
  "worker",
  "batch",
  "limit",
  "offset",
  "page",
  "size",
  "key",
  "name",
  "status",
  "message",
];

const PROSE = (
  "the agent reads the file and then runs the test suite again before it writes a summary of " +
  "what changed in the module we need to check the token count before sending the request because " +
  "the model has a limit and the password field is required on the login form so the validation " +
  "should fail when it is empty note that the secret manager is configured elsewhere and the key " +
  "rotation happens weekly this refactor keeps the public api stable while moving the parsing logic " +
  "into a separate helper with its own tests"
).split(" ");

const CODE_LINES = [
  'import { readFile } from "node:fs/promises";',
  'import type { Config } from "../../../bench/config.ts";',
  "export async function $A(input: string): Promise<$B> {",
  '  const $A = await load$B(path.join(root, "$C.json"));',
  "  if (!$A) throw new Error(`missing $C: $" + "{name}`);",
  "  for (let i = 0; i < $A.length; i++) {",
  "    total += $A[i].count * weight;",
  "  }",
  "  return { ...$A, updatedAt: Date.now() };",
  "}",
  "const token = await getToken(client);",
  "  password: string;",
  "  apiKey?: string;",
  "const headers = { Authorization: `Bearer $" + "{token}` };",
  "if (process.env.GITHUB_TOKEN === undefined) return null;",
  "def $A(self, $C: int = 10) -> list[str]:",
  "    return [x for x in self.$B if x.$C > 0]",
  '    api_key = os.environ["OPENAI_API_KEY"]',
  "    client = OpenAI(api_key=api_key)",
  "func ($A *$B) Handle(w http.ResponseWriter, r *http.Request) error {",
  "\tif err := json.NewDecoder(r.Body).Decode(&req); err != nil {",
  "let $A: Vec<String> = items.iter().map(|x| x.to_string()).collect();",
  "  // count tokens before the request so we stay under max_tokens",
  "  const usage = { input_tokens: $N, output_tokens: $N, cache_read_input_tokens: $N };",
  '  expect($A).toEqual({ status: "ok", id: "$U" });',
  '  const hash = createHash("sha256").update(body).digest("hex");',
];

function codeDoc(g: Gen, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(
      g
        .pick(CODE_LINES)
        .replace(/\$A/g, () => g.ident())
        .replace(/\$B/g, () => g.pick(WORDS))
        .replace(/\$C/g, () => g.pick(WORDS))
        .replace(/\$N/g, () => String(g.int(100000)))
        .replace(/\$U/g, () => g.uuid()),
    );
  }
  return out.join("\n");
}

function logDoc(g: Gen, lines: number): string {
  const out: string[] = [];
  const levels = ["INFO", "DEBUG", "WARN", "ERROR", "INFO", "INFO"];
  const verbs = ["GET", "POST", "PUT", "DELETE"];
  for (let i = 0; i < lines; i++) {
    const ts = `2025-0${1 + g.int(9)}-1${g.int(10)}T${10 + g.int(14)}:${10 + g.int(50)}:${10 + g.int(50)}.${g.int(900) + 100}Z`;
    switch (g.int(4)) {
      case 0:
        out.push(
          `${ts} ${g.pick(levels)} [req_${g.str(ALNUM, 24)}] ${g.pick(verbs)} /api/v1/${g.pick(WORDS)}/${g.uuid()} ${200 + g.int(4) * 100} ${g.int(900)}ms`,
        );
        break;
      case 1:
        out.push(
          `${ts} ${g.pick(levels)} worker=${g.int(16)} trace_id=${g.hex(32)} span=${g.hex(16)} retry=${g.int(3)}`,
        );
        break;
      case 2:
        out.push(
          `${ts} ${g.pick(levels)} ${g.pick(PROSE)} ${g.pick(PROSE)} ${g.pick(PROSE)} (${g.ident()}) took ${g.int(5000)}ms`,
        );
        break;
      default:
        out.push(
          `${ts} DEBUG token refresh ok for session ${g.uuid()} model=claude-sonnet-4 input_tokens=${g.int(9000)}`,
        );
    }
  }
  return out.join("\n");
}

function jsonDoc(g: Gen, items: number): string {
  const arr = [];
  for (let i = 0; i < items; i++) {
    arr.push({
      id: g.uuid(),
      sha: g.hex(40),
      type: g.pick(["tool_use", "text", "thinking"]),
      tool_use_id: `toolu_01${g.str(ALNUM, 22)}`,
      message_id: `msg_01${g.str(ALNUM, 22)}`,
      name: g.ident(),
      created_at: "2025-03-04T05:06:07.890Z",
      url: `https://api.example.com/v2/${g.pick(WORDS)}/${g.int(99999)}?page=${g.int(40)}&per_page=50`,
      usage: { input_tokens: g.int(90000), output_tokens: g.int(4000), max_tokens: 8192 },
      tags: [g.pick(WORDS), g.pick(WORDS)],
      signature: g.base64(96),
      text: `${g.pick(PROSE)} ${g.pick(PROSE)} ${g.pick(PROSE)} ${g.pick(PROSE)}`,
    });
  }
  return JSON.stringify({ data: arr, next_page_token: null, total_count: items }, null, 2);
}

function shellDoc(g: Gen, lines: number): string {
  const out: string[] = [`$ ${g.pick(["ls -la", "git log --oneline", "npm test", "docker ps"])}`];
  for (let i = 0; i < lines; i++) {
    switch (g.int(5)) {
      case 0:
        out.push(
          `-rw-r--r--  1 dev  staff  ${g.int(99999)} Mar  ${1 + g.int(28)} 10:${10 + g.int(49)} ${g.ident()}.ts`,
        );
        break;
      case 1:
        out.push(
          `${g.hex(7)} ${g.pick(["fix", "feat", "chore", "refactor"])}: ${g.pick(PROSE)} ${g.pick(PROSE)} ${g.pick(WORDS)}`,
        );
        break;
      case 2:
        out.push(`  ✓ ${g.pick(WORDS)} ${g.pick(PROSE)} ${g.pick(PROSE)} (${g.int(300)} ms)`);
        break;
      case 3:
        out.push(
          `${g.hex(12)}   node:20-alpine   "docker-entrypoint.s…"   ${g.int(9)} hours ago   Up ${g.int(9)} hours   0.0.0.0:${3000 + g.int(9)}->3000/tcp`,
        );
        break;
      default:
        out.push(
          `npm warn deprecated ${g.pick(WORDS)}@${g.int(9)}.${g.int(20)}.${g.int(20)}: use ${g.ident()} instead`,
        );
    }
  }
  return out.join("\n");
}

function proseDoc(g: Gen, words: number): string {
  const out: string[] = ["## Summary", ""];
  let line: string[] = [];
  for (let i = 0; i < words; i++) {
    line.push(g.pick(PROSE));
    if (line.length > 14 && g.r() < 0.2) {
      out.push(line.join(" ") + ".");
      line = [];
    }
  }
  out.push(line.join(" "));
  return out.join("\n");
}

function imageDoc(g: Gen, bytes: number): string {
  return `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"data:image/png;base64,${g.base64(bytes)}"}}`;
}

function lockDoc(g: Gen, entries: number): string {
  const out: string[] = [];
  for (let i = 0; i < entries; i++) {
    const name = g.pick(WORDS);
    out.push(
      `    "node_modules/${name}": {\n      "version": "${g.int(9)}.${g.int(20)}.${g.int(20)}",\n` +
        `      "resolved": "https://registry.npmjs.org/${name}/-/${name}-1.2.3.tgz",\n` +
        `      "integrity": "sha512-${g.base64(64)}"\n    },`,
    );
  }
  return out.join("\n");
}

function diffDoc(g: Gen, lines: number): string {
  const body = codeDoc(g, lines)
    .split("\n")
    .map((l) => (g.r() < 0.2 ? `-${l}` : g.r() < 0.25 ? `+${l}` : ` ${l}`));
  return `diff --git a/src/${g.pick(WORDS)}.ts b/src/${g.pick(WORDS)}.ts\nindex ${g.hex(7)}..${g.hex(7)} 100644\n@@ -1,${lines} +1,${lines} @@\n${body.join("\n")}`;
}

// Realistic secret placements. Built by concatenation so the repository never holds a literal token.
function plantedSecret(g: Gen): string {
  const gh = "gh" + "p_" + g.str(ALNUM, 36);
  const oai = "sk-" + "proj-" + g.str(ALNUM, 40) + "T3" + g.str(ALNUM, 20);
  const aws = "AK" + "IA" + g.str("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16);
  const jwt = "ey" + "J" + g.str(ALNUM, 30) + ".ey" + "J" + g.str(ALNUM, 60) + "." + g.str(ALNUM + "_-", 43);
  switch (g.int(8)) {
    case 0:
      return `export GITHUB_TOKEN=${gh}`;
    case 1:
      return `  "api_key": "${oai}",`;
    case 2:
      return `aws_access_key_id = ${aws}\naws_secret_access_key = ${g.str(B64, 40)}`;
    case 3:
      return `curl -H "Authorization: Bearer ${jwt}" https://api.example.com/v1/me`;
    case 4:
      return `DATABASE_URL=postgres://app:${g.str(ALNUM, 20)}@db.internal:5432/app`;
    case 5:
      return `git remote add origin https://oauth2:${"gl" + "pat-" + g.str(ALNUM, 20)}@gitlab.com/team/repo.git`;
    case 6:
      return `SLACK_BOT_TOKEN=${"xo" + "xb-" + g.int(1e12) + "-" + g.int(1e12) + "-" + g.str(ALNUM, 24)}`;
    default:
      return `password: "${g.str(ALNUM + "!@#%", 16)}"`;
  }
}

export interface Corpus {
  docs: string[];
  /** Whether a secret was planted in docs[i]. */
  planted: boolean[];
  bytes: number;
}

export function buildCorpus(targetBytes = 50 * MB, seed = 20250301): Corpus {
  const g = new Gen(seed);
  const docs: string[] = [];
  const planted: boolean[] = [];
  let bytes = 0;
  while (bytes < targetBytes) {
    const roll = g.r();
    let doc: string;
    if (roll < 0.3) doc = codeDoc(g, 40 + g.int(600));
    else if (roll < 0.45) doc = logDoc(g, 20 + g.int(400));
    else if (roll < 0.58) doc = jsonDoc(g, 2 + g.int(30));
    else if (roll < 0.7) doc = shellDoc(g, 10 + g.int(300));
    else if (roll < 0.8) doc = proseDoc(g, 50 + g.int(2000));
    else if (roll < 0.86) doc = imageDoc(g, 8_000 + g.int(150_000));
    else if (roll < 0.93) doc = lockDoc(g, 10 + g.int(200));
    else doc = diffDoc(g, 20 + g.int(200));
    const plant = g.r() < 0.25;
    if (plant) {
      const lines = doc.split("\n");
      lines.splice(g.int(lines.length + 1), 0, plantedSecret(g));
      doc = lines.join("\n");
    }
    // Hook payloads arrive through JSON.parse, which yields flat strings; concatenation
    // leaves rope strings that scan slower and would understate throughput.
    docs.push(Buffer.from(doc, "utf8").toString("utf8"));
    planted.push(plant);
    bytes += doc.length;
  }
  return { docs, planted, bytes };
}

function hookPayload(g: Gen, doc: string, i: number): Record<string, unknown> {
  const common = {
    session_id: g.uuid(),
    transcript_path: `/home/dev/.claude/projects/app/${g.uuid()}.jsonl`,
    cwd: "/home/dev/app",
    hook_event_name: "PostToolUse",
  };
  if (i % 3 === 0) {
    return {
      ...common,
      tool_name: "Write",
      tool_input: { file_path: `/home/dev/app/src/${g.pick(WORDS)}.ts`, content: doc },
      tool_response: { success: true },
    };
  }
  if (doc.startsWith("{") && i % 3 === 1) {
    try {
      return {
        ...common,
        tool_name: "WebFetch",
        tool_input: { url: "https://api.example.com" },
        tool_response: JSON.parse(doc),
      };
    } catch {
      // fall through to a Bash-shaped payload
    }
  }
  return {
    ...common,
    tool_name: "Bash",
    tool_input: { command: doc.slice(0, doc.indexOf("\n") >>> 0 || 80), description: "run it" },
    tool_response: { stdout: doc, stderr: "", interrupted: false, isImage: false },
    usage: { input_tokens: g.int(90000), output_tokens: g.int(4000) },
  };
}

/** Median wall time of `runs` passes, in seconds: the machine is shared, single passes are noisy. */
function medianSeconds(runs: number, fn: () => void): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push((performance.now() - t0) / 1000);
  }
  times.sort((x, y) => x - y);
  return times[Math.floor(times.length / 2)] as number;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** MB here is 10^6 bytes of UTF-8. */
export async function runRedactBench(options: { bytes?: number; runs?: number } = {}): Promise<object> {
  const runs = options.runs ?? 3;
  const { docs, planted } = buildCorpus(options.bytes ?? 50 * MB);
  let bytes = 0;
  for (const d of docs) bytes += Buffer.byteLength(d);

  // Warm the JIT on a slice so the timed passes measure steady state.
  for (let i = 0; i < Math.min(docs.length, 200); i++) redactText(docs[i] as string);

  let spans = 0;
  let missed = 0;
  let falsePositives = 0;
  for (let i = 0; i < docs.length; i++) {
    const r = redactText(docs[i] as string);
    spans += r.kinds.length;
    if (planted[i] && r.kinds.length === 0) missed++;
    if (!planted[i]) falsePositives += r.kinds.length;
  }
  const textSeconds = medianSeconds(runs, () => {
    for (const d of docs) redactText(d);
  });

  const g = new Gen(7);
  const payloads = docs.map((d, i) => hookPayload(g, d, i));
  let payloadBytes = 0;
  for (const p of payloads) payloadBytes += Buffer.byteLength(JSON.stringify(p));
  let valueRedactions = 0;
  for (const p of payloads) valueRedactions += redactValue(p).redactions.length;
  const valueSeconds = medianSeconds(runs, () => {
    for (const p of payloads) redactValue(p);
  });

  return {
    name: "redact",
    mb_per_s: round(bytes / MB / textSeconds, 1),
    bytes,
    docs: docs.length,
    text_seconds: round(textSeconds, 3),
    value_mb_per_s: round(payloadBytes / MB / valueSeconds, 1),
    value_bytes: payloadBytes,
    value_seconds: round(valueSeconds, 3),
    runs,
    spans,
    value_redactions: valueRedactions,
    planted_docs: planted.filter(Boolean).length,
    planted_missed: missed,
    false_positive_spans: falsePositives,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runRedactBench();
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
