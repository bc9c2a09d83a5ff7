// Secrets on a command line: `-p` / `-u` / `-a` of the commands where they are passwords, single-dash long
// options, fish's `set -x`, `config set KEY VALUE`, a password piped to `--password-stdin`, .netrc entries.
import { isBlank, isKeyCode, isQuote, lineBefore } from "./chars.ts";
import { assignment, MAX_KEY, MAX_VALUE } from "./key-rules.ts";
import { keyKind } from "./keys.ts";
import { isPasswordPlaceholder, isPlaceholder, placeholderFor } from "./placeholders.ts";
import { htpasswdBatch, words } from "./positional.ts";
import { printedCommand } from "./printed.ts";
import { escapeAware, push, rule, type Span, tryRule } from "./rule.ts";
import { cmdCache } from "./scan-state.ts";
import { dashTable } from "./tables.ts";

// `mysql -pSECRET`: the password is glued to -p. `-p` alone prompts and is left alone.
const MYSQL_P = rule("password", String.raw`-p(?!assword)['"]?([^\s'"\\-][^\s'"\\]{0,200})`);
// Commands whose `-p` takes the password glued to it: MySQL's and MariaDB's clients, 7-Zip and RAR.
const MYSQL_CMD = new RegExp(
  escapeAware(
    String.raw`(?<![A-Za-z0-9_])(?:mysql(?:dump|admin|import|sh)?|mariadb(?:-dump|-admin|-import|dump|admin)?|7z[az]?|7zz|u?nrar|rar)\s`,
  ),
);
const CURL_U = rule(
  "password",
  // The user may be empty: `curl -u :TOKEN` sends a token as the password.
  String.raw`(?:-[uU]|--(?:proxy-)?user)(?:[ \t]+|=)?\\?['"]?[^\s:'"@\\]{0,128}:([^\s'"\\]{1,256})`,
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
const PW_CMD = command(
  `(?:(?:docker|podman|buildah|nerdctl|oras|skopeo|crane|helm(?: registry)?|cf) login|az login|cf auth|mongo(?:sh|dump|restore)?|sshpass|cqlsh|cypher-shell|twine(?: upload)?|rabbitmqadmin)`,
);
const REDIS_CMD = command("redis-cli");

function command(names: string): RegExp {
  return new RegExp(escapeAware(String.raw`(?<![A-Za-z0-9_-])${names}\s`));
}

// One-letter options that take a secret, by the commands whose manuals say so: elsewhere `-P` is a
// port or a path, `-w` a timeout, `-k` insecure, `-t` a tag, `-N` a count.
const SHORT_SECRETS: Record<string, { cmd: RegExp; kind: string }> = {
  p: { cmd: PW_CMD, kind: "password" },
  a: { cmd: REDIS_CMD, kind: "password" },
  b: { cmd: CURL_CMD, kind: "cookie" },
  // sqlcmd/bcp (SQL Server), mosquitto, zip/unzip, ssh-keygen's old passphrase.
  P: {
    cmd: command("(?:sqlcmd|bcp|osql|mosquitto_(?:pub|sub|rr)|zip|unzip|ssh-keygen)"),
    kind: "password",
  },
  // OpenLDAP's bind password.
  w: {
    cmd: command("ldap(?:search|modify|add|delete|passwd|whoami|compare|modrdn|exop|url)"),
    kind: "password",
  },
  k: { cmd: command("openssl (?:enc|aes-[0-9]+-[a-z]+|des3?)"), kind: "password" },
  N: { cmd: command("ssh-keygen"), kind: "password" },
  // Vercel's `-t` is `--token`.
  t: { cmd: command("(?:codecov|vercel|vc)"), kind: "token" },
};
const BUNDLE = /\bbundle[ \t]+config[ \t]+(?:set[ \t]+)?$/;
// `user%password` (Samba) and `user:password` (HTTPie): the secret is the part after the separator.
const SAMBA_CMD = command("(?:smbclient|rpcclient|smbmap|smbcacls|net (?:ads|rpc))");
const HTTPIE_CMD = command("(?:https?|httpie)");

// Options of the commands that print a secret (./printed.ts): `-field=`, `-o tsv`, `base64 -d`, `-w`, ...
const PRINTER_OPTION = /^--?(?:field|o|output|d|decode|D|di|w|plain|secret|with-decryption)\b/;

export function dashOption(text: string, at: number, cap: string, spans: Span[]): number {
  const c = cap.charCodeAt(0);
  // `---      -----`: the rule under a table's header (./tables.ts).
  if (c === 45 && cap.charCodeAt(1) === 45 && cap.includes(" ")) return dashTable(text, at, spans);
  // Only the options a printing command takes (-o, -d, -D, -w, --...) pay for the test.
  if (
    (c === 45 || c === 111 || c === 100 || c === 68 || c === 119 || c === 102) &&
    PRINTER_OPTION.test(text.slice(at, at + 20))
  )
    printedCommand(text, at, spans);
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
  const form = optionForm(text, at, cap, spans);
  if (form >= 0) return form;
  if (c1 === 32 || c1 === 9 || c1 === 61) {
    // `docker login -u bot -p VALUE`, `redis-cli -a VALUE`, `curl -b "session=...; csrf=..."`.
    // HTTPie's `-a user:password` (its -u is not a credential; curl's is, below).
    if (c === 97 && commandBefore(text, at, HTTPIE_CMD)) return afterSeparator(text, at + 2, ":", spans);
    if (c === 85 /* U */ && commandBefore(text, at, SAMBA_CMD))
      return afterSeparator(text, at + 2, "%", spans);
    const short = SHORT_SECRETS[cap[0] as string];
    if (short !== undefined) {
      if (!commandBefore(text, at, short.cmd)) return at + 1;
      return argumentValue(text, at + 2, spans, short.kind);
    }
  }
  if (
    text.startsWith("--auth", at) &&
    /^--auth[ \t=]/.test(text.slice(at, at + 7)) &&
    commandBefore(text, at, HTTPIE_CMD)
  )
    return afterSeparator(text, at + 7, ":", spans);
  if (text.startsWith("--password-stdin", at)) return pipedPassword(text, at, spans, at + 16);
  // `echo PASSWORD | sudo -S ...` reads the password from stdin.
  if (c === 83)
    return /\bsudo[ \t]+$/.test(lineBefore(text, at)) ? pipedPassword(text, at, spans, at + 2) : at + 1;
  const curl =
    c === 117 /* u */ || c === 85 || text.startsWith("--user", at) || text.startsWith("--proxy-user", at);
  if (curl || c === 112 /* p */) {
    const rule = curl ? CURL_U : MYSQL_P;
    const hit = commandBefore(text, at, curl ? CURL_CMD : MYSQL_CMD) ? tryRule(rule, text, at) : null;
    if (hit !== null && !isPasswordPlaceholder(text.slice(hit.s, hit.e))) return push(spans, hit, at + 1);
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
  if (v.length === 0 || text.charCodeAt(vs) === 45 || placeholderFor(kind, v)) return from;
  spans.push({ s: vs, e: ve, kind, p: 1 });
  return ve;
}

/**
 * Options that mark a command's positional secret: htpasswd's `-b FILE USER PASSWORD`, Bundler's
 * `config set --global HOST user:password`, `kubectl create secret --from-literal=KEY=VALUE`.
 * Returns where to resume, or -1 when the option is none of them.
 */
function optionForm(text: string, at: number, cap: string, spans: Span[]): number {
  if ((cap.charCodeAt(0) === 98 || cap.startsWith("cb")) && !/[^bcB \t]/.test(cap)) {
    const next = htpasswdBatch(text, at, spans);
    if (next >= 0) return next;
  }
  if (
    (text.startsWith("--global", at) || text.startsWith("--local", at)) &&
    BUNDLE.test(lineBefore(text, at))
  ) {
    const cred = words(text, at, Math.min(text.length, at + 600), 3)[2];
    if (cred !== undefined) {
      const colon = cred[0] + text.slice(cred[0], cred[1]).indexOf(":");
      if (colon >= cred[0] && !isPasswordPlaceholder(text.slice(colon + 1, cred[1])))
        spans.push({ s: colon + 1, e: cred[1], kind: "password", p: 1 });
      return cred[1];
    }
  }
  if (text.startsWith("--from-literal=", at)) return fromLiteral(text, at, spans);
  if (text.startsWith("--secret", at) && /^--secret(?:[ \t]|$)/.test(text.slice(at, at + 9)))
    return configSecret(text, at, spans);
  return -1;
}

/**
 * Pulumi's `config set --secret KEY VALUE` (or `config set KEY VALUE --secret`): the value, not the key
 * the option would otherwise take for its own.
 */
function configSecret(text: string, at: number, spans: Span[]): number {
  const line = lineBefore(text, at);
  if (/\bconfig[ \t]+set[ \t]+$/.test(line)) {
    const w = words(text, at, Math.min(text.length, at + 600), 3)[2];
    if (w === undefined) return at + 1;
    const v = text.slice(w[0], w[1]);
    if (!isPlaceholder(v) && !v.startsWith("-")) spans.push({ s: w[0], e: w[1], kind: "secret", p: 1 });
    return w[1];
  }
  const after = /\bconfig[ \t]+set[ \t]+\S+[ \t]+(["']?)([^\s"']+)\1[ \t]+$/d.exec(line);
  const g = after?.indices?.[2];
  if (after === null || g === undefined || isPlaceholder(after[2] as string)) return at + 1;
  const base = at - line.length;
  spans.push({ s: base + g[0], e: base + g[1], kind: "secret", p: 1 });
  return at + 9;
}

function fromLiteral(text: string, at: number, spans: Span[]): number {
  const rel = text.slice(at + 15, at + 15 + 253).indexOf("=");
  const eq = at + 15 + rel;
  if (rel < 0 || !/\bcreate[ \t]+secret\b/.test(lineBefore(text, at))) return at + 1;
  return Math.max(argumentValue(text, eq + 1, spans, "kubernetes_secret"), at + 1);
}

/** The part after `sep` of the next shell word (`user:password`, `user%password`). */
function afterSeparator(text: string, from: number, sep: string, spans: Span[]): number {
  let p = from;
  while (p < text.length && isBlank(text.charCodeAt(p))) p++;
  if (isQuote(text.charCodeAt(p))) p++;
  let e = p;
  const limit = Math.min(text.length, p + MAX_VALUE);
  while (e < limit && text.charCodeAt(e) > 32 && !isQuote(text.charCodeAt(e))) e++;
  const rel = text.slice(p, e).indexOf(sep);
  if (rel < 0) return from;
  const i = p + rel;
  const v = text.slice(i + 1, e);
  if (v.length === 0 || isPasswordPlaceholder(v)) return from;
  spans.push({ s: i + 1, e, kind: "password", p: 1 });
  return e;
}

/** A .netrc entry (`machine h login u password SECRET`) starting after the line break at `at`. */
const NETRC_ENTRY =
  /(?:\\+n|\n|")?[ \t]*(?:machine[ \t]+[^\s\\]+|default)(?:(?:\s|\\+[nrt])+(?:login|account|port)[ \t]+[^\s\\]+)*(?:\s|\\+[nrt])+password[ \t]+/y;

// The entry's first word; where it starts a line (after blanks, a line break, `\n` or a quote) is checked
// backwards from it: a regex that starts with the line break cannot skip ahead (2 ms a MB, this 0.6).
const NETRC_WORD = /(?:machine|default)[ \t]/g;

/** Where the line holding the word at `w` starts, when only blanks come before it there; else -1. */
function netrcLineStart(text: string, w: number): number {
  let j = w;
  while (j > 0 && isBlank(text.charCodeAt(j - 1))) j--;
  if (j === 0) return 0;
  const c = text.charCodeAt(j - 1);
  if (c === 10 || c === 34) return j - 1;
  return c === 110 && text.charCodeAt(j - 2) === 92 ? j - 2 : -1;
}

export function netrcEntries(text: string, spans: Span[]): void {
  NETRC_WORD.lastIndex = 0;
  for (let m = NETRC_WORD.exec(text); m !== null; m = NETRC_WORD.exec(text)) {
    const start = netrcLineStart(text, m.index);
    if (start < 0) continue;
    NETRC_ENTRY.lastIndex = start;
    if (NETRC_ENTRY.test(text))
      NETRC_WORD.lastIndex = Math.max(argumentValue(text, NETRC_ENTRY.lastIndex, spans), start + 1);
  }
}

/**
 * `aws configure set aws_secret_access_key SECRET`, `npm config set //host/:_authToken SECRET`,
 * `rclone config create s3 s3 secret_access_key SECRET`: a key, a blank, the value. `at` is an
 * underscore inside the key.
 */
export function spacedKey(text: string, at: number, _cap: string, spans: Span[]): number {
  let ks = at;
  while (ks > 0 && ks > at - 64 && /[A-Za-z0-9_]/.test(text[ks - 1] as string)) ks--;
  let ke = at;
  while (ke < text.length && /[A-Za-z0-9_]/.test(text[ke] as string)) ke++;
  const kind = keyKind(text.slice(ks, ke));
  const line = lineBefore(text, ks);
  // `aws configure get aws_secret_access_key`: the value is what it prints.
  if (kind !== null && /\bconfigure[ \t]+get[ \t]+$/.test(line)) {
    printedCommand(text, at, spans);
    return ke;
  }
  if (kind === null || !/\bconfig(?:ure)?[ \t]/.test(line)) return at + 1;
  return Math.max(argumentValue(text, ke, spans, kind), at + 1);
}

// `echo SECRET | docker login -u bot --password-stdin`: the secret is the echoed word.
const PIPED_SECRET =
  /(?:^|[\s;&("'`])(?:echo|printf)[ \t]+(?:-[ne][ \t]+)?(["']?)([^\s'"|\\$]{4,512})\1[ \t]*\|[^|\n]*$/d;

function pipedPassword(text: string, ks: number, spans: Span[], miss: number): number {
  const line = lineBefore(text, ks);
  const m = PIPED_SECRET.exec(line);
  const g = m?.indices?.[2];
  if (m === null || g === undefined || isPasswordPlaceholder(m[2] as string)) return miss;
  const base = ks - line.length;
  spans.push({ s: base + g[0], e: base + g[1], kind: "password", p: 1 });
  return miss;
}
