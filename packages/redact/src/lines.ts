// Lines of a text that may be JSON-escaped. Inside a JSON string a line ends at an escaped `\n` (one
// backslash, or three and more when the string sits in another one), not at a line break: a rule that
// reads a whole line (a table's row, a Secret's data, a .pgpass entry) reads it here the same way in a file,
// a transcript line and a transcript line quoted inside another.

import { isBlank } from "./chars.ts";

// Regex sources for the seams of a literal split over lines (./split.ts, ./key-rules.ts). A line break as a
// file has it (after a shell's or a template's continuation backslash, or none), or as a JSON string
// carries it: `\n` once escaped, `\\n` twice, `\\\n` for a continuation escaped once, six backslashes
// for one escaped twice.
export const BREAK = String.raw`(?:\\?\r?\n|\\{1,7}(?:r\\{1,7})?n)`;
/** Indentation, whose tabs a JSON string escapes too. */
export const INDENT = String.raw`(?:[ \t]|\\{1,3}t)*`;

/**
 * Whether `at` is right after the opening quote of a JSON string's value (`"content":"`, `\"content\":\"`):
 * there the first line of the text it carries starts, as a tool's result starts with a file's first line.
 */
export function jsonValueStart(text: string, at: number): boolean {
  let i = at - 1;
  if (text.charCodeAt(i) !== 34) return false;
  while (text.charCodeAt(i - 1) === 92) i--;
  while (isBlank(text.charCodeAt(i - 1))) i--;
  if (text.charCodeAt(i - 1) !== 58) return false;
  i--;
  while (isBlank(text.charCodeAt(i - 1))) i--;
  return text.charCodeAt(i - 1) === 34;
}

/** Whether `text[i]` is the `n` of an escaped line break. */
export function escapedBreakAt(text: string, i: number): boolean {
  return text.charCodeAt(i) === 110 && text.charCodeAt(i - 1) === 92;
}

/** Whether a line break, real or escaped, ends right before `at`. */
export function breakBefore(text: string, at: number): boolean {
  const c = text.charCodeAt(at - 1);
  return c === 10 || escapedBreakAt(text, at - 1);
}

/** Where the line holding `at` starts, after a real or escaped break, at most `max` characters back. */
export function lineStartIn(text: string, at: number, max: number): number {
  const min = Math.max(0, at - max);
  let i = at;
  while (i > min && !breakBefore(text, i)) i--;
  return i;
}

/** Where the line starting at or holding `at` ends: at its break, or at the first backslash of an escaped one. */
export function lineEndIn(text: string, at: number, max: number): number {
  const limit = Math.min(text.length, at + max);
  for (let i = at; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return i;
    if (c === 92) {
      const b = i;
      while (text.charCodeAt(i + 1) === 92) i++;
      if (text.charCodeAt(i + 1) === 110) return b;
    }
  }
  return limit;
}

/** Past the break at `e` (as lineEndIn found it), or the text's end. */
export function pastBreak(text: string, e: number): number {
  if (e >= text.length) return text.length;
  if (text.charCodeAt(e) === 10) return e + 1;
  let i = e;
  while (text.charCodeAt(i) === 92) i++;
  return i + 1;
}

/** Where the break that ends right before `at` starts (`at` itself when none does). */
export function breakStart(text: string, at: number): number {
  if (text.charCodeAt(at - 1) === 10) return text.charCodeAt(at - 2) === 13 ? at - 2 : at - 1;
  if (!escapedBreakAt(text, at - 1)) return at;
  let i = at - 1;
  while (text.charCodeAt(i - 1) === 92) i--;
  return i;
}
