// Split secrets: a token cut into pieces that only a reader joins, such as
// `"ghp_abc" + "def"`, implicit concatenation, JSON arrays of parts, stream
// deltas, wrapped terminal lines and shell variables joined later.
//
// Joining is only attempted where a provider prefix was found and its token
// either failed its rule (too short) or ended right at a seam. Each attempt
// reads a bounded window after the prefix, so the scan stays linear.
import {
  escapedLetterAt,
  hasDigit,
  isBlank,
  isDigit,
  isLower,
  isQuote,
  isUpper,
  keyLike,
  mixedCase,
} from "./chars.ts";
import { BREAK, INDENT } from "./lines.ts";
import { type Rule, type Span, tryRule, tryRules } from "./rule.ts";

const MAX_PIECES = 12;
const MAX_JOINED = 1200;
const OP = String.raw`(?:[+.&]|\|\|)`;
// Closing quote, an optional concatenation operator (also across a line break), the same quote opening,
// escaped as the closing one was (in a JSON string, `\"ab\"\n"` reaches the string's own end); or a
// template's interpolation closing (`${"ghp_ab"}cd`, `${"ghp_ab"}${"cd"}`), taken only after one opened.
const CONCAT_SEAM = new RegExp(
  String.raw`(\\{0,3})(["'\`])[ \t]*(?:[+.&,]|\|\||<<)?[ \t]*(?:${BREAK}${INDENT}(?:${OP}[ \t]*)?)?\1\2`,
  "y",
);
const TEMPLATE_SEAM = /\\{0,3}["']\}(?:\$\{\\{0,3}["'])?/y;
const TEMPLATE_OPEN = /\$\{\\{0,3}["']$/;
// A wrapped terminal line: the break, then indentation or a box-drawing border.
const WRAP_SEAM = new RegExp(String.raw`[ \t]*${BREAK}(?:[ \t│┃|>]|\\{1,3}t)*`, "y");
const DELTA_KEY = /"([A-Za-z_]{1,24})"[ \t]*:[ \t]*"$/;

function isPieceCode(c: number): boolean {
  return (
    isUpper(c) ||
    isLower(c) ||
    isDigit(c) ||
    c === 95 ||
    c === 45 ||
    c === 46 ||
    c === 43 ||
    c === 47 ||
    c === 61 ||
    c === 126
  );
}

function pieceEnd(text: string, from: number): number {
  let e = from;
  const limit = Math.min(text.length, from + MAX_JOINED);
  while (e < limit && isPieceCode(text.charCodeAt(e))) e++;
  return e;
}

/**
 * Where the next piece starts after the seam at `pos`, or -1. `key` is the JSON key of the first
 * piece; `template` whether it stood in a template's `${"…"}`. A line break is a seam only before a piece
 * that looks generated: prose goes on after one.
 */
function nextPiece(text: string, pos: number, key: string | undefined, template: boolean): number {
  CONCAT_SEAM.lastIndex = pos;
  if (CONCAT_SEAM.test(text)) return CONCAT_SEAM.lastIndex;
  if (template) {
    TEMPLATE_SEAM.lastIndex = pos;
    if (TEMPLATE_SEAM.test(text)) return TEMPLATE_SEAM.lastIndex;
  }
  if (key !== undefined && text.charCodeAt(pos) === 34) {
    // A stream delta: the next event's value under the same key.
    const i = text.indexOf(`"${key}":"`, pos);
    if (i > 0 && i - pos < 400) return i + key.length + 4;
  }
  WRAP_SEAM.lastIndex = pos;
  if (WRAP_SEAM.test(text) && WRAP_SEAM.lastIndex > pos) {
    const ns = WRAP_SEAM.lastIndex;
    if (looksGenerated(text.slice(ns, pieceEnd(text, ns)))) return ns;
  }
  return -1;
}

export function looksGenerated(piece: string): boolean {
  if (piece.length < 6) return false;
  return (
    keyLike(piece) || (hasDigit(piece) && /[A-Za-z]/.test(piece)) || (piece.length >= 8 && mixedCase(piece))
  );
}

interface Piece {
  s: number;
  e: number;
}

/**
 * Joins the pieces that start at `start` and retries `rules` on the joined text.
 * Pushes one span per piece the token covers; returns where the scan resumes, or -1.
 */
function joinPieces(
  rules: Rule[] | undefined,
  text: string,
  start: number,
  spans: Span[],
  first?: Span,
): number {
  if (rules === undefined) return -1;
  const e0 = pieceEnd(text, start);
  if (first !== undefined && first.e !== e0) return -1;
  // Only a quote, a line break or a line-continuation backslash can start a seam.
  const c = text.charCodeAt(e0);
  if (!(isQuote(c) || c === 92 || c === 10 || c === 13 || c === 32 || c === 9)) return -1;
  const before = text.slice(Math.max(0, start - 40), start);
  const key = DELTA_KEY.exec(before)?.[1];
  const template = TEMPLATE_OPEN.test(before);
  const pieces: Piece[] = [{ s: start, e: e0 }];
  let joined = text.slice(start, e0);
  let pos = e0;
  while (pieces.length < MAX_PIECES && joined.length < MAX_JOINED) {
    const ns = nextPiece(text, pos, key, template);
    if (ns < 0) break;
    const ne = pieceEnd(text, ns);
    // After a token that is whole by itself, only a generated-looking piece can continue it.
    if (ne === ns || (first !== undefined && !looksGenerated(text.slice(ns, ne)))) break;
    pieces.push({ s: ns, e: ne });
    joined += text.slice(ns, ne);
    pos = ne;
  }
  if (pieces.length < 2) return -1;
  for (const r of rules) {
    const hit = tryRule(r, joined, 0);
    if (hit === null || hit.e <= (pieces[0] as Piece).e - start) continue;
    // Map the joined span back onto the pieces it covers.
    let off = 0;
    let end = -1;
    for (const pc of pieces) {
      const len = pc.e - pc.s;
      const s = Math.max(hit.s, off);
      const e = Math.min(hit.e, off + len);
      if (s < e) {
        spans.push({ s: pc.s + s - off, e: pc.s + e - off, kind: r.kind, p: 2 });
        end = pc.s + e - off;
      }
      off += len;
    }
    return end;
  }
  return -1;
}

// A shell variable assigned at a word's start: after a blank, a `;`, a JSON string's opening quote or a
// line break or tab as the string escapes them; its value quoted (the quote escaped too) or not.
const SHELL_VAR = /(?:^|[\s;"]|\\[nt])([A-Za-z_][A-Za-z0-9_]{0,40})=(?:\\{0,3}["'])?$/;

/** Whether an assignment's name starts at `d`: after a blank, a `;` or an escaped break or tab. */
function wordStart(text: string, d: number): boolean {
  const c = text.charCodeAt(d - 1);
  return isBlank(c) || c === 10 || c === 13 || c === 59 || escapedLetterAt(text, d - 1);
}

/** `P1=ghp_abc; P2=def; TOKEN="$P1$P2"`: the variable holding a prefix is later joined with another. */
function joinShellVars(rules: Rule[] | undefined, text: string, start: number, spans: Span[]): number {
  if (rules === undefined) return -1;
  const name = SHELL_VAR.exec(text.slice(Math.max(0, start - 48), start))?.[1];
  if (name === undefined) return -1;
  const e0 = pieceEnd(text, start);
  const window = text.slice(e0, e0 + 600);
  // `$A$B`, `${A}${B}`: the variable is read right before another one.
  let r = window.indexOf(`$${name}$`);
  if (r < 0) r = window.indexOf(`\${${name}}$`);
  if (r < 0) return -1;
  const other = /^\$\{?([A-Za-z_][A-Za-z0-9_]{0,40})/.exec(window.slice(window.indexOf("$", r + 1)))?.[1];
  if (other === undefined) return -1;
  let d = window.indexOf(`${other}=`);
  while (d > 0 && !wordStart(window, d)) d = window.indexOf(`${other}=`, d + 1);
  if (d < 0) return -1;
  let s2 = e0 + d + other.length + 1;
  while (text.charCodeAt(s2) === 92 && s2 - (e0 + d) < other.length + 5) s2++;
  if (isQuote(text.charCodeAt(s2))) s2++;
  const e2 = pieceEnd(text, s2);
  const joined = text.slice(start, e0) + text.slice(s2, e2);
  for (const r of rules) {
    const hit = tryRule(r, joined, 0);
    if (hit === null || hit.e <= e0 - start) continue;
    spans.push({ s: start, e: e0, kind: r.kind, p: 2 }, { s: s2, e: e2, kind: r.kind, p: 2 });
    return e0;
  }
  return -1;
}

/** A provider prefix at `start`: its rule, or failing that the pieces it was split into. */
export function prefixed(
  rules: Rule[] | undefined,
  text: string,
  start: number,
  spans: Span[],
  miss: number,
): number {
  const hit = tryRules(rules, text, start);
  if (hit !== null) {
    // A whole-looking token may still be the first part of a longer one split at a seam.
    const joined =
      hit.e < text.length && !isPieceCode(text.charCodeAt(hit.e))
        ? joinPieces(rules, text, start, spans, hit)
        : -1;
    if (joined >= 0) return joined;
    spans.push(hit);
    return hit.e;
  }
  const joined = joinPieces(rules, text, start, spans);
  if (joined >= 0) return joined;
  const shell = joinShellVars(rules, text, start, spans);
  return shell >= 0 ? shell : miss;
}
