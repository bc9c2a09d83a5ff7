// Password hashes. A hash is not the password, but a leaked one cracks to it offline (a bcrypt of a
// common word falls in minutes), so the hashes of a SQL dump's users table, an /etc/shadow or passwd line,
// an .htpasswd or proftpd file are redacted by default, after their algorithm and cost (which say what it
// is and are no secret): `$2y$12$[REDACTED:password_hash]`.
//
// The modular crypt formats all start with `$<id>$`: bcrypt (`$2a$`, `$2b$`, `$2y$`), md5-crypt (`$1$`,
// Apache's `$apr1$`), sha256- and sha512-crypt (`$5$`, `$6$`), yescrypt (`$y$`) and argon2
// (`$argon2id$`). Each `$` of a text is found at memchr speed and the character after it decides in one
// read; only then a sticky regex checks the whole shape, which Perl's `$1$2` or a shell's `$5` never have.
// LDAP's `{SSHA}…` and its kin are found by their closing `}`, Django's `pbkdf2_sha256$…` by the
// word before its `$`. Docker Compose doubles every `$`.
import type { Span } from "./rule.ts";

const D = String.raw`(?:\$\$?|\\\$)`;
const C = "[./0-9A-Za-z]";
// After the opening `$`: the algorithm, its parameters, then (group) the salt and the hash.
const MCF = new RegExp(
  `(?:${[
    `2[abxy]${D}[0-9]{2}${D}(${C}{53})`,
    `(?:1|apr1)${D}(${C}{1,8}${D}${C}{22})`,
    `[56]${D}(?:rounds=[0-9]{1,9}${D})?(${C}{1,16}${D}${C}{43,86})`,
    `y${D}${C}{1,32}${D}(${C}{1,64}${D}${C}{43})`,
    `argon2(?:id|i|d)${D}v=[0-9]{1,3}${D}m=[0-9]{1,9},t=[0-9]{1,9},p=[0-9]{1,3}${D}([A-Za-z0-9+/]{8,88}${D}[A-Za-z0-9+/]{16,172})`,
  ].join("|")})(?![./0-9A-Za-z$])`,
  "dy",
);
const LDAP =
  /\{(?:S?SHA(?:256|384|512)?|S?MD5|CRYPT|PBKDF2(?:-SHA(?:256|512))?)\}([A-Za-z0-9+/.$]{16,200}={0,2})/dy;

/** The character after a `$` that can open a modular crypt hash: 2, 1, 5, 6, a (apr1, argon2) or y. */
function opensHash(c: number): boolean {
  return c === 50 || c === 49 || c === 53 || c === 54 || c === 97 || c === 121;
}

// Django's `pbkdf2_sha256$<iterations>$<salt>$<hash>` and `scrypt$…`: the word before the first `$`.
const DJANGO = /(?<![A-Za-z0-9_])(?:pbkdf2_sha(?:1|256)|scrypt)$/;
const DJANGO_REST =
  /\$[0-9]{1,9}(?:\$[0-9]{1,3}\$[0-9]{1,3})?\$([A-Za-z0-9+/=.]{4,128}\$[A-Za-z0-9+/=]{20,128})(?![A-Za-z0-9+/=$])/dy;

export function passwordHashes(text: string, spans: Span[]): void {
  for (let i = text.indexOf("$"); i >= 0; i = text.indexOf("$", i + 1)) {
    const b = text.charCodeAt(i - 1);
    if ((b === 54 || b === 49 || b === 116) && DJANGO.test(text.slice(Math.max(0, i - 14), i))) {
      DJANGO_REST.lastIndex = i;
      const g = DJANGO_REST.exec(text)?.indices?.[1];
      if (g !== undefined) {
        spans.push({ s: g[0], e: g[1], kind: "password_hash", p: 1 });
        i = g[1];
        continue;
      }
    }
    let j = i + 1;
    // A doubled `$` (Compose) or an escaped one (`\$` in a shell's double quotes).
    if (text.charCodeAt(j) === 36) j++;
    if (!opensHash(text.charCodeAt(j))) continue;
    MCF.lastIndex = j;
    const m = MCF.exec(text);
    if (m === null) continue;
    const g = m.indices?.find((r, k) => k > 0 && r !== undefined);
    if (g === undefined) continue;
    spans.push({ s: g[0], e: g[1], kind: "password_hash", p: 1 });
    i = g[1];
  }
}

/**
 * LDAP's and htpasswd's `{SSHA}…`, `{SHA512}…`, `{CRYPT}…`: found by their closing `}`, which follows a
 * capital or a digit there and almost nowhere else (code closes a block after a blank, a `;` or a `)`).
 * A walk over every `}` costs less than looking for each algorithm's word (0.2 vs 0.45 ms a MB).
 */
export function ldapHashes(text: string, spans: Span[]): void {
  for (let i = text.indexOf("}"); i >= 0; i = text.indexOf("}", i + 1)) {
    const c = text.charCodeAt(i - 1);
    if (!((c >= 65 && c <= 90) || (c >= 48 && c <= 57))) continue;
    // The longest name, `PBKDF2-SHA512`, has 13 characters.
    let open = i - 2;
    while (open >= 0 && i - open <= 14 && text.charCodeAt(open) !== 123) open--;
    if (open < 0 || text.charCodeAt(open) !== 123) continue;
    LDAP.lastIndex = open;
    const g = LDAP.exec(text)?.indices?.[1];
    if (g === undefined) continue;
    spans.push({ s: g[0], e: g[1], kind: "password_hash", p: 1 });
    i = g[1] - 1;
  }
}
