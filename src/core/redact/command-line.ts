// Secrets on a command line: `-p` / `-u` / `-a` of the commands where they are passwords, single-dash long
// options, fish's `set -x`, `config set KEY VALUE`, a password piped to `--password-stdin`, .netrc entries.
import { isBlank, isKeyCode, isQuote, lineBefore } from "./chars.ts";
import { assignment, MAX_KEY, MAX_VALUE } from "./key-rules.ts";
import { keyKind } from "./keys.ts";
import { isPlaceholder } from "./placeholders.ts";
import { escapeAware, push, rule, type Span, tryRule } from "./rule.ts";
import { cmdCache } from "./scan-state.ts";

// `mysql -pSECRET`: the password is glued to -p. `-p` alone prompts and is left alone.
const MYSQL_P = rule("password", String.raw`-p(?!assword)['"]?([^\s'"\\-][^\s'"\\]{0,200})`);
const MYSQL_CMD = new RegExp(escapeAware(String.raw`(?<![A-Za-z0-9_])mysql(?:dump|admin|import|sh)?\s`));
const CURL_U = rule(
  "password",
  String.raw`(?:-u|--user)(?:[ \t]+|=)?\\?['"]?[^\s:'"@\\]{1,128}:([^\s'"\\]{1,256})`,
);
const CURL_CMD = new RegExp(escapeAware(String.raw`(?<![A-Za-z0-9_])curl\s`));

/**
 * Whether the line holding `at` invokes `cmd` before `at`. The answer is reused
 * for later flags on the same line, so a line of a thousand `-u` stays linear.
 */
function commandBefore(text: string, at: number, cmd: RegExp): boolean {
  if (cmdCache.re === cmd && cmdCache.at <= at) {
    let i = cmdCache.at;
    while (i < at && text.charCodeAt(i) !== 10) i++;
    if (i === at) {
      cmdCache.at = at;
      return cmdCache.found;
    }
  }
  const found = cmd.test(lineBefore(text, at));
  cmdCache.re = cmd;
  cmdCache.at = at;
  cmdCache.found = found;
  return found;
}

// Commands whose `-p VALUE` is a password (elsewhere `-p` is a port or a path).
const PW_CMD = new RegExp(
  escapeAware(
    String.raw`(?<![A-Za-z0-9_-])(?:(?:docker|podman|buildah|nerdctl|oras|skopeo|crane|helm(?: registry)?) login|az login|mongo(?:sh|dump|restore)?|sshpass)\s`,
  ),
);
const REDIS_CMD = new RegExp(escapeAware(String.raw`(?<![A-Za-z0-9_-])redis-cli\s`));

export function dashOption(text: string, m: RegExpExecArray, cap: string, spans: Span[]): number {
  const at = m.index;
  const c = cap.charCodeAt(0);
  // fish's `set -gx NAME VALUE`: a shell assignment without `=`.
  if (cap.endsWith("x ") || cap.endsWith("x\t")) {
    if (!/(?:^|[\s;])set[ \t]+$/.test(lineBefore(text, at))) return at + 1;
    const m2 = /^-[gU]?x[ \t]+([A-Za-z_][A-Za-z0-9_]{0,63})(?=[ \t])/.exec(text.slice(at, at + 80));
    const kind = m2 === null ? null : keyKind(m2[1] as string);
    return kind === null || m2 === null ? at + 1 : argumentValue(text, at + m2[0].length, spans, kind);
  }
  if (cap.length > 2 && c !== 45) {
    // A single-dash long option: keytool's `-storepass X`, openssl's `-passout pass:X`.
    const before = spans.length;
    const next = assignment(text, at, at + 1 + cap.length, spans);
    if (spans.length > before) return next;
    if (c !== 112) return at + 1;
  }
  const c1 = cap.charCodeAt(1);
  if ((c === 112 || c === 97 || c === 98) && (c1 === 32 || c1 === 9 || c1 === 61)) {
    // `docker login -u bot -p VALUE`, `redis-cli -a VALUE`, `curl -b "session=...; csrf=..."`.
    const cmd = c === 97 ? REDIS_CMD : c === 98 ? CURL_CMD : PW_CMD;
    if (!commandBefore(text, at, cmd)) return at + 1;
    return argumentValue(text, at + 2, spans, c === 98 ? "cookie" : "password");
  }
  if (text.startsWith("--password-stdin", at)) return pipedPassword(text, at, spans, at + 16);
  // `echo PASSWORD | sudo -S ...` reads the password from stdin.
  if (c === 83)
    return /\bsudo[ \t]+$/.test(lineBefore(text, at)) ? pipedPassword(text, at, spans, at + 2) : at + 1;
  const curl = c === 117 /* u */ || text.startsWith("--user", at);
  if (curl || c === 112 /* p */) {
    const rule = curl ? CURL_U : MYSQL_P;
    const hit = commandBefore(text, at, curl ? CURL_CMD : MYSQL_CMD) ? tryRule(rule, text, at) : null;
    if (hit !== null && !isPlaceholder(text.slice(hit.s, hit.e))) return push(spans, hit, at + 1);
    return at + 1;
  }
  let ke = at + 2;
  const max = Math.min(text.length, at + MAX_KEY);
  while (ke < max && isKeyCode(text.charCodeAt(ke))) ke++;
  return assignment(text, at, ke, spans);
}

/**
 * The shell word starting at or after `from` (quotes stripped), pushed as a
 * password unless it is a placeholder or the next flag. Returns where to resume.
 */
function argumentValue(text: string, from: number, spans: Span[], kind = "password"): number {
  let p = from;
  const n = text.length;
  while (p < n && isBlank(text.charCodeAt(p))) p++;
  let q = text.charCodeAt(p);
  if (q === 92 && isQuote(text.charCodeAt(p + 1))) q = text.charCodeAt(++p);
  const quoted = q === 34 || q === 39;
  const vs = quoted ? p + 1 : p;
  let ve = vs;
  const limit = Math.min(n, vs + MAX_VALUE);
  while (ve < limit) {
    const ch = text.charCodeAt(ve);
    if (
      quoted
        ? ch === q || ch === 10 || ch === 92
        : ch <= 32 || ch === 34 || ch === 39 || ch === 92 || ch === 59
    )
      break;
    ve++;
  }
  const v = text.slice(vs, ve);
  if (v.length === 0 || text.charCodeAt(vs) === 45 || isPlaceholder(v)) return from;
  spans.push({ s: vs, e: ve, kind, p: 1 });
  return ve;
}

/** A .netrc entry (`machine h login u password SECRET`) starting after the line break at `at`. */
const NETRC_ENTRY =
  /(?:\\n|\n|")?[ \t]*(?:machine[ \t]+[^\s\\]+|default)(?:(?:\s|\\n)+(?:login|account|port)[ \t]+[^\s\\]+)*(?:\s|\\n)+password[ \t]+/y;

const NETRC_START = /(?:^|\n|\\n|")[ \t]*(?:machine|default)[ \t]/g;

export function netrcEntries(text: string, spans: Span[]): void {
  NETRC_START.lastIndex = 0;
  for (let m = NETRC_START.exec(text); m !== null; m = NETRC_START.exec(text)) {
    NETRC_ENTRY.lastIndex = m.index;
    if (NETRC_ENTRY.test(text))
      NETRC_START.lastIndex = Math.max(argumentValue(text, NETRC_ENTRY.lastIndex, spans), m.index + 1);
  }
}

/**
 * `aws configure set aws_secret_access_key SECRET`, `npm config set //host/:_authToken SECRET`,
 * `rclone config create s3 s3 secret_access_key SECRET`: a key, a blank, the value. `at` is an
 * underscore inside the key.
 */
export function spacedKey(text: string, m: RegExpExecArray, _cap: string, spans: Span[]): number {
  const at = m.index;
  let ks = at;
  while (ks > 0 && ks > at - 64 && /[A-Za-z0-9_]/.test(text[ks - 1] as string)) ks--;
  let ke = at;
  while (ke < text.length && /[A-Za-z0-9_]/.test(text[ke] as string)) ke++;
  const kind = keyKind(text.slice(ks, ke));
  if (kind === null || !/\bconfig(?:ure)?[ \t]/.test(lineBefore(text, ks))) return at + 1;
  return Math.max(argumentValue(text, ke, spans, kind), at + 1);
}

// `echo SECRET | docker login -u bot --password-stdin`: the secret is the echoed word.
const PIPED_SECRET =
  /(?:^|[\s;&("'`])(?:echo|printf)[ \t]+(?:-[ne][ \t]+)?(["']?)([^\s'"|\\$]{4,512})\1[ \t]*\|[^|\n]*$/d;

function pipedPassword(text: string, ks: number, spans: Span[], miss: number): number {
  const line = lineBefore(text, ks);
  const m = PIPED_SECRET.exec(line);
  const g = m?.indices?.[2];
  if (m === null || g === undefined || isPlaceholder(m[2] as string)) return miss;
  const base = ks - line.length;
  spans.push({ s: base + g[0], e: base + g[1], kind: "password", p: 1 });
  return miss;
}
