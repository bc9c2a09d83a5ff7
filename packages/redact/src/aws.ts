// AWS credentials by their pairing: a secret access key is 40 characters of base64 with no name of its own
// in a CSV download, `--output text`, a positional SDK argument or a `cat`ted line, but it travels beside
// its key id (AKIA/ASIA...). An id makes the nearby 40-character run its secret, and a temporary (ASIA)
// id the long base64 run after it its session token. Both are looked for only in a bounded window
// around an id, so the cost stays with the (rare) ids.
import { isB64Code, isDigit, isLower, isUpper } from "./chars.ts";
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
