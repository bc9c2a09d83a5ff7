// The second half of a key file. An agent that reads a long file in pieces (Read's offset and limit, a
// paged `cat`) sends a private key's END line in another event than its BEGIN line, and a PuTTY key's
// `Private-MAC:` after its `Private-Lines:`. The BEGIN half is caught by its armour (./provider-rules.ts);
// this half is the base64 lines right above the closing armour, read upwards while each line is nothing
// but base64 (a JSON string's opening quote may stand before the first).

import { isDigit, isLower, isUpper } from "./chars.ts";
import { breakStart, lineStartIn } from "./lines.ts";
import { BREAK_RULES } from "./provider-rules.ts";
import { type Span, tryRule } from "./rule.ts";

const MAX_BODY = 65536;
const MIN_BODY = 64;
const PEM_END = /^-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/;

function isB64Line(text: string, s: number, e: number): boolean {
  let i = s;
  while (i < e && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  let j = e;
  while (j > i && text.charCodeAt(j - 1) <= 32) j--;
  // An escaped `\r` before the break: its `r` and backslashes are no part of the line.
  if (j > i + 1 && text.charCodeAt(j - 1) === 114 && text.charCodeAt(j - 2) === 92) {
    j--;
    while (j > i && text.charCodeAt(j - 1) === 92) j--;
  }
  if (j === i) return false;
  for (let k = i; k < j; k++) {
    const c = text.charCodeAt(k);
    if (!(isUpper(c) || isLower(c) || isDigit(c) || c === 43 || c === 47 || c === 61)) return false;
  }
  return true;
}

/** The base64 lines right above the line that starts at `ls`, as [start, end), or null when too few. */
function bodyAbove(text: string, ls: number): [number, number] | null {
  // The last line's break stays: the closing armour keeps its own line.
  const end = breakStart(text, ls);
  if (end === ls) return null;
  const min = Math.max(0, ls - MAX_BODY);
  let top = end;
  let lineEnd = end;
  while (lineEnd > min) {
    const s = lineStartIn(text, lineEnd, 4096);
    if (s < lineEnd && !isB64Line(text, s, lineEnd)) {
      // The first line of a JSON string: its part after the opening quote.
      const q = s + text.slice(s, lineEnd).lastIndexOf('"');
      if (q >= s && isB64Line(text, q + 1, lineEnd)) top = q + 1;
      break;
    }
    if (s < lineEnd) top = s;
    const prev = breakStart(text, s);
    if (prev === s) break;
    lineEnd = prev;
  }
  return end - top >= MIN_BODY ? [top, end] : null;
}

/** `-----END … PRIVATE KEY-----` (at `at`) with no BEGIN above its body: the body is redacted. */
function pemTail(text: string, at: number, spans: Span[]): number {
  if (!PEM_END.test(text.slice(at, at + 80))) return at + 1;
  const body = bodyAbove(text, lineStartIn(text, at, 4096));
  if (body === null) return at + 1;
  // A whole block is its BEGIN rule's; only a headless body is this one's.
  const head = lineStartIn(text, Math.max(0, body[0] - 1), 4096);
  if (text.startsWith("-----BEGIN", head)) return at + 1;
  spans.push({ s: body[0], e: body[1], kind: "private_key", p: 2 });
  return at + 1;
}

/** PuTTY's `Private-Lines:` (its head, the rule of ./provider-rules.ts) or `Private-MAC:` (its tail). */
function putty(text: string, at: number, spans: Span[]): number {
  const start = at - "Private".length;
  if (text.startsWith("-Lines:", at)) {
    const hit = tryRule(BREAK_RULES.puttyPrivate, text, start);
    if (hit === null) return at + 1;
    spans.push(hit);
    return hit.e;
  }
  if (!text.startsWith("-MAC:", at)) return at + 1;
  const body = bodyAbove(text, lineStartIn(text, start, 4096));
  if (body === null) return at + 1;
  spans.push({ s: body[0], e: body[1], kind: "private_key", p: 2 });
  return at + 1;
}

/** Handlers by the master regex's prefix and anchor (./scan.ts): `-----END`, `-Private`. */
export const ARMOUR_FORMS = new Map<string, (text: string, at: number, spans: Span[]) => number>([
  ["-----END", pemTail],
  ["-Private", putty],
]);
