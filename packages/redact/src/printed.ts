// Output of a command that prints a secret: `aws configure get aws_secret_access_key`, `vault kv get
// -field=password`, `gcloud secrets versions access`, `az keyvault secret show --query value -o tsv`,
// `kubectl get secret ... | base64 -d` (or jq's `@base64d`, a go-template's `base64decode`), `security
// find-generic-password -w`, `doppler secrets get --plain`, `heroku auth:token`, `op read`, `pass show`. The command is the structure that says
// "value": what follows it is redacted, a lone token whole, `key: value` lines by their values.
//
// In a text the command is found at one of its options (./command-line.ts) and its output is the lines
// after it (a shell transcript) or the `"stdout"` string after it (a hook payload serialized as text);
// in a structured payload ./value.ts passes the output strings of an object whose command prints.
import { isPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";
import { scanState } from "./scan-state.ts";
import { looksGenerated } from "./split.ts";

const PRINTER = new RegExp(
  [
    String.raw`\baws\s+configure\s+get\s+\S*(?:secret|token|password)`,
    String.raw`\baws\s+secretsmanager\s+get-secret-value\b.*--output[ =]text`,
    String.raw`\baws\s+ssm\s+get-parameters?\b.*--with-decryption\b.*--output[ =]text`,
    String.raw`\bvault\s+(?:kv\s+get|read)\s.*-field[= ]`,
    String.raw`\bgcloud\s+secrets\s+versions\s+access\b`,
    String.raw`\baz\s+(?:keyvault\s+secret\s+show|storage\s+account\s+(?:keys\s+list|show-connection-string)|acr\s+credential\s+show|cosmosdb\s+keys\s+list|[a-z-]+(?:\s+[a-z-]+)?\s+keys\s+list)\b.*(?:-o|--output)[ =]tsv`,
    String.raw`\bkubectl\s+get\s+secrets?\b.*(?:\bbase64\s+(?:-d|--decode|-D|-di)\b|@base64d|base64decode|b64dec)`,
    String.raw`\bsecurity\s+find-(?:generic|internet)-password\b.*\s-w\b`,
    String.raw`\bdoppler\s+secrets\s+get\b.*--plain\b`,
    String.raw`\bconsul\s+keygen\b|\bwg\s+genkey\b|\bopenssl\s+rand\s+-base64\s+(?:2[4-9]|[3-9][0-9]|1[0-9]{2})\b`,
    // The CLIs that print their own token, and the password managers' `read`/`show`.
    String.raw`\bheroku\s+auth:token\b|\bgh\s+auth\s+token\b|\bvault\s+print\s+token\b|\baws\s+ecr(?:-public)?\s+get-login-password\b`,
    String.raw`\bop\s+read\s|\b(?:go)?pass\s+show\s|\bbw\s+get\s+password\s|\blpass\s+show\b.*--password\b`,
  ].join("|"),
);

// Every printer names one of these tools; the small regex spares most commands (and the hook's start-up)
// the compile and run of the big one.
const PRINTER_TOOL =
  /\b(?:aws|vault|gcloud|az|kubectl|security|doppler|consul|wg|openssl|heroku|gh|op|pass|gopass|bw|lpass)\b/;

export function printsSecret(command: string): boolean {
  return command.length < 4096 && PRINTER_TOOL.test(command) && PRINTER.test(command);
}

const MAX_OUTPUT = 8192;
const PROMPT = /^(?:\$|#|>|❯|PS [^>]*>)[ \t]/;
const FIELD = /^([ \t]*"?)([A-Za-z0-9_.-]{1,128})("?[ \t]*[:=][ \t]*"?)([^"\n]*?)("?,?[ \t]*)$/;

function pushValue(spans: Span[], s: number, e: number, v: string): void {
  if (/[A-Za-z0-9]/.test(v) && !isPlaceholder(v)) spans.push({ s, e, kind: "secret", p: 1 });
}

/** `out` with JSON escapes read (`\\n` a newline), and for each character of the view its offset in `out`. */
function readEscapes(out: string): { view: string; map: number[] } {
  const map: number[] = [];
  let view = "";
  const n = Math.min(out.length, MAX_OUTPUT);
  for (let i = 0; i < n; i++) {
    let c = out[i] as string;
    const at = i;
    if (c === "\\" && i + 1 < n) {
      const x = out[++i] as string;
      c = x === "n" ? "\n" : x === "t" ? "\t" : x === "r" ? "\r" : x;
    }
    view += c;
    map.push(at);
  }
  map.push(n);
  return { view, map };
}

/** Spans for the secret output `out` (text[base, base + out.length)): a lone token whole, else each line's value. */
export function printedOutput(out: string, base: number, spans: Span[]): void {
  const { view, map } = readEscapes(out);
  const push = (s: number, e: number, v: string) =>
    pushValue(spans, base + (map[s] as number), base + (map[e] as number), v);
  let a = 0;
  let b = view.length;
  while (a < b && view.charCodeAt(a) <= 32) a++;
  while (b > a && view.charCodeAt(b - 1) <= 32) b--;
  const body = view.slice(a, b);
  if (body.length === 0) return;
  if (!/\s/.test(body)) {
    push(a, b, body);
    return;
  }
  let ls = a;
  while (ls < b) {
    let le = view.indexOf("\n", ls);
    if (le < 0 || le > b) le = b;
    const line = view.slice(ls, le);
    const f = FIELD.exec(line);
    if (f !== null) {
      const vs = ls + (f[1] as string).length + (f[2] as string).length + (f[3] as string).length;
      push(vs, vs + (f[4] as string).length, (f[4] as string).trim());
    } else if (line.includes("\t")) {
      // `--output text` separates fields by tabs; a field that looks generated is one of the secrets.
      let fs = ls;
      for (const field of line.split("\t")) {
        const t = field.trim();
        const off = fs + field.indexOf(t);
        if (t.length >= 8 && !/\s/.test(t) && looksGenerated(t)) push(off, off + t.length, t);
        fs += field.length + 1;
      }
    } else if (line.trim().length > 0 && !/\s/.test(line.trim())) {
      const t = line.trim();
      const off = ls + line.indexOf(t);
      push(off, off + t.length, t);
    }
    ls = le + 1;
  }
}

/**
 * The line holding `at`, found with indexOf in bounded windows. A JSON-escaped `\n` ends it too, but
 * only in a text with no real line break (a serialized payload): in a shell transcript `\n` is as likely
 * part of the command (`{{"\n"}}`).
 */
function lineBounds(text: string, at: number): [number, number] {
  // Computed once per text: an indexOf that finds nothing reads all of it.
  if (scanState.newlineIn !== text) {
    scanState.newlineIn = text;
    scanState.hasNewline = text.includes("\n");
  }
  const sep = scanState.hasNewline ? "\n" : "\\n";
  const from = Math.max(0, at - 2000);
  const back = text.slice(from, at).lastIndexOf(sep);
  const ls = back < 0 ? from : from + back + sep.length;
  const fwd = text.slice(at, at + 2000).indexOf(sep);
  const le = fwd < 0 ? Math.min(text.length, at + 2000) : at + fwd;
  return [ls, le];
}

const OUTPUT_FIELD =
  /"(?:stdout|output|tool_response|llmContent|returnDisplay|content|result)"[ \t]*:[ \t]*(?:\{[^{}]{0,200}?"(?:stdout|output)"[ \t]*:[ \t]*)?"/g;

/** The end of the JSON string that starts at `from` (the character after its opening quote). */
function jsonStringEnd(text: string, from: number): number {
  const max = Math.min(text.length, from + MAX_OUTPUT);
  for (let i = from; i < max; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i;
  }
  return max;
}

/**
 * At an option of a command line (`at`), whether the command prints a secret; if so, the output after it
 * is redacted. Each command is examined once, and only its own text is tested (PRINTER's `.*` on a line
 * of a thousand commands would be quadratic).
 */
export function printedCommand(text: string, at: number, spans: Span[]): void {
  if (at < scanState.printedEnd) return;
  const [ls, le] = lineBounds(text, at);
  // In a serialized payload the command is a JSON string and its output another one after it.
  const from = Math.max(ls, at - 1024);
  const rel = text.slice(from, at).lastIndexOf('"command"');
  const inJson = rel >= 0;
  let cs = ls;
  let cmdEnd = le;
  if (inJson) {
    const quoted = from + rel;
    const open = text.indexOf('"', text.indexOf(":", quoted + 9) + 1);
    if (open < 0 || open > at) return;
    cs = open + 1;
    cmdEnd = jsonStringEnd(text, cs);
  }
  if (scanState.printedLine === cs) return;
  scanState.printedLine = cs;
  if (!printsSecret(text.slice(cs, Math.min(cmdEnd, cs + 2048)).replace(/\\"/g, '"'))) return;
  if (inJson) {
    // The output field after this command; a search that found none (or found one further on) is reused,
    // so a text of many commands searches it once.
    let s = scanState.outputField;
    if (s === -2) return;
    if (s < cmdEnd) {
      OUTPUT_FIELD.lastIndex = cmdEnd;
      const m = OUTPUT_FIELD.exec(text);
      scanState.outputField = m === null ? -2 : m.index + m[0].length;
      if (m === null) return;
      s = m.index + m[0].length;
    }
    if (s - cmdEnd > 65536) return;
    const e = jsonStringEnd(text, s);
    printedOutput(text.slice(s, e), s, spans);
    scanState.printedEnd = e;
    return;
  }
  // A transcript: the lines after the command, up to the next prompt (in a JSON string, up to its end).
  let s = text.charCodeAt(le) === 92 ? le + 2 : le + 1;
  const start = s;
  if (!scanState.hasNewline) {
    let e = jsonStringEnd(text, start);
    const prompt = text.slice(start, e).search(/\\n(?:\$|#|>|❯) /);
    if (prompt >= 0) e = start + prompt;
    printedOutput(text.slice(start, e), start, spans);
    scanState.printedEnd = e;
    return;
  }
  while (s < text.length && s - start < MAX_OUTPUT) {
    let nl = text.indexOf("\n", s);
    if (nl < 0) nl = text.length;
    if (s > start && PROMPT.test(text.slice(s, Math.min(nl, s + 40)))) break;
    s = nl + 1;
  }
  if (start < text.length) printedOutput(text.slice(start, Math.min(s, text.length)), start, spans);
  scanState.printedEnd = Math.min(s, text.length);
}
