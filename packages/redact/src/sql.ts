// SQL that sets a password: `CREATE USER app WITH PASSWORD '...'`, `ALTER ROLE etl PASSWORD '...'`,
// MySQL's `IDENTIFIED BY '...'`. No anchor of the master regex fits (a new one cost a tenth of its time,
// and a regex gate for the keywords as much again), so the scan walks the text's single quotes with
// indexOf (memchr speed) and looks at the word before only where it ends in D or Y.
import { isPasswordPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";

// A keyword, not an option's name: `-password 'x'` is a command line's (./key-rules.ts reads it).
const KEYWORD = /(?:(?<!-)\bPASSWORD|(?<!-)\bpassword|\bIDENTIFIED[ \t]+BY|\bidentified[ \t]+by)[ \t]+$/;
const MAX_LITERAL = 256;
const USER = /\b(?:USER|ROLE|user|role)[ \t]+['"`]?([A-Za-z0-9_$.-]{1,64})['"`]?[^;]*$/;

export function sqlPasswords(text: string, spans: Span[]): void {
  for (let q = text.indexOf("'"); q >= 0; q = text.indexOf("'", q + 1)) {
    let b = q;
    while (b > 0 && (text.charCodeAt(b - 1) === 32 || text.charCodeAt(b - 1) === 9)) b--;
    const c = text.charCodeAt(b - 1) | 32;
    if (b === q || (c !== 100 && c !== 121) || !KEYWORD.test(text.slice(Math.max(0, q - 24), q))) continue;
    // The literal, with SQL's doubled quote as an escaped one.
    let e = q + 1;
    const limit = Math.min(text.length, q + 1 + MAX_LITERAL);
    while (e < limit) {
      if (text.charCodeAt(e) === 39) {
        if (text.charCodeAt(e + 1) !== 39) break;
        e++;
      } else if (text.charCodeAt(e) === 10) break;
      e++;
    }
    if (e >= limit || text.charCodeAt(e) !== 39) continue;
    const v = text.slice(q + 1, e);
    // `CREATE USER app WITH PASSWORD 'app'`: a tutorial's password is its user's name.
    const user = USER.exec(text.slice(Math.max(0, q - 200), q))?.[1];
    if (v.length > 0 && v !== user && !isPasswordPlaceholder(v))
      spans.push({ s: q + 1, e, kind: "password", p: 1 });
    q = e;
  }
}
