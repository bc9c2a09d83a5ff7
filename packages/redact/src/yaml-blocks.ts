// A YAML value on the lines below its key: a block scalar (`token: |`, `>-`, `|+2`) or a plain scalar
// folded onto the next lines (`api_key:` and the value indented under it). A long token or key is
// written so when it does not fit a line (kubectl's `>-` for a Secret's data, a CI file's `|`), and a
// secret split over lines is the lines together. The lines are read as ./lines.ts reads them, so a file
// quoted in a JSON string is read too.
import { isBlank } from "./chars.ts";
import { breakBefore, lineEndIn, lineStartIn, pastBreak } from "./lines.ts";
import type { Span } from "./rule.ts";

const INDICATOR = /^[|>][-+]?[1-9]?[ \t]*(?:#[^\n]*)?$/;
// A line of a nested mapping or list: what a plain scalar folded under a key never is.
const STRUCTURE = /^(?:-[ \t]|[^\s:#]+:(?:[ \t]|$)|#)/;
const MAX_LINES = 64;
const MAX_LINE = 4096;
const MAX_REST = 128;

/** The indent of the line holding `at` (blanks, and a list's `- `, before its first character). */
function indentOf(text: string, at: number): number {
  const ls = lineStartIn(text, at, MAX_LINE);
  let i = ls;
  while (
    i < at &&
    (isBlank(text.charCodeAt(i)) || (text.charCodeAt(i) === 45 && isBlank(text.charCodeAt(i + 1))))
  )
    i++;
  return i - ls;
}

/**
 * How a quote reads inside the JSON string whose escaped break is at `le`: the quote of the text it carries
 * has `m - 1` backslashes before it (modulo `m`), any other run closes a string around the value. A break
 * of k backslashes and an `n` is as deep as k's factors of two say: `\n` and `\\\n` (a continuation) once,
 * `\\n` twice. 0 for a real break: no string to close.
 */
function quoteModulus(text: string, le: number): number {
  let k = 0;
  while (text.charCodeAt(le + k) === 92) k++;
  if (k === 0 || text.charCodeAt(le + k) !== 110) return 0;
  return 2 * (k & -k);
}

/** Where in `[s, e)` the JSON string carrying the value closes (its quote's backslashes' start), or `e`. */
function stringClose(text: string, s: number, e: number, m: number): number {
  if (m === 0) return e;
  // A walk, not indexOf: a text without quotes would be searched to its end from every line.
  for (let q = s; q < e; q++) {
    if (text.charCodeAt(q) !== 34) continue;
    let b = q;
    while (b > s && text.charCodeAt(b - 1) === 92) b--;
    if ((q - b) % m !== m - 1) return b;
  }
  return e;
}

/**
 * The value below a key whose separator's rest of line, from `p` to its end, is a block indicator or
 * nothing. `ks` is the key's start. Pushes a span per line of the value; returns the value's end, or -1
 * when there is none (a nested mapping, a list, a scalar on the key's line).
 */
export function valueBelow(text: string, ks: number, p: number, kind: string, spans: Span[]): number {
  // An indicator and its comment, or nothing, end the line soon: a long line holds a value on it.
  const le = lineEndIn(text, p, MAX_REST);
  if (le - p >= MAX_REST) return -1;
  const rest = text.slice(p, le).trim();
  const block = INDICATOR.test(rest);
  if (!block && rest !== "") return -1;
  if (le >= text.length) return -1;
  const indent = indentOf(text, ks);
  // In a JSON string, the value's last line ends where the string does: what follows is the JSON's.
  const m = quoteModulus(text, le);
  const found: Span[] = [];
  let end = -1;
  let pos = pastBreak(text, le);
  for (let n = 0; n < MAX_LINES && pos < text.length; n++) {
    const le2 = lineEndIn(text, pos, MAX_LINE);
    const e = stringClose(text, pos, le2, m);
    let s = pos;
    while (s < e && isBlank(text.charCodeAt(s))) s++;
    let t = e;
    while (t > s && (isBlank(text.charCodeAt(t - 1)) || text.charCodeAt(t - 1) === 13)) t--;
    if (s === t) {
      // An empty line belongs to a block scalar; it ends a plain one.
      if (!block) break;
    } else {
      if (s - pos <= indent) break;
      if (!block && STRUCTURE.test(text.slice(s, Math.min(t, s + 256)))) return -1;
      found.push({ s, e: t, kind, p: 1 });
      end = t;
    }
    if (e < le2 || e >= text.length || !breakBefore(text, pastBreak(text, e))) break;
    pos = pastBreak(text, e);
  }
  for (const sp of found) spans.push(sp);
  return found.length > 0 ? end : -1;
}
