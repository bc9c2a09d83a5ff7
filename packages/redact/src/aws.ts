// AWS credentials by their pairing: a secret access key is 40 characters of base64 with no name of its own
// in a CSV download, `--output text`, a positional SDK argument or a `cat`ted line, but it travels beside
// its key id (AKIA/ASIA...). An id makes the nearby 40-character run its secret, and a temporary (ASIA)
// id the long base64 run after it its session token. Both are looked for only in a bounded window
// around an id, so the cost stays with the (rare) ids.
import { charTable, isB64Code, isBlank, isDigit, isLower, isUpper } from "./chars.ts";
import { escapedBreakAt } from "./lines.ts";
import { BY_PREFIX } from "./provider-rules.ts";
import type { Span } from "./rule.ts";
import { prefixed } from "./split.ts";

const AFTER = 320;
const BEFORE = 160;
const TOKEN_AFTER = 640;
const SECRET_LEN = 40;
const MIN_SESSION_TOKEN = 100;

/** Whether `s` has the mix of a generated base64 key: upper, lower and a digit, not hex, few slashes. */
export function looksLikeAwsSecret(text: string, s: number, e: number): boolean {
  let up = false;
  let low = false;
  let digit = false;
  let slashes = 0;
  let nonHex = false;
  for (let i = s; i < e; i++) {
    const c = text.charCodeAt(i);
    if (isUpper(c)) {
      up = true;
      nonHex ||= c > 70;
    } else if (isLower(c)) {
      low = true;
      nonHex ||= c > 102;
    } else if (isDigit(c)) digit = true;
    else if (c === 47) slashes++;
  }
  // A path has its slashes every few characters; a key has less than one in 40 on average.
  return up && low && digit && nonHex && slashes <= 3;
}

/** Base64 runs in [from, to) as [start, end) pairs, each maximal (bounded by a non-base64 character). */
function runs(text: string, from: number, to: number, visit: (s: number, e: number) => boolean): void {
  let i = from;
  // A run is read at most this far past the window: a megabyte of base64 after an id costs a kilobyte.
  const max = Math.min(text.length, to + 1024);
  while (i < to) {
    while (i < to && !isB64Code(text.charCodeAt(i))) i++;
    const s = i;
    while (i < max && isB64Code(text.charCodeAt(i))) i++;
    let e = i;
    while (e < max && text.charCodeAt(e) === 61) e++;
    // A run glued to a word (`x-amz-...`, a path segment) is part of something else.
    const before = s > 0 ? text.charCodeAt(s - 1) : 32;
    const glued = before === 45 || before === 95 || before === 46 || before === 37;
    if (s < i && !glued && visit(s, i)) return;
    i = e + 1;
  }
}

function pairedSecret(text: string, idStart: number, idEnd: number, spans: Span[], temporary: boolean): void {
  let secretEnd = -1;
  const look = (from: number, to: number) =>
    runs(text, from, to, (s, e) => {
      if (e - s !== SECRET_LEN || !looksLikeAwsSecret(text, s, e)) return false;
      spans.push({ s, e, kind: "aws_secret_access_key", p: 2 });
      secretEnd = e;
      return true;
    });
  look(idEnd, Math.min(text.length, idEnd + AFTER));
  if (secretEnd < 0) look(Math.max(0, idStart - BEFORE), idStart - 1);
  if (!temporary) return;
  runs(text, Math.max(idEnd, secretEnd), Math.min(text.length, idEnd + TOKEN_AFTER), (s, e) => {
    if (e - s < MIN_SESSION_TOKEN) return false;
    spans.push({ s, e, kind: "aws_session_token", p: 2 });
    return true;
  });
}

/** The `A` of an AKIA/ASIA key id: the id (whole or split), then the secret and token paired with it. */
export function awsKeyId(text: string, at: number, cap: string, spans: Span[]): number {
  const before = spans.length;
  const next = prefixed(BY_PREFIX.get(`A${cap}`), text, at, spans, at + 1);
  const id = spans[before];
  if (id !== undefined && id.s === at) pairedSecret(text, at, id.e, spans, cap === "SIA");
  return next;
}

/** A whole string that is nothing but an AWS-shaped secret: `aws configure get` on a tool's stdout. */
export function bareAwsSecret(text: string): Span | null {
  let s = 0;
  let e = text.length;
  while (s < e && text.charCodeAt(s) <= 32) s++;
  while (e > s && text.charCodeAt(e - 1) <= 32) e--;
  if (e - s !== SECRET_LEN) return null;
  for (let i = s; i < e; i++) if (!isB64Code(text.charCodeAt(i))) return null;
  return looksLikeAwsSecret(text, s, e) ? { s, e, kind: "aws_secret_access_key", p: 2 } : null;
}

/**
 * A bare secret in a longer text: a base64 run of exactly 40 characters that nothing else explains. Any run
 * of 40 holds one of every 40th character, so those are probed and a run is read only where a probe lands
 * in base64, and then only forward to its end, at most 41 characters: when all 41 are base64, no run of 40
 * touches them nor starts right after them, and the next probe is 81 on. Inside a base64 blob that reads
 * half its characters, where the whole run was read before (the pass over the bench's traffic: 1.17 ms a
 * MB then, 0.91 now).
 */
export function bareAwsSecrets(text: string, spans: Span[]): void {
  const n = text.length;
  let q = SECRET_LEN - 1;
  while (q < n) {
    if (!b64(text.charCodeAt(q))) {
      q += SECRET_LEN;
      continue;
    }
    let e = q + 1;
    const far = Math.min(n, q + SECRET_LEN + 1);
    while (e < far && b64(text.charCodeAt(e))) e++;
    if (e === q + SECRET_LEN + 1) {
      q += 2 * SECRET_LEN + 1;
      continue;
    }
    const s = runStart(text, q, e);
    // The lowest rank: a name over the same value (`Authorization: …`) gives its kind.
    if (s >= 0 && bareRunVerdict(text, s, e) === "secret") {
      spans.push({ s, e, kind: "aws_secret_access_key", p: 0 });
    }
    q = e + SECRET_LEN;
  }
}

/** Where the run that ends at `e` starts when it is exactly 40 long, else -1; read back from `q` at most 42. */
function runStart(text: string, q: number, e: number): number {
  let s = q;
  const near = Math.max(0, e - SECRET_LEN - 2);
  while (s > near && b64(text.charCodeAt(s - 1))) s--;
  if (s > 0 && b64(text.charCodeAt(s - 1))) return -1;
  // In JSON-escaped text a run after `\\n`, `\\r` or `\\t` starts with the escape's letter.
  if (text.charCodeAt(s - 1) === 92 && escapedLetter(text.charCodeAt(s))) s++;
  return e - s === SECRET_LEN ? s : -1;
}

// isB64Code's characters as a table: the probe loop reads one for most characters of a blob.
const B64 = charTable("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");

function b64(c: number): boolean {
  return c < 128 && B64[c] === 1;
}

function escapedLetter(c: number): boolean {
  return c === 110 || c === 114 || c === 116;
}

/** Why a 40-character run is not a secret, or "secret": the first test that refuses it names it. */
export type BareVerdict = "glued" | "unmixed" | "words" | "hex" | "block" | "text" | "example" | "secret";

/** The tests a bare 40-character run [s, e) must pass; what each keeps was measured (README). */
export function bareRunVerdict(text: string, s: number, e: number): BareVerdict {
  if (gluedRun(text, s, e)) return "glued";
  if (!looksLikeAwsSecret(text, s, e)) return "unmixed";
  if (wordShaped(text, s, e)) return "words";
  if (hexRun(text, s, e)) return "hex";
  if (blockLine(text, s, e)) return "block";
  if (decodesToText(text, s, e)) return "text";
  // AWS's documentation marks its sample keys so (`wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`).
  if (text.slice(s, e).includes("EXAMPLE")) return "example";
  return "secret";
}

/**
 * A run glued to a word is part of something longer: base64url (`-`, `_`), a dotted name or a JWT's
 * segment (`.`), percent-encoding, padding (`=` after: base64 of other than 30 bytes), a name (`=` after).
 * A value after `NAME=` is the name rules' to judge (`PUBLIC_KEY=…` stays).
 */
function gluedRun(text: string, s: number, e: number): boolean {
  const b = s > 0 ? text.charCodeAt(s - 1) : 32;
  if (b === 45 || b === 95 || b === 46 || b === 37 || b === 92 || b === 61) return true;
  const a = e < text.length ? text.charCodeAt(e) : 32;
  if (a === 61 || a === 45 || a === 95) return true;
  return a === 46 && isB64Code(text.charCodeAt(e + 1));
}

/**
 * An identifier or a path of words (`GoogleCloudAiplatformV1beta1Featurestore`, esbuild's renamed
 * `getStackTraceTopCallFrameInEventPayload2`, `projects/123/notificationConfigs/config1`): at least half
 * of it words of three or more lower-case letters (an upper-case initial counts), and at most four other
 * characters that are not letters, a path's all-digit segments not counted. Of 10^6 generated secrets,
 * 0.35% have that shape.
 */
function wordShaped(text: string, s: number, e: number): boolean {
  let other = 0;
  let inWords = 0;
  let run = 0;
  let segmentDigits = 0;
  let allDigits = true;
  for (let i = s; i <= e; i++) {
    // The run's end closes its last segment as a slash would.
    const c = i < e ? text.charCodeAt(i) : 47;
    if (isLower(c)) {
      run++;
      allDigits = false;
      continue;
    }
    if (run >= 3) inWords += run + (i - run > s && isUpper(text.charCodeAt(i - run - 1)) ? 1 : 0);
    run = 0;
    if (c === 47) {
      if (allDigits) other -= segmentDigits;
      segmentDigits = 0;
      allDigits = true;
      if (i < e) other++;
    } else if (isDigit(c)) {
      other++;
      segmentDigits++;
    } else {
      allDigits = false;
      if (!isUpper(c)) other++;
    }
  }
  // Two thirds in words is a name whatever its suffix (CloudFormation's `…ServiceRoleF9C28899`).
  return inWords * 3 >= (e - s) * 2 || (other <= 4 && inWords * 2 >= e - s);
}

/** An id built on a digest (`d187537d15254312a9609aa51bbf7624u7W49tPO`): 12 or more hex digits in a row. */
function hexRun(text: string, s: number, e: number): boolean {
  let run = 0;
  for (let i = s; i < e; i++) {
    const c = text.charCodeAt(i);
    const hex = isDigit(c) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
    run = hex ? run + 1 : 0;
    if (run >= 12) return true;
  }
  return false;
}

/**
 * The last line of a wrapped base64 block (PEM, MIME: 64 or 76 to a line) is as often 40 characters as
 * any other length, and so is a piece of a blob that code cuts into string literals (`"…" +`, `"…",`): a
 * longer base64 run on the line right above or below makes the run a block's. A line's edges may hold
 * blanks, quotes and the punctuation that joins pieces.
 */
function blockLine(text: string, s: number, e: number): boolean {
  const start = edgeBack(text, s);
  const above = start < 0 ? -1 : lineEndBefore(text, start);
  if (above >= 0) {
    const end = edgeBack(text, above);
    if (end >= 0 && b64RunBack(text, end) > SECRET_LEN) return true;
  }
  const end = edgeForward(text, e);
  const below = end < 0 ? -1 : lineStartAfter(text, end);
  if (below < 0) return false;
  const next = edgeForward(text, below);
  return next >= 0 && b64RunForward(text, next) > SECRET_LEN;
}

const MAX_EDGE = 4;

/** Whether `c` may stand at a line's edge around a piece of base64: a blank, a quote, joining punctuation. */
function edgeChar(c: number): boolean {
  return (
    isBlank(c) || c === 34 || c === 39 || c === 96 || c === 44 || c === 59 || c === 43 || c === 40 || c === 41
  );
}

/** Back from `at` over a line edge's blanks and at most four other edge characters, or -1 past that. */
function edgeBack(text: string, at: number): number {
  let i = at;
  let other = 0;
  while (i > 0 && edgeChar(text.charCodeAt(i - 1))) {
    if (!isBlank(text.charCodeAt(i - 1)) && ++other > MAX_EDGE) return -1;
    i--;
  }
  return i;
}

/** Forward from `at` over a line edge, as edgeBack. */
function edgeForward(text: string, at: number): number {
  let i = at;
  let other = 0;
  while (i < text.length && edgeChar(text.charCodeAt(i))) {
    if (!isBlank(text.charCodeAt(i)) && ++other > MAX_EDGE) return -1;
    i++;
  }
  return i;
}

/** The end of the line before the one starting at `at` (a real or escaped break right before it), or -1. */
function lineEndBefore(text: string, at: number): number {
  const c = text.charCodeAt(at - 1);
  if (c === 10) return text.charCodeAt(at - 2) === 13 ? at - 2 : at - 1;
  if (!escapedBreakAt(text, at - 1)) return -1;
  let i = at - 1;
  while (text.charCodeAt(i - 1) === 92) i--;
  return i;
}

/** Where the next line starts when a real or escaped break is at `at`, or -1. */
function lineStartAfter(text: string, at: number): number {
  let i = at;
  if (text.charCodeAt(i) === 13) i++;
  if (text.charCodeAt(i) === 10) return i + 1;
  while (text.charCodeAt(i) === 92) i++;
  return i > at && text.charCodeAt(i) === 110 ? i + 1 : -1;
}

function b64RunBack(text: string, end: number): number {
  let i = end;
  while (i > 0 && end - i <= SECRET_LEN && isB64Code(text.charCodeAt(i - 1))) i--;
  return end - i;
}

function b64RunForward(text: string, start: number): number {
  let i = start;
  while (i < text.length && i - start <= SECRET_LEN && isB64Code(text.charCodeAt(i))) i++;
  return i - start;
}

/** Base64 of text (a test's fixture, an encoded sentence): 27 or more of its 30 bytes printable ASCII. */
function decodesToText(text: string, s: number, e: number): boolean {
  const bytes = Buffer.from(text.slice(s, e), "base64");
  let printable = 0;
  for (const b of bytes) if ((b >= 32 && b < 127) || b === 9 || b === 10 || b === 13) printable++;
  return printable >= 27;
}
