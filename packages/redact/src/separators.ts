// The `=` and `:` anchors: a key and its value (`password: ...`, `API_KEY=...`), a URL's userinfo, an
// encoded key file after a separator, a .pgpass line, a signed URL's signature.
//
// They are the most common of the anchor characters (one in sixty characters of agent traffic), and in the
// master regex (./anchors.ts) they cost as much as all the others together: irregexp enters every branch's
// lookbehind at each of them. Here the scan (./scan.ts) finds them with indexOf, at memchr speed, and each
// branch is a few character reads first: the two that match most often (a key, a label) decide in code,
// exactly as their regex; the others read a necessary condition, and only where it holds run their sticky
// regex, at one separator in a hundred. A regex call costs as much as a hundred reads.
// packages/redact/test/separators.test.ts holds every branch to its regex at every separator of the corpora.

import { grepColon } from "./agent-view.ts";
import { type EndingIndex, endingIndex, endsWithOneOf, wordsOf } from "./alternation.ts";
import { type Branch, encodedKey } from "./anchors.ts";
import { charTable, isB64Code, isBlank, isDigit, isLower, isQuote, isUpper } from "./chars.ts";
import { dotenvValue } from "./dotenv.ts";
import { fromSeparator } from "./key-rules.ts";
import { breakBefore, jsonValueStart } from "./lines.ts";
import { isPasswordPlaceholder, isPlaceholder } from "./placeholders.ts";
import { generatedKey, oracleLogin, slashPassword } from "./positional.ts";
import { colonLabel } from "./prose.ts";
import { AWS_PRESIGNED, AZURE_SAS, FCM_KEY, TELEGRAM } from "./provider-rules.ts";
import { escapeAware, push, type Span, tryRule } from "./rule.ts";
import { scanState } from "./scan-state.ts";

const AUTHORITY_END = charTable("/?#\"'<>\\`");

function urlCredentials(text: string, end: number): Span | null {
  // Authority ends at the first / ? # whitespace or quote; userinfo ends at its LAST '@'
  // so that an unencoded '@' inside a password is still covered.
  const limit = Math.min(text.length, end + 1024);
  let at = -1;
  let i = end;
  let cut = -1;
  for (; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 64) at = i;
    else if (c === 35 || c === 63) {
      // An unencoded `#` or `?` in a password (`user:Xk9#mQ@proxy`) would end the authority early.
      if (cut < 0) cut = i;
    } else if (c <= 32 || (c < 128 && AUTHORITY_END[c] === 1)) break;
  }
  if (at < 0 || text.startsWith("[REDACTED:", end)) return null;
  if (cut >= 0 && cut < at) {
    // Only as a password after a user name that is not a host (`localhost:8080?next=a@b` is not one); a
    // user name that is an e-mail address is a user's (`https://me@example.com:pa#ss@host`).
    const colon = text.indexOf(":", end);
    const user = text.slice(end, colon);
    if (
      colon < 0 ||
      colon > cut ||
      (/[.]/.test(user) && !user.includes("@")) ||
      /^[0-9]+[?#]/.test(text.slice(colon + 1, at)) ||
      user === "localhost"
    ) {
      return null;
    }
  }
  const colon = text.indexOf(":", end);
  if (colon >= 0 && colon < at) {
    const pw = text.slice(colon + 1, at);
    // A Sentry DSN of the old form carries its public key as the user and its secret as the password.
    if (HEX32.test(text.slice(end, colon)) && HEX32.test(pw))
      return { s: end, e: at, kind: "sentry_dsn", p: 2 };
    // `postgres:postgres@localhost`, `guest:guest@rabbit`: a quick-start's default, not a secret.
    if (isPlaceholder(pw) || pw === text.slice(end, colon)) return null;
    // Low priority: a provider token used as the password should keep its own kind.
    return { s: colon + 1, e: at, kind: "url_password", p: 1 };
  }
  // Sentry DSNs carry their key as a bare user name, before a sentry.io host or, self-hosted, before a
  // path that is a project's number (`https://<key>@errors.example.com/3`).
  const user = text.slice(end, at);
  if (
    HEX32.test(user) &&
    (text.slice(at, i).includes("sentry") || PROJECT_PATH.test(text.slice(i, i + 12)))
  ) {
    return { s: end, e: at, kind: "sentry_dsn", p: 2 };
  }
  return null;
}

const HEX32 = /^[0-9a-f]{32}$/;
const PROJECT_PATH = /^\/[0-9]{1,10}(?![0-9A-Za-z_./-])/;

function colonUrlOrTelegram(text: string, at: number, cap: string, spans: Span[]): number {
  if (cap.charCodeAt(0) === 47 /* / */) {
    const hit = urlCredentials(text, at + 3);
    // Resume inside a low-priority span so a provider token there can claim its kind.
    return push(spans, hit, at + 3, hit !== null && hit.p === 1 ? hit.s : undefined);
  }
  let s = at;
  while (s > at - 10 && s > 0 && isDigit(text.charCodeAt(s - 1))) s--;
  return push(spans, tryRule(TELEGRAM, text, s), at + 1);
}

function signatureParam(text: string, at: number, _cap: string, spans: Span[]): number {
  const hit =
    text.charCodeAt(at - 1) === 103 /* g */
      ? tryRule(AZURE_SAS, text, at - 3)
      : tryRule(AWS_PRESIGNED, text, at - 15);
  return push(spans, hit, at + 1);
}

// host:port:database:user:password, the whole line (or an echo of it); in a JSON string the line ends at
// an escaped `\n` or the closing quote, and a password's `\:` is doubled.
const PGPASS_LINE =
  /[ \t]*(?:echo[ \t]+["']?)?[A-Za-z0-9_.*[\]-]{1,253}:(?:[0-9]{2,5}|\*):[^:\s]{1,63}:[^:\s]{1,63}:((?:\\{1,3}:|[^\s:"'\\])+)(?=\\{0,7}["']|\\{1,7}[nr]|[ \t]*(?:\r?\n|$|>))/dy;

function pgpassLine(text: string, at: number, _cap: string, spans: Span[]): number {
  let ls = at;
  // The line starts after a break, real or escaped, or a JSON string's quote.
  while (ls > 0 && ls > at - 300 && !breakBefore(text, ls) && text.charCodeAt(ls - 1) !== 34) ls--;
  PGPASS_LINE.lastIndex = ls;
  const pm = PGPASS_LINE.exec(text);
  const g = pm?.indices?.[1];
  if (pm === null || g === undefined || text.indexOf(":", ls) !== at) return at + 1;
  const v = text.slice(g[0], g[1]);
  if (isPasswordPlaceholder(v)) return at + 1;
  spans.push({ s: g[0], e: g[1], kind: "password", p: 1 });
  return g[1];
}

function afterSeparator(text: string, at: number, cap: string, spans: Span[]): number {
  const c = cap.charCodeAt(0);
  if (isDigit(c) || c === 42) return pgpassLine(text, at, cap, spans);
  if (cap.startsWith("APA91b")) return push(spans, tryRule(FCM_KEY, text, at - 11), at + 1);
  const prefix = /LS0t|ewog|eyJ/.exec(cap)?.[0] ?? "";
  return encodedKey(text, at, prefix, spans);
}

// Words that can END a secret-ish key (see keyKind), matched right before a `=` / `:` separator with
// optional closing quote, bracket and blanks.
const KEY_TAIL =
  "[Pp]ass(?:word|wd|phrase|code)?s?|PASS(?:WORD|WD|PHRASE|CODE)?S?|[Pp]wd|PWD|[Pp]w|PW|[Ss]ecrets?|SECRETS?|" +
  "[Tt]oken|TOKEN|[Kk]ey|KEY|[Aa]uth(?:orization)?|AUTH(?:ORIZATION)?|[Cc]ookies?|COOKIES?|" +
  "[Cc]red(?:ential)?s?|CRED(?:ENTIAL)?S?|[Ss]tring|STRING|[Cc]onnstr|CONNSTR|" +
  "(?:[Kk]ey|KEY)[_.]?(?:[Bb]ase|BASE|[Ii][Dd])|[Ll]ogin|LOGIN|[Vv]alue|VALUE|[Pp]sk|PSK|[Bb]earer|BEARER|" +
  "secret_id|[Ee]ncrypt|[Ss]alt|SALT|[Uu]sername";
// Built at the first key a text asks about: a millisecond at load that a hook with recording off, or a
// payload without a separator, would pay for nothing.
let keyTails: EndingIndex | undefined;

function keyTailIndex(): EndingIndex {
  if (keyTails === undefined) keyTails = endingIndex(wordsOf(KEY_TAIL));
  return keyTails;
}

const KEY_LAST = charTable("dDeEgGhHkKlLnNrRsStTwWyY");
const TOKEN = charTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_~-");
const LABEL_END = charTable(",;.!?)");
const URL_STOP = charTable("/@\"'<>\\`");
const isUpperKey = (c: number) => isUpper(c) || isDigit(c) || c === 95;
const inTable = (t: Uint8Array, c: number) => c < 128 && t[c] === 1;

/** What a regex's `\s` matches. */
function isSpace(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

// Each branch below: its regex (the definition, after the `[=:]` anchor) and, at a separator `at`, either
// `capture` (exact: the regex's group where it matches, else null) or `may` (a necessary condition, then
// the regex decides). Each reads a bounded number of characters.

/** `?sig=`, `&sig=`, `X-Amz-Signature=`. */
function maySign(text: string, at: number): boolean {
  const prev = text.charCodeAt(at - 1);
  return text.charCodeAt(at) === 61 && (prev === 103 || prev === 101);
}

/** An encoded key file (blanks, escapes, a quote, then `LS0t`, `ewog` or `eyJ`), an FCM key, a .pgpass port. */
export function mayFollow(text: string, at: number): boolean {
  const next = text.charCodeAt(at + 1);
  let j = at + 1;
  let c = next;
  while (c === 32 || c === 9) c = text.charCodeAt(++j);
  for (let n = 0; n < 7 && c === 92; n++) c = text.charCodeAt(++j);
  if (c === 34 || c === 39) c = text.charCodeAt(++j);
  if (c === 76 || c === 101) return true;
  if (text.charCodeAt(at) !== 58) return false;
  if (next === 65) return true;
  if (next === 42) return text.charCodeAt(at + 2) === 58;
  return isDigit(next) && pgpassPort(text, at + 1);
}

/** `port:database:user:p` after a .pgpass host, at `from`: the port, two fields, a password's first character. */
function pgpassPort(text: string, from: number): boolean {
  let j = from;
  while (j < from + 5 && isDigit(text.charCodeAt(j))) j++;
  if (j - from < 2 || text.charCodeAt(j) !== 58) return false;
  for (let field = 0; field < 2; field++) {
    const s = ++j;
    while (j < s + 63 && j < text.length && !isSpace(text.charCodeAt(j)) && text.charCodeAt(j) !== 58) j++;
    if (j === s || text.charCodeAt(j) !== 58) return false;
  }
  const c = text.charCodeAt(j + 1);
  return j + 1 < text.length && !isSpace(c) && c !== 58;
}

/** `://` and an authority that holds an `@`, or Telegram's `:AA`. */
export function mayUrl(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 58) return false;
  const next = text.charCodeAt(at + 1);
  if (next === 65) return text.charCodeAt(at + 2) === 65;
  if (next !== 47 || text.charCodeAt(at + 2) !== 47) return false;
  const limit = Math.min(text.length, at + 3 + 1024);
  for (let j = at + 3; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c === 64) return true;
    if (isSpace(c) || inTable(URL_STOP, c)) return false;
  }
  return text.charCodeAt(limit) === 64;
}

/** A key tail (`password`, `apiKey`, `TOKEN`) right before the separator, past blanks, a `]`, a quote and its escapes. */
export function keyCapture(text: string, at: number): string | null {
  let k = at;
  let c = text.charCodeAt(k - 1);
  for (let n = 0; n < 8 && (c === 32 || c === 9); n++) c = text.charCodeAt(--k - 1);
  if (c === 93) c = text.charCodeAt(--k - 1);
  if (c === 34 || c === 39 || c === 96) {
    c = text.charCodeAt(--k - 1);
    for (let n = 0; n < 7 && c === 92; n++) c = text.charCodeAt(--k - 1);
  }
  if (!inTable(KEY_LAST, c) || !endsWithOneOf(keyTailIndex(), text, k)) return null;
  return "";
}

/** A clause's colon, blanks and a generated token of 16 to 256 characters (`the token for staging:  4f9c...`). */
export function labelCapture(text: string, at: number): string | null {
  if (text.charCodeAt(at) !== 58) return null;
  let before = text.charCodeAt(at - 1);
  if (isBlank(before)) before = text.charCodeAt(at - 2);
  if (!(isUpper(before) || isLower(before) || before === 41) || !isBlank(text.charCodeAt(at + 1)))
    return null;
  let j = at + 1;
  while (isBlank(text.charCodeAt(j))) j++;
  if (isQuote(text.charCodeAt(j))) j++;
  const s = j;
  while (j < s + 256 && inTable(TOKEN, text.charCodeAt(j))) j++;
  // Shorter runs leave a token character where the regex wants a quote or an end.
  if (j - s < 16 || inTable(TOKEN, text.charCodeAt(j))) return null;
  if (isQuote(text.charCodeAt(j))) j++;
  const c = text.charCodeAt(j);
  if (j < text.length && !isSpace(c) && !inTable(LABEL_END, c)) return null;
  return text.slice(at + 1, j);
}

/** FreeRDP's `/p:`. */
function mayRdp(text: string, at: number): boolean {
  return text.charCodeAt(at) === 58 && text.charCodeAt(at - 1) === 112 && text.charCodeAt(at - 2) === 47;
}

/** A thin JDBC URL's `jdbc:oracle:thin:`. */
function mayJdbc(text: string, at: number): boolean {
  return (
    text.charCodeAt(at - 1) === 110 &&
    text.charCodeAt(at) === 58 &&
    text.startsWith("jdbc:oracle:thin", at - 16)
  );
}

/** Whether `j` starts a line: the text's start, after a newline, or after an escaped `\\n`. */
function lineStartAt(text: string, j: number): boolean {
  const c = text.charCodeAt(j - 1);
  return j === 0 || c === 10 || (c === 110 && text.charCodeAt(j - 2) === 92) || jsonValueStart(text, j);
}

/**
 * A `.env` name at the start of its line (after blanks and an `export`), or a line of 43 base64 characters,
 * right before the `=`. Code's `FOO=` inside a line is common; the line's start is read here, not by the
 * regex.
 */
export function mayLineKey(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 61) return false;
  let r = at;
  while (r > at - 65 && r > 0 && isUpperKey(text.charCodeAt(r - 1))) r--;
  const run = at - r;
  // No character that may stand before a name is a name's, so a name starts where the run does.
  if (run >= 2 && run <= 64 && text.charCodeAt(r) >= 65 && text.charCodeAt(r) <= 90) {
    // Each run of blanks stands before one name only: these walks stay linear over a text.
    let j = r;
    while (j > 0 && isBlank(text.charCodeAt(j - 1))) j--;
    if (lineStartAt(text, j)) return true;
    if (j < r && text.startsWith("export", j - 6)) {
      j -= 6;
      while (j > 0 && isBlank(text.charCodeAt(j - 1))) j--;
      if (lineStartAt(text, j)) return true;
    }
  }
  let b = at;
  while (b > at - 43 && b > 0 && isB64Code(text.charCodeAt(b - 1))) b--;
  return at - b === 43 && lineStartAt(text, b);
}

export interface SeparatorBranch extends Branch {
  /** Exact: the branch's capture where it matches at the separator, else null. */
  capture?: (text: string, at: number) => string | null;
  /** Necessary: false where the branch cannot match; where true, its regex decides. */
  may?: (text: string, at: number) => boolean;
}

const SIGNATURE: SeparatorBranch = {
  src: "(?<=(?:[?&]sig|X-Amz-Signature)=)()",
  handle: signatureParam,
  may: maySign,
};
// After a separator: kubeconfig's `client-key-data: LS0t...` and other base64-wrapped key files, or the
// port field of a .pgpass line.
const FOLLOWING: SeparatorBranch = {
  src: String.raw`(?=([ \t]*\\{0,7}["']?(?:LS0tLS1CRUdJTi|ewogICJ|eyJ)[A-Za-z0-9+/]{200}|(?<=:)APA91b[A-Za-z0-9_-]{100}|(?<=:)(?:[0-9]{2,5}|\*):[^:\s]{1,63}:[^:\s]{1,63}:[^\s:]))`,
  handle: afterSeparator,
  may: mayFollow,
};
// URLs only matter when their authority holds an '@'.
const URL: SeparatorBranch = {
  src: String.raw`(?<=:)(?=(\/\/[^\s/@"'<>\\` + "`" + "]{0,1024}@|AA[0-9A-Za-z_-]{33}(?![0-9A-Za-z_-])))",
  handle: colonUrlOrTelegram,
  may: mayUrl,
};
// A cheap one-character test on the key's last letter before the word list.
const KEY: SeparatorBranch = {
  src:
    String.raw`(?<=[dDeEgGhHkKlLnNrRsStTwWyY](?:\\{0,7}["'` +
    "`" +
    String.raw`])?\]?[ \t]{0,8}[=:])(?<=(?:${KEY_TAIL})(?:\\{0,7}["'` +
    "`" +
    String.raw`])?\]?[ \t]{0,8}[=:])()`,
  handle: (text, at, _cap, spans) => fromSeparator(text, at, spans),
  keyed: true,
  capture: keyCapture,
};
// A clause that names a secret, then a colon and a generated token (./prose.ts).
const LABEL: SeparatorBranch = {
  src: "(?<=[A-Za-z)][ \\t]?:)(?=([ \\t]+[`'\"]?[A-Za-z0-9+/_~-]{16,256}[`'\"]?)(?:[\\s,;.!?)]|$))",
  handle: colonLabel,
  keyed: true,
  capture: labelCapture,
};
// FreeRDP's `/p:PASSWORD`.
const RDP: SeparatorBranch = { src: String.raw`(?<=[ \t"']\/p:)()`, handle: slashPassword, may: mayRdp };
// A thin JDBC URL's `user/password@host` (./positional.ts).
const JDBC: SeparatorBranch = {
  src: String.raw`(?<=jdbc:oracle:thin:)(?=([A-Za-z0-9_$#]{1,30}\/(?:"[^"\n]{1,128}"|[^\s@/"']{1,128})@))`,
  handle: oracleLogin,
  may: mayJdbc,
};
// At the start of a line (or of a JSON string's value, where a tool's result starts with a file's first
// line): a .env line's `NAME=` whatever it is called (./dotenv.ts), or a line of 43 base64 characters and
// its `=` (a 32-byte key that `consul keygen` or `wg genkey` printed).
const LINE_KEY: SeparatorBranch = {
  src: String.raw`(?<=(?:^|\n|\\n|"[ \t]*:[ \t]*\\{0,3}")((?:[ \t]*(?:export[ \t]+)?[A-Z][A-Z0-9_]{1,63})|[A-Za-z0-9+/]{43})=)`,
  handle: (text, at, cap, spans) =>
    cap.length === 43 && /[a-z+/]/.test(cap)
      ? generatedKey(text, at, cap, spans)
      : dotenvValue(text, at, cap, spans),
  keyed: true,
  may: mayLineKey,
};

/** The branches tried at a separator, in their order; each regex has exactly one capturing group. */
export const SEPARATOR_BRANCHES: readonly SeparatorBranch[] = [
  SIGNATURE,
  FOLLOWING,
  URL,
  KEY,
  LABEL,
  RDP,
  JDBC,
  LINE_KEY,
];

/** A branch's regex as the scan runs it: the anchor, then its source, sticky. */
export function separatorRegex(b: SeparatorBranch): RegExp {
  return new RegExp(escapeAware(`[=:](?:${b.src})`), "y");
}

const STICKY = new Map<SeparatorBranch, RegExp>();
for (const b of SEPARATOR_BRANCHES) if (b.capture === undefined) STICKY.set(b, separatorRegex(b));

/** What matched at the last separator `separatorMatch` answered for: the branch and its capture. */
export const matched: { branch: SeparatorBranch; cap: string } = { branch: KEY, cap: "" };

function tried(b: SeparatorBranch, text: string, at: number): boolean {
  const re = STICKY.get(b) as RegExp;
  re.lastIndex = at;
  const m = re.exec(text);
  if (m === null) return false;
  matched.branch = b;
  matched.cap = m[1] as string;
  return true;
}

function captured(b: SeparatorBranch, cap: string | null): boolean {
  if (cap === null) return false;
  matched.branch = b;
  matched.cap = cap;
  return true;
}

// One read of the characters around a separator rules most branches out: what each can have there.
const FOLLOWS = 1; // after the separator, the start of an encoded key's way (blanks, escapes, a quote, L, e)
const KEY_ENDS = 2; // before it, the end of a key or what may stand between a key and its separator
const LINE_KEY_ENDS = 4; // before a `=`, the end of a .env name or of a base64 line
const AROUND = new Uint8Array(128);
function mark(chars: string, what: number): void {
  for (let i = 0; i < chars.length; i++) {
    const c = chars.charCodeAt(i);
    AROUND[c] = (AROUND[c] as number) | what;
  }
}
mark(" \t\\\"'Le", FOLLOWS);
mark("dDeEgGhHkKlLnNrRsStTwWyY \t]\"'`", KEY_ENDS);
mark("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_", LINE_KEY_ENDS);
const around = (c: number, what: number) => c < 128 && ((AROUND[c] as number) & what) !== 0;

/**
 * Whether a branch matches at the separator `at`: the first that does, in the order one regex of all of
 * them would try them (the branches of `=`, then of `:`), is left in `matched`.
 */
export function separatorMatch(text: string, at: number): boolean {
  const prev = text.charCodeAt(at - 1);
  const next = text.charCodeAt(at + 1);
  if (text.charCodeAt(at) === 61) {
    return (
      ((prev === 103 || prev === 101) && tried(SIGNATURE, text, at)) ||
      (around(next, FOLLOWS) && mayFollow(text, at) && tried(FOLLOWING, text, at)) ||
      (around(prev, KEY_ENDS) && captured(KEY, keyCapture(text, at))) ||
      (around(prev, LINE_KEY_ENDS) && mayLineKey(text, at) && tried(LINE_KEY, text, at))
    );
  }
  // grep's `path:12:`: noted for ./text.ts, which then reads the text without those prefixes too.
  if (isDigit(next) && !scanState.grepLine && grepColon(text, at)) scanState.grepLine = true;
  return (
    ((around(next, FOLLOWS) || next === 65 || next === 42 || isDigit(next)) &&
      mayFollow(text, at) &&
      tried(FOLLOWING, text, at)) ||
    ((next === 47 || next === 65) && mayUrl(text, at) && tried(URL, text, at)) ||
    (around(prev, KEY_ENDS) && captured(KEY, keyCapture(text, at))) ||
    ((next === 32 || next === 9) && captured(LABEL, labelCapture(text, at))) ||
    (prev === 112 && mayRdp(text, at) && tried(RDP, text, at)) ||
    (prev === 110 && mayJdbc(text, at) && tried(JDBC, text, at))
  );
}
