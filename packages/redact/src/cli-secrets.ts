// Secrets a command line gives a CLI without an option to name them: a here-string into a command that
// reads a secret from stdin (`gh auth login --with-token <<< …`, `wrangler secret put KEY <<< "…"`), and
// the token a login command takes as its argument (`vault login …`, `snyk auth …`, `ngrok authtoken …`).
import { lineBefore } from "./chars.ts";
import { lineEndIn } from "./lines.ts";
import { isPasswordPlaceholder, isPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";
import { looksGenerated } from "./split.ts";

// What reads a secret from stdin: a login's `--with-token` or `--password-stdin`, a store's `secret put`.
const STDIN_READER =
  /(?:--with-token|--password-stdin|--stdin|\bsecrets?[ \t]+(?:put|set|create|add|import)\b|\bchpasswd\b|\bsecret-tool[ \t]+store\b)/;
const HERE_VALUE = /^<<<[ \t]*(?:(["'])([^"'\n\\]{1,4096})\1|([^\s"'|;&\\]{1,4096}))/d;

/** `… <<< VALUE` after a command that reads a secret from stdin; gated on `<<<` (./scan.ts). */
export function hereStrings(text: string, spans: Span[]): void {
  for (let i = text.indexOf("<<<"); i >= 0; i = text.indexOf("<<<", i + 3)) {
    if (!STDIN_READER.test(lineBefore(text, i))) continue;
    const m = HERE_VALUE.exec(text.slice(i, lineEndIn(text, i, 4200)));
    const g = m?.indices?.[2] ?? m?.indices?.[3];
    if (m === null || g === undefined) continue;
    const v = text.slice(i + g[0], i + g[1]);
    if (v.startsWith("$") || isPasswordPlaceholder(v)) continue;
    spans.push({ s: i + g[0], e: i + g[1], kind: "token", p: 1 });
  }
}

// The login commands that take their token as an argument; `vault login -method=…` takes none. Each is
// tried where its verb stands, a `login` or an `auth`: one regex over the whole text tried its command
// words at every position (0.35 ms a MB).
const TOKEN_ARG = String.raw`[ \t]+(?:(["'])([^"'\s]{8,4096})\1|([^\s"'|;&\\-][^\s"'|;&\\]{7,4095}))(?=[\s;&|"')]|$)`;
const AFTER_LOGIN = new RegExp(String.raw`(?<=\bvault[ \t]+)login${TOKEN_ARG}`, "dy");
const AFTER_AUTH = new RegExp(
  String.raw`(?:(?<=\bsnyk[ \t]+)auth|(?<=\bngrok[ \t]+)authtoken|(?<=\bdoctl[ \t]+)auth[ \t]+init[ \t]+-t|(?<=\bfly(?:ctl)?[ \t]+)auth[ \t]+token)${TOKEN_ARG}`,
  "dy",
);

/**
 * Where the first "auth" of `text` at or after `from` is, or -1. Found through its "uth", which skips
 * faster than "auth" (0.2 vs 0.4 ms a MB): `u` is rarer than `a`.
 */
export function authAt(text: string, from: number): number {
  for (let i = text.indexOf("uth", from + 1); i > 0; i = text.indexOf("uth", i + 3))
    if (text.charCodeAt(i - 1) === 97) return i - 1;
  return -1;
}

/**
 * The token after a login command's verb; `login` tells whether the text holds the word, `auth` is its
 * first "auth" (./scan.ts looks for both once). The token must look generated: `vault login root` is a name.
 */
export function loginTokens(text: string, login: boolean, auth: number, spans: Span[]): void {
  if (login)
    for (let i = text.indexOf("login"); i >= 0; i = text.indexOf("login", i + 5))
      tokenAt(AFTER_LOGIN, text, i, spans);
  for (let i = auth; i >= 0; i = authAt(text, i + 4)) tokenAt(AFTER_AUTH, text, i, spans);
}

function tokenAt(re: RegExp, text: string, at: number, spans: Span[]): void {
  re.lastIndex = at;
  const m = re.exec(text);
  const g = m?.indices?.[2] ?? m?.indices?.[3];
  if (g === undefined) return;
  const v = text.slice(g[0], g[1]);
  if (!looksGenerated(v) || isPlaceholder(v)) return;
  spans.push({ s: g[0], e: g[1], kind: "token", p: 1 });
}
