// Key-based text rules: `KEY=value`, `key: value`, `"key": "value"`, `--key value`
// (also `value` beside a `key` / `name` field that names a secret)
import {
  charTable,
  escapedLetterAt,
  hasDigit,
  isBlank,
  isKeyCode,
  isQuote,
  isUpper,
  lineBefore,
} from "./chars.ts";
import { keyKind, splitWords, weakKeyKind } from "./keys.ts";
import { BREAK, INDENT, jsonValueStart } from "./lines.ts";
import { siblingKind } from "./named-pair.ts";
import {
  CODE_KEYWORDS,
  DECIMAL,
  DOTTED,
  DOTTED_NUMBER,
  GENERIC_TYPE,
  HEX_NUMBER,
  HUMP_OR_SNAKE,
  IDENT,
  isPlaceholder,
  placeholderFor,
  SECRET_WORD,
} from "./placeholders.ts";
import type { Span } from "./rule.ts";
import { scanState } from "./scan-state.ts";
import { looksGenerated } from "./split.ts";
import { valueBelow } from "./yaml-blocks.ts";

/** A `value` key at [ks, ke) whose sibling field names a secret (./named-pair.ts). */
function namedValue(text: string, ks: number, ke: number, spans: Span[]): number {
  const kind = siblingKind(text, ks, ke);
  return kind === null ? ke : assignment(text, ks, ke, spans, kind);
}

export const MAX_KEY = 64;
export const MAX_VALUE = 4096;
const SEP_EQ = 1;
const SEP_COLON = 2;
const SEP_FLAG = 3;
const LINE_PREFIX = /^[ \t]*(?:(?:export|declare(?: -[a-zA-Z]+)?|readonly|local|set|ENV|ARG|-)[ \t]+)?$/;
const AUTH_SCHEME =
  /^(?:Bearer|Basic|Token|Bot|Digest|Negotiate|NTLM|OAuth|ApiKey|Key|SSWS|AWS4-HMAC-SHA256|Splunk|GenieKey|DeepL-Auth-Key|Klaviyo-API-Key)[ \t]+/i;

// Where an unquoted value in running code or a query string ends.
const VALUE_STOP = charTable("\"'`,;&)]}<>");
// What may follow a complete value on its line: end of line, a comment, or a closing delimiter.
const VALUE_TAIL = charTable("\n\r#,;}])\\/");

/** Whether only whitespace or a shell/Dockerfile/YAML-list prefix precedes `pos` on its line. */
function atLineStart(text: string, pos: number): boolean {
  const min = Math.max(0, pos - 40);
  let i = pos;
  while (i > min) {
    const c = text.charCodeAt(i - 1);
    if (c === 10 || c === 13) break;
    // A JSON-escaped newline counts as a line break, and a JSON string's opening quote as the text's start.
    if (c === 110 && i >= 2 && text.charCodeAt(i - 2) === 92) break;
    if (c === 34 && jsonValueStart(text, i)) break;
    i--;
  }
  if (i === min && min > 0 && !jsonValueStart(text, i)) return false;
  return LINE_PREFIX.test(text.slice(i, pos));
}

/** A secret-ish word ends right before the `=` / `:` at `sp`: find the whole key, then parse. */
export function fromSeparator(text: string, sp: number, spans: Span[], kindOverride?: string): number {
  let ke = sp;
  while (ke > 0 && isBlank(text.charCodeAt(ke - 1))) ke--;
  if (text.charCodeAt(ke - 1) === 93 /* ] */) ke--;
  if (isQuote(text.charCodeAt(ke - 1))) {
    ke--;
    while (text.charCodeAt(ke - 1) === 92) ke--;
  }
  let ks = ke;
  const min = Math.max(0, ke - MAX_KEY);
  // Stop at an escaped letter: in `\nDB_PASSWORD=` the key starts after the `\n`. Each character is read once.
  let c = text.charCodeAt(ks - 1);
  while (ks > min && isKeyCode(c)) {
    const before = text.charCodeAt(ks - 2);
    if (before === 92) break;
    ks--;
    c = before;
  }
  // A "key" longer than any real name is a base64 run or similar.
  if (ks === ke || (ks === min && ks > 0 && isKeyCode(text.charCodeAt(ks - 1)))) return sp + 1;
  // A label of words: `API key:`, `Secret Access Key:`, Elasticsearch's `New value:` after a reset.
  if (text.charCodeAt(ks - 1) === 32 && kindOverride === undefined && keyKind(text.slice(ks, ke)) === null) {
    const label = labelStart(text, ks, ke);
    if (label !== null) return Math.max(assignment(text, label.ks, ke, spans, label.kind), sp + 1);
  }
  return Math.max(assignment(text, ks, ke, spans, kindOverride), sp + 1);
}

/** The start and kind of a label of up to three words ending in `key` or `value` at [ks, ke), or null. */
function labelStart(text: string, ks: number, ke: number): { ks: number; kind: string } | null {
  const last = text.slice(ks, ke).toLowerCase();
  if (last !== "key" && last !== "value") return null;
  const m = /(?:^|[^A-Za-z0-9_ ])((?:[A-Za-z][A-Za-z0-9]{1,20} ){1,3})$/.exec(
    text.slice(Math.max(0, ks - 66), ks),
  );
  if (m === null) return null;
  const start = ks - (m[1] as string).length;
  const words = text.slice(start, ke);
  if (last === "value") {
    // A tool that prints the new value of a password it reset.
    return /\bnew value$/i.test(words) && /password/i.test(text.slice(Math.max(0, start - 240), start))
      ? { ks: start, kind: "password" }
      : null;
  }
  // The nearest words decide: `Secret Access Key` is an access key, `the primary key` nothing.
  for (let i = start; i < ks; i++) {
    if (i !== start && text.charCodeAt(i - 1) !== 32) continue;
    const kind = keyKind(text.slice(i, ke));
    if (kind !== null) return { ks: i, kind };
  }
  return null;
}

const PHP_ASSIGN = /^[ \t]*=[^=~>]/;
// `const apiKey: string = "..."`, `pub const API_KEY: &str = "..."`, `api_key: Optional[str] = "..."`:
// a type annotation between the name and its literal.
const TYPE_ANNOTATION =
  /^[ \t]*(?:&(?:'static[ \t]+)?)?[A-Za-z_][A-Za-z0-9_.]*(?:<[^<>=\n]{0,40}>|\[[^[\]=\n]{0,40}\])?(?:[ \t]*\|[ \t]*[A-Za-z_][A-Za-z0-9_]*)*[ \t]*=(?![=>])[ \t]*(?=\\{0,7}["'`])/;
// PHP's var_dump: `["password"]=>` then, on the next line, `string(18) "..."`.
const VAR_DUMP = new RegExp(String.raw`^${BREAK}${INDENT}string\([0-9]{1,6}\)[ \t]*(?=\\{0,3}")`);
const WRAPPER =
  /^(?:String::from|String::new|SecretString::(?:new|from)|Secret::new|SecretStr|SecretString|SecureString|Some|String|str|Secret)?\([ \t]*(?=\\{0,3}["'])/;

/**
 * A kind that the surroundings give a key that is not secret-ish by itself:
 * `?key=` in a query string (Google Maps and others), `gh secret set NAME --body VALUE`.
 */
function contextKind(text: string, ks: number, key: string, before: number): string | null {
  if (key === "key" && (before === 63 || before === 38)) return "api_key";
  // `STRIPE_KEY=...`, `primaryKey: ...`, `encrypt = ...`: names that only suggest a secret, believed
  // when the value looks generated (checked once the value is known).
  const weak = weakKeyKind(key);
  if (weak !== null) return `weak:${weak}`;
  // Vault AppRole's `secret_id` (its `role_id` is an identifier).
  if (key === "secret_id" && /\bapprole\b/.test(lineBefore(text, ks))) return "secret";
  if (key === "--body" || key === "body") {
    if (
      /\bsecret set [A-Za-z0-9_-]+[ \t]+(?:--[a-z-]+(?:[ =][^\s-]\S*)?[ \t]+)*--$/.test(
        lineBefore(text, ks + 2),
      )
    )
      return "secret";
  }
  return null;
}

/** One `<key><sep><value>` site under inspection. */
interface Site {
  text: string;
  ks: number;
  key: string;
  kind: string;
  sep: number;
  /** The quote (with any escaping backslashes) that opened right before the key, if any. */
  q0: string;
  /** The key's own quotes closed after it: `"password": ...`. */
  keyQuoted: boolean;
  spaceBefore: boolean;
  spaceAfter: boolean;
  /** Start of the value. */
  p: number;
  /** Whether the key starts its line: read only where it decides something (lineStartOf). */
  lineStart?: boolean;
}

function lineStartOf(site: Site): boolean {
  site.lineStart ??= atLineStart(site.text, site.ks);
  return site.lineStart;
}

/**
 * Parses `<key><sep><value>` for the key at [ks, ke). Pushes the value span when
 * the key is secret-ish and the value a literal; returns where scanning resumes.
 */
export function assignment(
  text: string,
  ks: number,
  ke: number,
  spans: Span[],
  kindOverride?: string,
): number {
  const n = text.length;
  const before = ks > 0 ? text.charCodeAt(ks - 1) : -1;
  // `$KEY` and `${KEY...}` read a variable in a shell; `$key = '...'` assigns one in PHP, Perl and PowerShell.
  if (before === 123 && ks > 1 && text.charCodeAt(ks - 2) === 36) return ke;
  if (before === 36 && !PHP_ASSIGN.test(text.slice(ke, ke + 4))) return ke;

  let dashes = 0;
  while (dashes < 2 && text.charCodeAt(ks + dashes) === 45) dashes++;
  const flag =
    dashes > 0 &&
    (before === -1 || isBlank(before) || before === 10 || isQuote(before) || escapedLetterAt(text, ks - 1));

  // The quote before the key, with the backslashes of however many JSON encodings wrap it.
  let q0 = "";
  if (isQuote(before)) {
    let qs = ks - 1;
    while (qs > 0 && ks - qs < 16 && text.charCodeAt(qs - 1) === 92) qs--;
    q0 = text.slice(qs, ks);
  }
  let p = ke;
  let keyQuoted = false;
  if (q0 && text.startsWith(q0, p)) {
    p += q0.length;
    keyQuoted = true;
    // os.environ["API_KEY"] = ...
    if (text.charCodeAt(p) === 93) p++;
  } else if (before === 91 && text.charCodeAt(p) === 93) {
    // print_r's `[password] => VALUE`.
    p++;
  }
  const p0 = p;
  while (p < n && isBlank(text.charCodeAt(p))) p++;
  const spaceBefore = p > p0;
  let sep: number;
  const c = text.charCodeAt(p);
  const c2 = text.charCodeAt(p + 1);
  if (c === 61) {
    if (c2 === 61) return ke; // comparison
    sep = SEP_EQ;
    p += c2 === 62 ? 2 : 1;
  } else if (c === 58) {
    if (c2 === 58) return ke; // scope operator
    sep = c2 === 61 ? SEP_EQ : SEP_COLON;
    p += c2 === 61 ? 2 : 1;
  } else if (flag && spaceBefore && !keyQuoted) {
    // `--with-token        Read token from stdin`: help text aligns a description column.
    if (p - p0 >= 2) return ke;
    sep = SEP_FLAG;
  } else {
    return ke;
  }
  if (flag && sep === SEP_EQ && !spaceBefore) sep = SEP_FLAG;

  const key = text.slice(ks + dashes, ke);
  const kind =
    kindOverride ??
    (key === "AccountKey" ? "azure_storage_key" : (keyKind(key) ?? contextKind(text, ks, key, before)));
  if (kind === null) {
    if (key === "value" || key === "VALUE" || key === "Value") return namedValue(text, ks, ke, spans);
    return ke;
  }

  return literal({ text, ks, key, kind, sep, q0, keyQuoted, spaceBefore, spaceAfter: false, p }, ke, spans);
}

/** Whether an escaped line break starts at `p`: `\n` in a JSON string, `\\n` in one inside another. */
function escapedBreakAhead(text: string, p: number): boolean {
  let q = p;
  while (q - p < 7 && text.charCodeAt(q) === 92) q++;
  return q > p && text.charCodeAt(q) === 110;
}

/** The literal after a secret-ish key's separator (`site.p`): pushed when it is one; returns where to resume. */
function literal(site: Site, ke: number, spans: Span[]): number {
  const { text, kind } = site;
  const n = text.length;
  let p = site.p;
  if (site.sep === SEP_COLON) {
    const typed = TYPE_ANNOTATION.exec(text.slice(p, p + 80));
    if (typed !== null) {
      p += typed[0].length;
      site.sep = SEP_EQ;
    }
  } else if (text.charCodeAt(p - 1) === 62 /* => */) {
    const dumped = VAR_DUMP.exec(text.slice(p, p + 40));
    if (dumped !== null) p += dumped[0].length;
  }
  const p1 = p;
  while (p < n && isBlank(text.charCodeAt(p))) p++;
  if (p >= n) return ke;
  // YAML's `token: >-` and `api_key:` with the value on the lines below.
  if (site.sep === SEP_COLON && (!site.q0 || jsonValueStart(text, site.ks)) && !kind.startsWith("weak:")) {
    const c = text.charCodeAt(p);
    if (c === 124 || c === 62 || c === 10 || c === 13 || (c === 92 && escapedBreakAhead(text, p))) {
      const end = valueBelow(text, site.ks, p, kind, spans);
      if (end >= 0) {
        scanState.keyedEnd = end;
        return end;
      }
    }
  }
  // `'password:', password`: the string that held the key closed right after the separator.
  if (site.q0 && !site.keyQuoted && text.startsWith(site.q0, p)) return ke;
  // `<your token>`: a placeholder, also when it holds spaces.
  if (text.charCodeAt(p) === 60 && /^<[^<>\n]{1,80}>/.test(text.slice(p, p + 82))) return ke;
  // `String::from("..")`, `SecretStr("..")`, `Some("..")`: a literal in a wrapper is still the literal.
  // Every wrapper starts with `S`, `s` or its `(`.
  const w = text.charCodeAt(p);
  const wrapped = w === 83 || w === 115 || w === 40 ? WRAPPER.exec(text.slice(p, p + 40)) : null;
  if (wrapped !== null) p += wrapped[0].length;
  site.spaceAfter = p > p1;
  site.p = p;
  let bs = p;
  while (bs < n && bs - p < 16 && text.charCodeAt(bs) === 92) bs++;
  const quote = text.charCodeAt(bs);
  const quoted = isQuote(quote);
  const range = quoted ? quotedValue(site, bs) : unquotedValue(site);
  if (range === null) return ke;
  let [vs, ve] = range;
  if (kind === "authorization") {
    const m = AUTH_SCHEME.exec(text.slice(vs, Math.min(ve, vs + 40)));
    if (m) vs += m[0].length;
  }
  // openssl's `-passout pass:SECRET`; `env:VAR` and `file:path` only say where the secret is.
  if (site.sep === SEP_FLAG || site.sep === SEP_EQ) {
    if (text.startsWith("pass:", vs)) vs += 5;
    else if (/^(?:env|file|fd):/.test(text.slice(vs, vs + 5))) return ke;
  }
  const kindOut = accepted(site, text.slice(vs, ve), quoted ? quote : -1, ve);
  if (kindOut === null) return ke;
  spans.push({ s: vs, e: ve, kind: kindOut, p: 1 });
  // `password = "Tr0ub" + "4dor3"`, Python's implicit `("..." "...")`: the pieces that follow are the literal too.
  if (quoted) ve = concatenatedPieces(text, ve, spans, kindOut);
  else ve = continuedLine(text, ve, spans, kindOut);
  // Resume inside the value so a provider token there can claim a better kind, but
  // never parse the value itself for assignments again: that would be quadratic.
  scanState.keyedEnd = ve;
  return vs;
}

/** The kind to report for `value`, or null when it is no literal secret. */
function accepted(site: Site, value: string, quote: number, ve: number): string | null {
  const { text, kind, sep } = site;
  if (!isLiteral(site, value, quote, ve)) return null;
  // A weak kind (a name that only suggests a secret) is believed when the value looks generated.
  const weak = kind.startsWith("weak:");
  if (weak && !(value.length >= 16 && looksGenerated(value))) return null;
  // `-passin val           Private key password source`: a help text's option column
  // (clickhouse-client aligns a lowercase one: `--password arg        password`).
  if (sep === SEP_FLAG && /^[ \t]{2,}[A-Z][a-z]|^[ \t]{3,}[a-z]/.test(text.slice(ve, ve + 40))) return null;
  if (kind === "cookie" && !cookieHoldsSecret(value)) return null;
  return weak ? kind.slice(5) : kind;
}

// A closing quote, an operator (or none, or a line break, real or JSON-escaped), the same quote opening,
// escaped as the closing one was (in a JSON string, `\"a\"\n",` and `'a'\n",` reach the string's own
// end): one literal in pieces.
const CONCAT = new RegExp(
  String.raw`(\\{0,3})(["'\`])[ \t]*(?:[+.&]|\|\||<<)?[ \t]*(?:${BREAK}${INDENT}(?:(?:[+.&]|\|\|)[ \t]*)?)?\1(\2)([^\s"'\`\\]{1,256})\\{0,3}["'\`]`,
  "y",
);

/** Whether a key's separator, `:` (not C++'s `::`), follows `at` past blanks. */
function keyAfter(text: string, at: number): boolean {
  let i = at;
  while (isBlank(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === 58 && text.charCodeAt(i + 1) !== 58;
}

function concatenatedPieces(text: string, ve: number, spans: Span[], kind: string): number {
  let end = ve;
  for (let i = 0; i < 8; i++) {
    CONCAT.lastIndex = end;
    const m = CONCAT.exec(text);
    if (m === null || m[0].length === 0) break;
    const piece = m[4] as string;
    // A quoted string with a colon after it is the key of the next entry (`"note": ...` on the next line
    // of a YAML or JSON file), not a piece of this value.
    if (keyAfter(text, CONCAT.lastIndex)) break;
    // The piece ends right before the closing quote (and its escaping backslashes).
    const s = text.lastIndexOf(piece, CONCAT.lastIndex - 1);
    if (s < end) break;
    spans.push({ s, e: s + piece.length, kind, p: 1 });
    end = s + piece.length;
  }
  return end;
}

// A shell's or a Makefile's continuation: the value's last backslash right before the break. In a JSON
// string the two are `\\\n` (three backslashes: an escaped backslash, an escaped break), six in a string
// inside one; the value stops at the first of them (unquotedEnd).
const CONTINUATION_RUNS = new Set([3, 6]);

/** Where the line after the value ending at `ve` starts, when the value's backslash continues it; or -1. */
function continuation(text: string, ve: number): number {
  const c = text.charCodeAt(ve);
  if (c === 10 || c === 13) {
    if (text.charCodeAt(ve - 1) !== 92) return -1;
    return c === 13 && text.charCodeAt(ve + 1) === 10 ? ve + 2 : ve + 1;
  }
  let j = ve;
  while (j - ve < 8 && text.charCodeAt(j) === 92) j++;
  return CONTINUATION_RUNS.has(j - ve) && text.charCodeAt(j) === 110 ? j + 1 : -1;
}

/** `TOKEN=abc\` and `def` on the next line: the value in two pieces. */
function continuedLine(text: string, ve: number, spans: Span[], kind: string): number {
  const s = continuation(text, ve);
  if (s < 0) return ve;
  let e = s;
  const limit = Math.min(text.length, s + 256);
  while (e < limit && !/[\s"'`\\]/.test(text[e] as string)) e++;
  if (e === s) return ve;
  spans.push({ s, e, kind, p: 1 });
  return e;
}

// Set-Cookie attributes, which carry no secret.
const COOKIE_ATTRS =
  /^(?:path|domain|expires|max-age|samesite|secure|httponly|priority|partitioned|version|comment)$/i;

/**
 * `Set-Cookie: theme=dark; Path=/` holds no secret: a cookie header is redacted (whole, so
 * nothing of it leaks) only when one of its values looks generated, or it is not `name=value`.
 */
function cookieHoldsSecret(value: string): boolean {
  if (!value.includes("=")) return true;
  for (const part of value.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (!COOKIE_ATTRS.test(name) && (v.length >= 12 || hasDigit(v)) && !isPlaceholder(v)) return true;
  }
  return false;
}

/** The inside of a quoted value whose (possibly escaped) opening quote is at `qAt`. */
function quotedValue(site: Site, qAt: number): [number, number] | null {
  const { text, p } = site;
  const n = text.length;
  const limit = Math.min(n, p + MAX_VALUE);
  const vs = qAt + 1;
  if (qAt > p) {
    // `\"...\"` in JSON-encoded text closes with the same escaped quote, on the same line of the file: a
    // string that does not was the end of another one, as unescaped below.
    const close = text.substring(vs, limit).indexOf(text.slice(p, vs));
    const ve = close < 0 ? limit : vs + close;
    return escapedBreakIn(text, vs, ve, (qAt - p + 1) >> 1) ? null : [vs, ve];
  }
  const q = text.charCodeAt(qAt);
  let i = vs;
  while (i < limit) {
    const ch = text.charCodeAt(i);
    if (ch === 92) i += 2;
    else if (ch === q || ch === 10) break;
    else i++;
  }
  // A "string" that never closes on its line was the END of another string
  // (`print("token=" + repr(x))`). One cut off by the end of the text may be real.
  if (text.charCodeAt(i) === 10) return null;
  return [vs, Math.min(i, limit)];
}

/**
 * Whether a line of the file ends in `[from, to)` of an escaped string whose line break is `k` backslashes
 * and an `n` (its quote had 2k−1): `\n` once escaped, `\\n` twice. A longer run is a break when the
 * innermost string reads one after its backslashes (`\\\n` once: a backslash, then the break); `\\n`
 * once is a `\n` the file itself holds.
 */
function escapedBreakIn(text: string, from: number, to: number, k: number): boolean {
  for (let i = text.indexOf("\\", from); i >= 0 && i < to; i = text.indexOf("\\", i)) {
    const b = i;
    while (text.charCodeAt(i) === 92) i++;
    if (text.charCodeAt(i) === 110 && (i - b) % (2 * k) === k) return true;
  }
  return false;
}

// How far an unquoted value runs: a header's rest of line, a connection string's field, a config line's
// word, or a word of code (which punctuation ends).
const RUN_LINE = 0;
const RUN_CONNECTION = 1;
const RUN_WORD = 2;
const RUN_CODE = 3;

function unquotedEnd(text: string, p: number, q0c: number, mode: number): number {
  const limit = Math.min(text.length, p + MAX_VALUE);
  let i = p;
  for (; i < limit; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 10 || ch === 13 || ch === q0c) break;
    if (ch === 92) {
      // An escape ends the value at its first backslash: `\\n` in a string inside a string is one line
      // break, and a value that took its first backslash left the second to escape the `n` wrongly.
      let j = i + 1;
      while (j < limit && text.charCodeAt(j) === 92) j++;
      const nx = text.charCodeAt(j);
      if (nx === 110 || nx === 114 || nx === 116 || nx === 34 || nx === 39) break;
      i = j - 1;
      continue;
    }
    if (mode === RUN_LINE) {
      // ) ] } close the code around the header, a quote the string that holds it.
      if (ch === 41 || ch === 93 || ch === 125 || ch === 34 || ch === 39) break;
    } else if (mode === RUN_CONNECTION) {
      if (ch === 59 || ch === 34 || ch === 39) break;
    } else if (ch === 32 || ch === 9 || (mode === RUN_CODE && ch < 128 && VALUE_STOP[ch] === 1)) break;
  }
  return i;
}

/** The extent of an unquoted value, or null when it reads as code, a type or prose. */
function unquotedValue(site: Site): [number, number] | null {
  const { text, p, sep, kind, key, keyQuoted, spaceBefore, spaceAfter } = site;
  const n = text.length;
  if (sep === SEP_FLAG && text.charCodeAt(p) === 45) return null; // next flag, not a value
  // `authenticity_token=&commit=...`: an empty value in a query string.
  if (text.charCodeAt(p) === 38) return null;
  // `key:value` with no space is a namespace or URN ("auth:login", "secret:mocks"), unless the value is
  // generated: HTTPie's `x-api-key:VALUE`, Go's `%+v` (`{User:app Password:VALUE}`, `map[Authorization:[...]]`).
  if (sep === SEP_COLON && !spaceAfter && !site.keyQuoted) return gluedValue(text, p);
  // Django's generated keys hold ( ) = & $ #: the run up to a blank or quote is the key.
  if (text.startsWith("django-insecure-", p)) {
    let e = p;
    while (e < n && !/[\s"'`\\]/.test(text[e] as string)) e++;
    return [p, e];
  }
  const tight = sep === SEP_EQ && !spaceBefore && !spaceAfter;
  // HTTP header lines carry spaces and `;` in their value; a bare `auth:` is usually code.
  const restOfLine =
    sep === SEP_COLON &&
    spaceAfter &&
    (kind === "cookie" || (kind === "authorization" && !/auth$/i.test(key)));
  const wholeRun = restOfLine || ((tight || sep === SEP_COLON) && lineStartOf(site));
  const q0c = site.q0 && !keyQuoted ? site.q0.charCodeAt(site.q0.length - 1) : -1;
  // A connection string's `;Password=...;`: the value runs to the next `;` (`&`, `!` and `$` are its own).
  let b = site.ks;
  while (b > 0 && isBlank(text.charCodeAt(b - 1))) b--;
  const mode = restOfLine
    ? RUN_LINE
    : tight && text.charCodeAt(b - 1) === 59
      ? RUN_CONNECTION
      : wholeRun
        ? RUN_WORD
        : RUN_CODE;
  const vs = p;
  let ve = unquotedEnd(text, p, q0c, mode);
  // A long run is examined once; anchors inside it would re-scan the same text for each one.
  if (ve - vs >= 512) scanState.keyedEnd = ve;
  while (ve > vs && isBlank(text.charCodeAt(ve - 1))) ve--;
  const last = text.charCodeAt(ve - 1);
  // `KEY=value` on its own line is a .env/shell literal, unless it ends like a
  // keyword argument in a call split over lines (`credentials=None,`).
  const envLine = tight && last !== 44 && last !== 41 && lineStartOf(site);
  // The `,` / `;` that end a line of code or YAML flow are not part of the value.
  while (ve > vs && (text.charCodeAt(ve - 1) === 44 || text.charCodeAt(ve - 1) === 59)) ve--;
  const v = text.slice(vs, ve);
  if (v.length === 0 || CODE_KEYWORDS.has(v)) return null;
  // Small numbers in code are enum members and constants (`CommaToken = 28`); a numeric
  // secret is only believed in a config line (`PASSWORD=123456`, `pin: 1234`) or JSON.
  if (HEX_NUMBER.test(v) || DOTTED_NUMBER.test(v)) return null;
  if (
    DECIMAL.test(v) &&
    (v.length < 4 || (!keyQuoted && !((tight || sep === SEP_COLON) && lineStartOf(site))))
  ) {
    return null;
  }
  if (restOfLine && AUTH_SCHEME.test(v)) return [vs, ve];
  if (restOfLine) {
    const first = v.slice(0, v.search(/\s|$/));
    if (CODE_KEYWORDS.has(first) || (isUpper(first.charCodeAt(0)) && IDENT.test(first) && !hasDigit(first))) {
      return null;
    }
  }
  if (envLine || sep === SEP_FLAG) return [vs, ve];
  if (/[([{]/.test(v) || (DOTTED.test(v) && !dottedToken(v)) || v.includes("=>") || GENERIC_TYPE.test(v)) {
    return null;
  }
  // Long runs mixing letters and digits are generated secrets, whatever their shape.
  if (IDENT.test(v) && !(v.length >= 16 && hasDigit(v) && /[A-Za-z]/.test(v))) {
    // `token: accessToken`, `api_key=api_key`: a variable, not a literal. A config line's password
    // (`password: db_pass` in YAML, no comma after it) is the literal, whatever it spells.
    const configPassword =
      kind === "password" && sep === SEP_COLON && last !== 44 && last !== 59 && lineStartOf(site);
    if (!configPassword && HUMP_OR_SNAKE.test(v) && SECRET_WORD.test(v)) return null;
    if (!configPassword && v.toLowerCase() === key.toLowerCase()) return null;
    // `token: UUID`, `password: SecretStr`: a type annotation on a field.
    if (sep === SEP_COLON && isUpper(v.charCodeAt(0)) && (!hasDigit(v) || v.length <= 3)) return null;
    // `credentials: kEnumerableProperty,`: a property in an object literal or a statement.
    if (last === 44 || last === 59) return null;
    // `token = element`: an assignment from a variable; a literal password has a digit.
    if (sep === SEP_EQ && !tight && !hasDigit(v)) return null;
    // `{ password: pw }` inline is code; a quote opened before the key and not closed after it
    // holds a header line instead: `-H "X-Api-Key: v"`.
    if (!tight && q0c < 0 && !lineStartOf(site)) return null;
  }
  if (!tight) {
    // More words after the value: prose ("`token`: the API token") or a type expression.
    let r = ve;
    while (r < n && isBlank(text.charCodeAt(r))) r++;
    const rc = text.charCodeAt(r);
    // A config line's value may end the JSON string that carries the file (`password = v"}`).
    const closes = rc === 34 && lineStartOf(site);
    if (r < n && rc !== q0c && !closes && !(rc < 128 && VALUE_TAIL[rc] === 1)) return null;
  }
  return [vs, ve];
}

// `:` too: a glued value holding one is a URN or a port, and stopping there keeps `a:a:a:...` linear.
const GLUED_STOP = charTable("\"'`,;:)]}<>");

function gluedValue(text: string, p: number): [number, number] | null {
  // Go prints a map's values in brackets: `map[Authorization:[Bearer VALUE]]`.
  const bracket = text.charCodeAt(p) === 91;
  const vs = bracket ? p + 1 : p;
  const limit = Math.min(text.length, vs + MAX_VALUE);
  let e = vs;
  for (; e < limit; e++) {
    const ch = text.charCodeAt(e);
    if (ch === 10 || ch === 13 || ch === 92 || (!bracket && (ch === 32 || ch === 9))) break;
    if (ch < 128 && GLUED_STOP[ch] === 1) break;
  }
  const v = text.slice(vs, e);
  const token = bracket ? v.slice(v.lastIndexOf(" ") + 1) : v;
  if (token.length < 12 || text.charCodeAt(e) === 58 || !looksGenerated(token)) return null;
  return [vs, e];
}

/**
 * `token: ca37f5.e47ff958888f821f` (a kubeadm bootstrap token) is dotted like `config.db.password`,
 * but its segments mix letters and digits the way generated material does.
 */
function dottedToken(v: string): boolean {
  return v.length >= 16 && v.split(".").some((seg) => seg.length >= 6 && hasDigit(seg) && /[a-z]/i.test(seg));
}

/** Checks shared by quoted and unquoted values. `quote` is the quote character, or -1. */
function isLiteral(site: Site, value: string, quote: number, ve: number): boolean {
  const { text, key, sep } = site;
  // Under a password's name a word is a password, the key's own word too (`IRC_PASS=irc_pass`); only an
  // option's value that spells the option is a help text's metavar or example (`-password 'password'`,
  // kubectl's `--password=basic_password`).
  if (placeholderFor(site.kind, value) || DOTTED_NUMBER.test(value)) return false;
  if ((site.kind !== "password" || sep === SEP_FLAG) && namesItself(key, value)) return false;
  // `Bearer null`, `"env.API_KEY"`: a keyword or a property path, not a literal secret.
  if (CODE_KEYWORDS.has(value) || QUOTED_ENUMS.has(value) || (DOTTED.test(value) && !dottedToken(value)))
    return false;
  if (quote >= 0) {
    // Backticks run a command in a shell and interpolate in JS; neither with spaces or `${` is a literal.
    if (quote === 96 && (/\s/.test(value) || value.includes("${"))) return false;
    // `type Creds = "include" | "omit"`: a type union.
    let r = ve + 1;
    while (r < text.length && isBlank(text.charCodeAt(r))) r++;
    if (text.charCodeAt(r) === 124 /* | */ || QUOTED_ENUMS.has(value)) return false;
    // "}" or "?." is punctuation in a lexer, not a credential.
    if (!/[A-Za-z0-9]/.test(value)) return false;
  } else if (sep === SEP_FLAG) {
    // `--privkey rsakey.pem`, `--token-file ./t`: a file or host name, not the secret itself.
    if (CODE_KEYWORDS.has(value) || DOTTED.test(value) || /^(?:\.{0,2}\/|~\/)/.test(value)) return false;
    // `--auth` is as often a switch followed by the next argument as an option with a value; a
    // generated-looking next word is its value (`netlify deploy --auth TOKEN`).
    if (site.spaceBefore && /(?:^|[_.-])auth$/i.test(key) && !(value.length >= 16 && looksGenerated(value)))
      return false;
  }
  // $PWD and friends hold the working directory, not a password.
  return !(/pwd$/i.test(key) && /^[/~]/.test(value));
}

/**
 * `"js.cookie": "js-cookie"`, `USE_CREDENTIALS = 'use-credentials'`, `auth: auth-and-writes`:
 * a value that spells the key's own word as one of its parts is a name, not a secret.
 */
function namesItself(key: string, value: string): boolean {
  if (value.length > 64) return false;
  const word = splitWords(key).at(-1);
  if (word === undefined) return false;
  const v = value.toLowerCase();
  if (v === key.toLowerCase()) return true;
  for (const part of v.split(/[-_.:/ ]/)) {
    if (part === word || part === `${word}s` || `${part}s` === word) return true;
  }
  return false;
}

// Literal values that secret-ish keys take in APIs: fetch's `credentials`, SMTP auth modes.
const QUOTED_ENUMS = new Set([
  "include",
  "omit",
  "same-origin",
  "none",
  "true",
  "false",
  "null",
  "undefined",
  "nil",
]);
