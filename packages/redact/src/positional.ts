// Secrets that a command or config directive takes by position, not by name: `rabbitmqctl add_user NAME
// PASSWORD`, `mc alias set ALIAS URL ACCESS SECRET`, `ngrok config add-authtoken TOKEN`, Poetry's
// `http-basic.NAME USER PASSWORD`, `htpasswd -b FILE USER PASSWORD`, Redis's `requirepass`, HAProxy's
// `insecure-password`, Oracle's `user/password@db`, a password echoed into `wrangler secret put`.
//
// Most forms hang on a character the master regex (./anchors.ts) already stops at (`_`, `-`, `/`, `A`):
// a gate of its own (an `indexOf` per form, ~2 GB/s each) cost a third of the throughput with twenty
// forms, and each new anchor character (`@`, `|`, `>`, `q`) a tenth. Two keep a gate: a `|` (found at
// memchr speed) and the word `requirepass`. The handlers read only the line they are on.
import { lineBefore } from "./chars.ts";
import { isPasswordPlaceholder, placeholderFor } from "./placeholders.ts";
import type { Span } from "./rule.ts";

const MAX_WORD = 256;

/** The end of the line holding `at`; a JSON-escaped `\n` ends it too. */
function lineEnd(text: string, at: number): number {
  const max = Math.min(text.length, at + 2000);
  for (let i = at; i < max; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13 || (c === 92 && text.charCodeAt(i + 1) === 110)) return i;
  }
  return max;
}

/** Shell words of [from, to): quotes stripped, each as [start, end). Stops at a pipe, `;` or `&`. */
export function words(text: string, from: number, to: number, max = 8): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let i = from;
  while (i < to && out.length < max) {
    while (i < to && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    if (i >= to) break;
    const c = text.charCodeAt(i);
    if (c === 124 || c === 59 || c === 38) break;
    if (c === 39 || c === 34) {
      const close = text.indexOf(text[i] as string, i + 1);
      const e = close < 0 || close > to ? to : close;
      out.push([i + 1, e]);
      i = e + 1;
      continue;
    }
    const s = i;
    while (i < to && i - s < MAX_WORD) {
      const ch = text.charCodeAt(i);
      if (ch === 32 || ch === 9 || ch === 124 || ch === 59 || ch === 34 || ch === 39 || ch === 92) break;
      i++;
    }
    out.push([s, i]);
  }
  return out;
}

function pushWord(text: string, w: [number, number] | undefined, spans: Span[], kind: string): number {
  if (w === undefined) return -1;
  const v = text.slice(w[0], w[1]);
  if (v.length === 0 || v.startsWith("-") || v.startsWith("$") || placeholderFor(kind, v)) return -1;
  spans.push({ s: w[0], e: w[1], kind, p: 1 });
  return w[1];
}

/** `at` is right after the form's own words; the secret is the `n`th shell word from there (0-based). */
function nthWord(text: string, at: number, spans: Span[], n: number, kind = "password"): number {
  const ws = words(text, at, lineEnd(text, at), n + 1);
  return Math.max(pushWord(text, ws[n], spans, kind), at);
}

const RABBIT = /\brabbitmqctl[ \t]+(?:-[a-z][ \t]+\S+[ \t]+)*(?:add|change|authenticate)$/;
const NGROK = /\bngrok[ \t]+config[ \t]+add$/;
const POETRY = /\bpoetry[ \t]+config[ \t]+http$/;
const HAPROXY = /(?:^|[\s;])insecure$/;

type Form = (text: string, at: number, spans: Span[]) => number;

/**
 * Forms found by the master regex as a word before `_` or `-` (./scan.ts looks them up by that word):
 * rabbitmqctl's `add_user NAME PASSWORD` / `change_password NAME PASSWORD`, ngrok's `add-authtoken
 * TOKEN`, Poetry's `http-basic.NAME USER PASSWORD`, HAProxy's `insecure-password PASSWORD`.
 */
export const PREFIX_FORMS = new Map<string, Form>();
const rabbit: Form = (text, at, spans) => {
  if (!/^_(?:user|password)[ \t]/.test(text.slice(at, at + 10)) || !RABBIT.test(lineBefore(text, at)))
    return -1;
  return nthWord(text, at + (text.charCodeAt(at + 1) === 117 ? 5 : 9), spans, 1);
};
for (const w of ["add", "change", "authenticate"]) PREFIX_FORMS.set(`_${w}`, rabbit);
PREFIX_FORMS.set("-add", (text, at, spans) =>
  text.startsWith("-authtoken", at) && NGROK.test(lineBefore(text, at))
    ? nthWord(text, at + 10, spans, 0, "token")
    : -1,
);
PREFIX_FORMS.set("-http", (text, at, spans) =>
  text.startsWith("-basic.", at) && POETRY.test(lineBefore(text, at)) ? nthWord(text, at + 7, spans, 2) : -1,
);
PREFIX_FORMS.set("-insecure", (text, at, spans) =>
  text.startsWith("-password", at) && HAPROXY.test(lineBefore(text, at))
    ? nthWord(text, at + 9, spans, 0)
    : -1,
);

// At a line's start: after a break, real or escaped, or a JSON string value's opening quote (`":"`).
const REDIS_DIRECTIVE =
  /(?:^|\n|\\n|"[ \t]*:[ \t]*\\{0,3}"|CONFIG[ \t]+SET[ \t]+)[ \t]*(?:requirepass|masterauth)[ \t]+/g;
/**
 * Whether `text` may hold a Redis directive, given whether it holds "auth" (./scan.ts looks for it once
 * for several rules). `requirepass` is found by its `q`, rare enough that a walk over every `q` costs less
 * than one regex for both words did (0.3 vs 0.5 ms a MB); `masterauth` only where "auth" is.
 */
export function mayHoldRedisDirective(text: string, auth: boolean): boolean {
  for (let i = text.indexOf("q"); i >= 0; i = text.indexOf("q", i + 1))
    if (text.startsWith("requirepass", i - 2)) return true;
  return auth && text.includes("masterauth");
}

/** redis.conf's `requirepass` / `masterauth PASSWORD` (and `CONFIG SET`); ./scan.ts gates on the words. */
export function redisDirectives(text: string, spans: Span[]): void {
  REDIS_DIRECTIVE.lastIndex = 0;
  for (let m = REDIS_DIRECTIVE.exec(text); m !== null; m = REDIS_DIRECTIVE.exec(text)) {
    nthWord(text, m.index + m[0].length, spans, 0);
  }
}

/** The `>` of a redis-cli prompt before `AUTH [user] password`; `at` is the `A`. */
export function redisAuth(text: string, at: number, _cap: string, spans: Span[]): number {
  const ws = words(text, at + 4, lineEnd(text, at + 4), 3);
  return Math.max(pushWord(text, ws.length === 2 ? ws[1] : ws[0], spans, "password"), at + 1);
}

/** The `user/password@` of a thin JDBC URL after its `:` (`cap`), or of an Oracle tool's login. */
export function oracleLogin(text: string, anchor: number, cap: string, spans: Span[]): number {
  const at = anchor + 1;
  const slash = cap.indexOf("/");
  let s = at + slash + 1;
  let e = at + cap.length - 1;
  if (text.charCodeAt(s) === 34 && text.charCodeAt(e - 1) === 34) {
    s++;
    e--;
  }
  if (s < e && !isPasswordPlaceholder(text.slice(s, e))) spans.push({ s, e, kind: "password", p: 1 });
  return at + cap.length;
}

// Oracle's tools log in with `user/password@connect`; gated on the one word (./scan.ts): the tools'
// names in the master regex cost a third of its time at every `/`.
const ORACLE_LOGIN =
  /\b(?:sqlplus|expdp|impdp|sqlldr|rman|dgmgrl)[ \t]+(?:-[A-Za-z]+[ \t]+)*(?:target=)?[A-Za-z0-9_$#.-]{1,30}\/("[^"\n]{1,128}"|[^\s@/"']{1,128})@/dg;

export function oracleTools(text: string, spans: Span[]): void {
  ORACLE_LOGIN.lastIndex = 0;
  for (let m = ORACLE_LOGIN.exec(text); m !== null; m = ORACLE_LOGIN.exec(text)) {
    const g = m.indices?.[1];
    if (g === undefined) continue;
    const quoted = text.charCodeAt(g[0]) === 34;
    const [s, e] = quoted ? [g[0] + 1, g[1] - 1] : g;
    if (s < e && !isPasswordPlaceholder(text.slice(s, e))) spans.push({ s, e, kind: "password", p: 1 });
  }
}

const ECHOED =
  /\b(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+)?(?:(['"])%s(?:\\n)?\1[ \t]+)?(['"]?)([^\s'"|]{1,512})\2[ \t]*$/d;
// What reads a secret from stdin: a store's `secret put/set/import`, `passwd --stdin`, `chpasswd`.
const STORES =
  /^[ \t]*(?:sudo[ \t]+)?(?:(?:npx|bunx|pnpm dlx)[ \t]+)?(?:(?:wrangler|gh|fly|flyctl|vercel|netlify|firebase|doppler|heroku|docker)\b[^|\n]*?\bsecrets?\b[^|\n]*?\b(?:put|set|create|import|add)\b|passwd[ \t]+--stdin\b|(chpasswd)\b)/;

const PIPE_TO_STORE =
  /\|[ \t]*(?:sudo[ \t]+)?(?:(?:npx|bunx)[ \t]+)?(?:wrangler|gh|fly|flyctl|vercel|netlify|firebase|doppler|heroku|docker|passwd|chpasswd)\b/g;

/** `echo SECRET | wrangler secret put NAME` (and `| passwd --stdin`, `| chpasswd`); gated on a `|`. */
export function pipedSecrets(text: string, spans: Span[]): void {
  PIPE_TO_STORE.lastIndex = 0;
  for (let m = PIPE_TO_STORE.exec(text); m !== null; m = PIPE_TO_STORE.exec(text)) {
    const at = m.index;
    const store = STORES.exec(text.slice(at + 1, Math.min(lineEnd(text, at + 1), at + 300)));
    if (store === null) continue;
    const line = lineBefore(text, at);
    const echo = ECHOED.exec(line);
    const g = echo?.indices?.[3];
    if (echo === null || g === undefined) continue;
    let s = at - line.length + g[0];
    const e = at - line.length + g[1];
    // chpasswd reads `user:password`.
    if (store[1] !== undefined) s = text.indexOf(":", s) + 1;
    const v = text.slice(s, e);
    if (s > 0 && s < e && !v.startsWith("$") && !isPasswordPlaceholder(v))
      spans.push({ s, e, kind: "password", p: 1 });
  }
}

/** The `//` of the URL in MinIO's `mc alias set ALIAS URL ACCESS_KEY SECRET_KEY`. */
export function minioAlias(text: string, at: number, _cap: string, spans: Span[]): number {
  const ws = words(text, at, lineEnd(text, at), 3);
  pushWord(text, ws[1], spans, "access_key");
  return Math.max(pushWord(text, ws[2], spans, "secret_key"), at + 1);
}

/** htpasswd's `-b FILE USER PASSWORD` (batch mode takes the password on the command line). */
export function htpasswdBatch(text: string, at: number, spans: Span[]): number {
  if (!/\bhtpasswd[ \t]+$/.test(lineBefore(text, at))) return -1;
  let p = at + 1;
  while (p < text.length && /[a-zA-Z]/.test(text[p] as string)) p++;
  return nthWord(text, p, spans, 2);
}

const FREERDP = /\b(?:[xw]freerdp|sdl-freerdp|freerdp|rdesktop)\b/;

/** FreeRDP's Windows-style `/p:PASSWORD` (the `:` after `/p`). */
export function slashPassword(text: string, at: number, _cap: string, spans: Span[]): number {
  if (!FREERDP.test(lineBefore(text, at))) return at + 1;
  return nthWord(text, at + 1, spans, 0);
}

const KEYGEN =
  /\b(?:consul[ \t]+keygen|wg[ \t]+genkey|openssl[ \t]+rand[ \t]+-base64[ \t]+(?:2[4-9]|[3-9][0-9]|1[0-9]{2}))\b[^\n]*$/;

/** A line of base64 key material (`cap`, with its `=`) right after a command that generates a key. */
export function generatedKey(text: string, at: number, cap: string, spans: Span[]): number {
  const s = at - cap.length;
  if (!/^[ \t]*(?:$|\r?\n|\\{1,7}n|\\{0,7}")/.test(text.slice(at + 1, at + 12))) return at + 1;
  let ls = s - 1;
  if (text.charCodeAt(ls) === 110) while (text.charCodeAt(ls - 1) === 92) ls--;
  if (!KEYGEN.test(lineBefore(text, ls))) return at + 1;
  spans.push({ s, e: at + 1, kind: "secret_key", p: 1 });
  return at + 1;
}
