// Text as agents see it. A file rarely reaches a transcript as it is on disk: Claude Code's Read puts each
// line's number and an arrow in front of it (`     12→`), `cat -n` and the compact Read a tab (`    12\t`),
// a unified diff a `+`, `-` or blank, grep and ripgrep the file and line (`src/app.ts:12:`, `…-12-` for a
// context line); inside a transcript's JSON the line breaks, tabs and arrows may be escaped once or twice.
// Every rule that reads a line's start (a `.env` name, a `.netrc` entry, a Secret's `data:`, a table's
// header, a key file's armour) would stop working there. Instead of teaching each one, the scan reads the
// text once more with the prefixes cut out (./text.ts), and maps what it finds back.
//
// Where the prefixes are Read's, cat's or a diff's, the view alone is scanned: it holds every character of
// the text but the prefixes, which are digits, blanks and markers that no secret is made of. grep's prefix
// is a path and a number, the shape of a `.pgpass` line's host and port, so there both are scanned.
//
// Finding the prefixes costs a search per marker: the arrow and a tab are single characters found at
// memchr speed, and each is looked at only where digits stand before it; a diff needs its `@@ -` header.
// grep's `path:<digits>:` is noted by the scan at the colons it visits anyway (./separators.ts): a walk
// of its own over every colon cost 0.2 ms a MB.
import { isBlank, isDigit } from "./chars.ts";
import { breakStart, lineStartIn, pastBreak } from "./lines.ts";
import type { Span } from "./rule.ts";

const ARROW = "→";
const MAX_NUMBER = 9;
const MAX_PAD = 8;

/** A text with ranges cut out, and where each of its runs came from in the original. */
export interface AgentView {
  text: string;
  /** Start of each run in the view, and where it starts in the original: runs are contiguous in both. */
  viewAt: number[];
  origAt: number[];
  /** The view holds everything the original does but prefixes: it is scanned instead of the original. */
  alone: boolean;
}

/** Whether `p` starts a line: the text's start, after a line break or an escaped `\n`, or after a quote. */
function lineStart(text: string, p: number, quote: boolean): boolean {
  if (p === 0) return true;
  const c = text.charCodeAt(p - 1);
  if (c === 10 || c === 13) return true;
  if (c === 110 /* n */ && text.charCodeAt(p - 2) === 92) return true;
  return quote && c === 34;
}

/** The start of `<blanks><digits>` ending right before `at` at a line's start, or -1. */
function numberBefore(text: string, at: number, quote: boolean): number {
  let s = at;
  while (s > 0 && at - s < MAX_NUMBER && isDigit(text.charCodeAt(s - 1))) s--;
  if (s === at) return -1;
  const digits = s;
  while (s > 0 && digits - s < MAX_PAD && isBlank(text.charCodeAt(s - 1))) s--;
  return lineStart(text, s, quote) ? s : -1;
}

/** Where a run of backslashes ending before `at` starts. */
function backslashesBefore(text: string, at: number): number {
  let s = at;
  while (s > 0 && at - s < 8 && text.charCodeAt(s - 1) === 92) s--;
  return s;
}

/** Read's and cat's prefixes: `<blanks><n>→`, `<blanks><n>\t`, escaped or not, as [start, end) pairs. */
function numberPrefixes(text: string, cuts: number[]): void {
  for (let i = text.indexOf(ARROW); i >= 0; i = text.indexOf(ARROW, i + 1)) {
    const s = numberBefore(text, i, true);
    if (s >= 0) cuts.push(s, i + 1);
  }
  for (let i = text.indexOf("\t"); i >= 0; i = text.indexOf("\t", i + 1)) {
    if (!isDigit(text.charCodeAt(i - 1))) continue;
    const s = numberBefore(text, i, false);
    if (s >= 0) cuts.push(s, i + 1);
  }
  if (!text.includes("\\")) return;
  // Escaped: `\t`, `\\t`, `\u2192`, after an escaped line break or the string's opening quote.
  for (let i = text.indexOf("\\t"); i >= 0; i = text.indexOf("\\t", i + 1)) {
    const b = backslashesBefore(text, i + 1);
    if (!isDigit(text.charCodeAt(b - 1))) continue;
    const s = numberBefore(text, b, true);
    if (s >= 0) cuts.push(s, i + 2);
  }
  for (let i = text.indexOf("\\u2192"); i >= 0; i = text.indexOf("\\u2192", i + 1)) {
    const b = backslashesBefore(text, i + 1);
    const s = numberBefore(text, b, true);
    if (s >= 0) cuts.push(s, i + 6);
  }
}

/** The end of the line starting at `p`: its break, a real one or (when `escaped`) an escaped `\n`. */
function lineEnd(text: string, p: number, escaped: boolean): number {
  if (!escaped) {
    const n = text.indexOf("\n", p);
    return n < 0 ? text.length : n;
  }
  for (let i = p; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return i;
    if (c === 92) {
      const b = i;
      while (text.charCodeAt(i) === 92) i++;
      if (text.charCodeAt(i) === 110) return b;
    }
  }
  return text.length;
}

const HUNK = /^@@ -[0-9]+(?:,[0-9]+)? \+[0-9]+(?:,[0-9]+)? @@/;

/** A unified diff's markers: one `+`, `-` or blank at the start of each line of its hunks. */
function diffMarkers(text: string, cuts: number[]): void {
  const escaped = text.includes("\\n");
  for (let h = text.indexOf("@@ -"); h >= 0; h = text.indexOf("@@ -", h + 1)) {
    if (!lineStart(text, h, true) || !HUNK.test(text.slice(h, h + 64))) continue;
    let p = pastBreak(text, lineEnd(text, h, escaped));
    while (p < text.length) {
      const c = text.charCodeAt(p);
      const e = lineEnd(text, p, escaped);
      if (c === 43 || c === 45 || c === 32) cuts.push(p, p + 1);
      // `\ No newline at end of file`, an empty context line or the next hunk go on; anything else ends it.
      else if (!(c === 92 && text.startsWith(" No newline", p + 1)) && e > p && c !== 64) break;
      h = p;
      p = pastBreak(text, e);
    }
  }
}

const PATH_CHAR = (c: number) => c > 32 && c !== 58 && c !== 34 && c !== 39 && c !== 92 && c < 0x7f;

/** Where the path ending before the colon at `i` starts: a run of path characters, or -1. */
function pathBefore(text: string, i: number): number {
  let s = i;
  while (s > 0 && i - s < 512 && PATH_CHAR(text.charCodeAt(s - 1))) {
    // An escaped `\n` ends the line before: its `n` is no part of the path.
    if (text.charCodeAt(s - 1) === 110 && text.charCodeAt(s - 2) === 92) break;
    s--;
  }
  return s < i && lineStart(text, s, true) ? s : -1;
}

/** grep's `path:n:` (and `path-n-` around it): a path with a `/` or `.`, then its line number. */
function grepPrefixes(text: string, cuts: number[]): void {
  const escaped = text.includes("\\n");
  for (let i = text.indexOf(":"); i >= 0; i = text.indexOf(":", i + 1)) {
    if (!isDigit(text.charCodeAt(i + 1)) || !grepColon(text, i)) continue;
    const s = pathBefore(text, i);
    let d = i + 1;
    while (isDigit(text.charCodeAt(d))) d++;
    cuts.push(s, d + 1);
    contextLines(text, s, i - s, escaped, cuts);
    i = d;
  }
}

/** The context lines (`path-n-`) next to the match line at `s` whose path is `len` long. */
function contextLines(text: string, s: number, len: number, escaped: boolean, cuts: number[]): void {
  const path = text.slice(s, s + len);
  const context = (p: number) => {
    if (!text.startsWith(path, p) || text.charCodeAt(p + len) !== 45) return -1;
    let d = p + len + 1;
    const ds = d;
    while (d < ds + MAX_NUMBER && isDigit(text.charCodeAt(d))) d++;
    return d > ds && text.charCodeAt(d) === 45 ? d + 1 : -1;
  };
  // Below, while the lines are context; above, the same, walking back a line at a time.
  for (let p = pastBreak(text, lineEnd(text, s, escaped)), n = 0; p < text.length && n < 64; n++) {
    const e = context(p);
    if (e < 0) break;
    cuts.push(p, e);
    p = pastBreak(text, lineEnd(text, e, escaped));
  }
  for (let p = s, n = 0; p > 0 && n < 64; n++) {
    const b = breakStart(text, p);
    if (b === p) break;
    const ls = lineStartIn(text, b, 4096);
    const e = context(ls);
    if (e < 0) break;
    cuts.push(ls, e);
    p = ls;
  }
}

/** `text` without the ranges of `cuts` (flat [start, end) pairs, any order, possibly overlapping). */
function cut(text: string, cuts: number[], alone: boolean): AgentView {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < cuts.length; i += 2) pairs.push([cuts[i] as number, cuts[i + 1] as number]);
  pairs.sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  const viewAt: number[] = [];
  const origAt: number[] = [];
  let pos = 0;
  let v = 0;
  for (const [s, e] of pairs) {
    if (e <= pos) continue;
    if (s > pos) {
      viewAt.push(v);
      origAt.push(pos);
      parts.push(text.slice(pos, s));
      v += s - pos;
    }
    pos = Math.max(pos, e);
  }
  viewAt.push(v);
  origAt.push(pos);
  parts.push(text.slice(pos));
  // join makes a flat string: a rope of slices scans slower.
  return { text: parts.join(""), viewAt, origAt, alone };
}

/** Where view offset `v` came from in the original. */
function origin(view: AgentView, v: number): number {
  const at = view.viewAt;
  let lo = 0;
  let hi = at.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((at[mid] as number) <= v) lo = mid;
    else hi = mid - 1;
  }
  return (view.origAt[lo] as number) + v - (at[lo] as number);
}

/** Spans found in the view, placed on the original. A span that crossed a cut covers the cut too. */
export function toOriginal(view: AgentView, spans: Span[]): Span[] {
  return spans.map((sp) => ({
    ...sp,
    s: origin(view, sp.s),
    e: sp.e > sp.s ? origin(view, sp.e - 1) + 1 : origin(view, sp.s),
  }));
}

/** One line of a diff, as a structured patch holds it (`["+KEY=value", "-KEY=old"]`). */
function oneDiffLine(text: string): boolean {
  const c = text.charCodeAt(0);
  return (c === 43 || c === 45) && text.length <= 4096 && !/[\n\r]|\\n/.test(text);
}

/** The view of `text` without Read's, cat's and a diff's prefixes, or null when it has none. */
export function lineView(text: string): AgentView | null {
  const cuts: number[] = [];
  numberPrefixes(text, cuts);
  const view: AgentView | null = cuts.length > 0 ? cut(text, cuts, true) : null;
  // A diff read through Read has its markers after the numbers: they are looked for in that view.
  const base = view === null ? text : view.text;
  const marks: number[] = [];
  let hunks = false;
  if (base.includes("@@ -")) {
    diffMarkers(base, marks);
    hunks = marks.length > 0;
  } else if (oneDiffLine(base)) {
    // Its marker may as well be a flag's dash: both the line and the view are read.
    marks.push(0, 1);
  }
  return marks.length > 0 ? compose(view, cut(base, marks, hunks)) : view;
}

/**
 * `view` (or `text`, when null) without grep's prefixes too, or null when it has none. Asked only of a
 * text whose scan met a `path:<digits>:` (./separators.ts): a walk over every colon costs 0.2 ms a MB.
 */
export function grepView(text: string, view: AgentView | null): AgentView | null {
  const current = view === null ? text : view.text;
  const cuts: number[] = [];
  grepPrefixes(current, cuts);
  return cuts.length > 0 ? compose(view, cut(current, cuts, false)) : null;
}

/** Whether the colon at `i` follows a path at a line's start and precedes a line number and a colon. */
export function grepColon(text: string, i: number): boolean {
  let d = i + 1;
  while (d < i + 1 + MAX_NUMBER && isDigit(text.charCodeAt(d))) d++;
  if (d === i + 1 || text.charCodeAt(d) !== 58) return false;
  const s = pathBefore(text, i);
  return s >= 0 && grepPath(text.slice(s, i));
}

const grepPath = (path: string) => /[/.]/.test(path) && /[A-Za-z]/.test(path);

/** `inner` is a view of `outer`'s text: one view of the original. `alone` only when both are. */
function compose(outer: AgentView | null, inner: AgentView): AgentView {
  if (outer === null) return inner;
  const viewAt: number[] = [];
  const origAt: number[] = [];
  // Every run of the inner view lies inside one or more runs of the outer: split where the outer's runs do.
  for (let k = 0; k < inner.viewAt.length; k++) {
    const vs = inner.viewAt[k] as number;
    const ve = k + 1 < inner.viewAt.length ? (inner.viewAt[k + 1] as number) : inner.text.length;
    let m = inner.origAt[k] as number;
    const mEnd = m + (ve - vs);
    let v = vs;
    for (;;) {
      viewAt.push(v);
      origAt.push(origin(outer, m));
      const next = nextRun(outer, m);
      if (next >= mEnd) break;
      v += next - m;
      m = next;
    }
  }
  return { text: inner.text, viewAt, origAt, alone: outer.alone && inner.alone };
}

/** The start (in the outer view) of the run after the one holding `m`. */
function nextRun(view: AgentView, m: number): number {
  const at = view.viewAt;
  let lo = 0;
  let hi = at.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((at[mid] as number) <= m) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1 < at.length ? (at[lo + 1] as number) : Number.POSITIVE_INFINITY;
}
