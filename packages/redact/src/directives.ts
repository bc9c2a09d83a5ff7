// A password as a config file's directive, its name and value apart by blanks: msmtp's and esmtp's
// `password "…"`, fetchmail's `user "me" password "…"`, Cisco's `username admin password 0 …`. No `=` or
// `:` stands between them, so the key rules never see one. The directive is the line's first word, or it
// follows a user's on the same line; its value is quoted, or the bare word that ends the line, since a
// sentence with "password" in it goes on with more words.
//
// Gated on the word: an eight-letter needle, which indexOf skips through many characters at a time.
// `passwd` at a line's start is the command that changes a password (`passwd root`), not a directive.
import { escapedLetterAt, isBlank } from "./chars.ts";
import { breakBefore, lineEndIn, lineStartIn } from "./lines.ts";
import { isPasswordPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";

const WORD = /[A-Za-z0-9_.-]/;
const AFTER_USER = /(?:^|[\s"'])(?:user(?:name)?|login)[ \t]+\S+[ \t]+(?:\S+[ \t]+){0,4}$/;
const MAX_LINE = 4096;

/** Whether only blanks stand between the line's start and `at`; the start is a break, real or escaped. */
function firstWord(text: string, at: number): boolean {
  let i = at;
  while (i > 0 && isBlank(text.charCodeAt(i - 1))) i--;
  return i === 0 || breakBefore(text, i) || text.charCodeAt(i - 1) === 34;
}

export function passwordDirectives(text: string, spans: Span[]): void {
  for (let i = text.indexOf("password"); i >= 0; i = text.indexOf("password", i + 8)) {
    // `userpassword`, `db_password`: part of a name. A JSON-escaped `\n` before it is a line's break.
    if (i > 0 && WORD.test(text[i - 1] as string) && !escapedLetterAt(text, i - 1)) continue;
    let p = i + 8;
    if (!isBlank(text.charCodeAt(p))) continue;
    const first = firstWord(text, i);
    if (!first && !AFTER_USER.test(text.slice(lineStartIn(text, i, 200), i))) continue;
    while (isBlank(text.charCodeAt(p))) p++;
    // Cisco's encryption type: `password 0 <plain>`, `password 7 <encoded>`.
    if (/^[0-7][ \t]+\S/.test(text.slice(p, p + 3))) {
      p++;
      while (isBlank(text.charCodeAt(p))) p++;
    }
    const value = directiveValue(text, p);
    if (value === null) continue;
    const v = text.slice(value[0], value[1]);
    if (v.length > 0 && !isPasswordPlaceholder(v))
      spans.push({ s: value[0], e: value[1], kind: "password", p: 1 });
    i = value[1];
  }
}

/** The value at `p`: a quoted string (escaped quotes too), or a bare word; null where none is one. */
function directiveValue(text: string, p: number): [number, number] | null {
  const le = lineEndIn(text, p, MAX_LINE);
  let q = p;
  while (text.charCodeAt(q) === 92 && q - p < 8) q++;
  const c = text.charCodeAt(q);
  if (c === 34 || c === 39) {
    const open = text.slice(p, q + 1);
    const close = text.indexOf(open, q + 1);
    if (close < 0 || close > le) return null;
    return [q + 1, close];
  }
  let e = p;
  while (e < le && text.charCodeAt(e) > 32 && text.charCodeAt(e) !== 92) e++;
  if (e === p) return null;
  // A bare word ends its line (or a comment follows): a sentence goes on with more words.
  let r = e;
  while (r < le && isBlank(text.charCodeAt(r))) r++;
  const ends = r >= le || text.charCodeAt(r) === 35 || text.charCodeAt(r) === 59;
  return ends ? [p, e] : null;
}
