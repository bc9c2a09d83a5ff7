// A password as a config file's directive, its name and value apart by blanks: msmtp's and esmtp's
// `password "…"`, fetchmail's `user "me" password "…"`, Cisco's `username admin password 0 …`. No `=` or
// `:` stands between them, so the key rules never see one. The directive is the line's first word, or it
// follows a user's on the same line; its value is quoted, or the bare word that ends the line, since a
// sentence with "password" in it goes on with more words.
//
// Found by the word itself, which ./scan.ts does not look for first.
// `passwd` at a line's start is the command that changes a password (`passwd root`), not a directive.
import { escapedLetterAt, isBlank, isKeyCode } from "./chars.ts";
import { breakBefore, lineEndIn, lineStartIn } from "./lines.ts";
import { isPasswordPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";

const AFTER_USER = /(?:^|[\s"'])(?:user(?:name)?|login)[ \t]+\S+[ \t]+(?:\S+[ \t]+){0,4}$/;
const MAX_LINE = 4096;
const SENTENCE_END = /^[A-Za-z]+\.$/;

/** The next "password" at or after `from`, found by its "word": `w` is rarer than `p` (0.2 vs 0.6 ms a MB). */
function passwordAt(text: string, from: number): number {
  for (let i = text.indexOf("word", from + 4); i >= 0; i = text.indexOf("word", i + 4))
    if (text.startsWith("pass", i - 4)) return i - 4;
  return -1;
}

/** Whether only blanks stand between the line's start and `at`; the start is a break, real or escaped. */
function firstWord(text: string, at: number): boolean {
  let i = at;
  while (i > 0 && isBlank(text.charCodeAt(i - 1))) i--;
  return i === 0 || breakBefore(text, i) || text.charCodeAt(i - 1) === 34;
}

export function passwordDirectives(text: string, spans: Span[]): void {
  for (let i = passwordAt(text, 0); i >= 0; i = passwordAt(text, i + 8)) {
    // `userpassword`, `db_password`: part of a name. A JSON-escaped `\n` before it is a line's break.
    if (i > 0 && isKeyCode(text.charCodeAt(i - 1)) && !escapedLetterAt(text, i - 1)) continue;
    let p = i + 8;
    if (!isBlank(text.charCodeAt(p))) continue;
    while (isBlank(text.charCodeAt(p))) p++;
    // Cisco's encryption type: `password 0 <plain>`, `password 7 <encoded>`.
    const t = text.charCodeAt(p);
    if (t >= 48 && t <= 55 && isBlank(text.charCodeAt(p + 1)) && text.charCodeAt(p + 2) > 32) {
      p++;
      while (isBlank(text.charCodeAt(p))) p++;
    }
    // The value first: a sentence with "password" in it rarely has one, and the user's test reads back.
    const value = directiveValue(text, p);
    if (value === null) continue;
    if (!firstWord(text, i) && !AFTER_USER.test(text.slice(lineStartIn(text, i, 200), i))) continue;
    const v = text.slice(value[0], value[1]);
    if (v.length > 0 && !isPasswordPlaceholder(v))
      spans.push({ s: value[0], e: value[1], kind: "password", p: 1 });
    i = value[1];
  }
}

/** The value at `p`: a quoted string (escaped quotes too), or a bare word; null where none is one. */
function directiveValue(text: string, p: number): [number, number] | null {
  let q = p;
  while (text.charCodeAt(q) === 92 && q - p < 8) q++;
  const c = text.charCodeAt(q);
  if (c === 34 || c === 39) {
    const le = lineEndIn(text, p, MAX_LINE);
    const open = text.slice(p, q + 1);
    const close = text.indexOf(open, q + 1);
    if (close < 0 || close > le) return null;
    return [q + 1, close];
  }
  // A bare word: it stops at a blank or a break (a real one is a control character, an escaped one
  // starts with a backslash), so the line's end is looked for only after it.
  const limit = Math.min(text.length, p + MAX_LINE);
  let e = p;
  while (e < limit && text.charCodeAt(e) > 32 && text.charCodeAt(e) !== 92) e++;
  if (e === p) return null;
  // The word ends its line (or a comment follows): a sentence goes on with more words.
  let r = e;
  while (isBlank(text.charCodeAt(r))) r++;
  const n = text.charCodeAt(r);
  const ends = r >= text.length || n === 13 || n === 35 || n === 59 || lineEndIn(text, r, 1) === r;
  // A word and a full stop end a sentence (`… the login form takes a password too.`), not a directive.
  return ends && !SENTENCE_END.test(text.slice(p, e)) ? [p, e] : null;
}
