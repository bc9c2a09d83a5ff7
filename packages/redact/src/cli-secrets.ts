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

// The login commands that take their token as an argument; `vault login -method=…` takes none.
const LOGIN_TOKEN =
  /\b(?:vault[ \t]+login|snyk[ \t]+auth|ngrok[ \t]+authtoken|doctl[ \t]+auth[ \t]+init[ \t]+-t|fly(?:ctl)?[ \t]+auth[ \t]+token)[ \t]+(?:(["'])([^"'\s]{8,4096})\1|([^\s"'|;&\\-][^\s"'|;&\\]{7,4095}))(?=[\s;&|"')]|$)/dg;

/** Gated on the commands' words (./scan.ts); the token must look generated: `vault login root` is a name. */
export function loginTokens(text: string, spans: Span[]): void {
  LOGIN_TOKEN.lastIndex = 0;
  for (let m = LOGIN_TOKEN.exec(text); m !== null; m = LOGIN_TOKEN.exec(text)) {
    const g = m.indices?.[2] ?? m.indices?.[3];
    if (g === undefined) continue;
    const v = text.slice(g[0], g[1]);
    if (!looksGenerated(v) || isPlaceholder(v)) continue;
    spans.push({ s: g[0], e: g[1], kind: "token", p: 1 });
  }
}

/** Whether `text` may hold one of the login commands. */
export function mayHoldLoginToken(text: string): boolean {
  return text.includes(" login ") || text.includes(" auth") || text.includes("authtoken");
}
