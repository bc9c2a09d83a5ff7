// The separators (`=` and `:`) are tried in code, not by one regex (packages/redact/src/separators.ts): each
// branch's code must decide as its regex does, at every separator. Held to the regexes here on both
// redaction corpora, the throughput bench's generated traffic and seeded random texts built from the
// pieces the branches look at, so that a branch's code that lets through less than its regex fails.
import { describe, expect, it } from "vitest";
import { buildCorpus } from "../bench/redact.bench.ts";
import { buildRedactionCorpus } from "../scripts/corpus.ts";
import { buildDocsCorpus } from "../scripts/corpus-docs.ts";
import { escapeAware } from "../src/rule.ts";
import {
  matched,
  SEPARATOR_BRANCHES,
  type SeparatorBranch,
  separatorMatch,
  separatorRegex,
} from "../src/separators.ts";
import { pick, seededRandom } from "./random.ts";

// The pieces the branches read around a separator, and the noise between them.
const PIECES = [
  "password",
  "Password",
  "PASSWORD",
  "passwd",
  "pwd",
  "PWD",
  "pass",
  "passphrase",
  "secret",
  "secrets",
  "SECRET",
  "token",
  "Token",
  "TOKEN",
  "apiKey",
  "api_key",
  "API_KEY",
  "key",
  "KEY",
  "key_id",
  "KeyId",
  "keybase",
  "auth",
  "Authorization",
  "cookie",
  "cred",
  "credentials",
  "string",
  "connstr",
  "login",
  "value",
  "psk",
  "bearer",
  "secret_id",
  "encrypt",
  "salt",
  "monkey",
  "status",
  "type",
  "node",
  "url",
  "=",
  "=",
  ":",
  ":",
  "::",
  "==",
  " ",
  "  ",
  "\t",
  "\n",
  "\\n",
  '"',
  "'",
  "`",
  "\\",
  '\\"',
  "]",
  "[",
  ")",
  "(",
  "{",
  "}",
  ",",
  ";",
  ".",
  "/",
  "//",
  "://",
  "@",
  "?",
  "&",
  "sig",
  "X-Amz-Signature",
  "/p",
  "jdbc:oracle:thin",
  "LS0tLS1CRUdJTi",
  "ewogICJ",
  "eyJ",
  "APA91b",
  "AA",
  "*",
  "5432",
  "db",
  "user",
  "export ",
  "FOO_BAR",
  "the token for staging",
  "Q7aZ9xY2bW4vU6tS8rP0oN1mL3kJ5hG",
  "Q7aZ9xY2bW4vU6tS",
  "Q7aZ9xY2bW4vU6t",
  "aGVsbG8gd29ybGQgdGhpcyBpcyBhIGtleSBvZiA0M2No",
  "abc",
  "x",
  "0",
  "99",
  "\u00a0",
  "\u2028",
  "é",
];

function randomTexts(seed: number, count: number): string[] {
  const rnd = seededRandom(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let t = "";
    const n = 2 + Math.floor(rnd() * 14);
    for (let j = 0; j < n; j++) {
      const piece = pick(rnd, PIECES);
      // Long runs now and then: a key walk or a token run at its bound.
      t += rnd() < 0.03 ? piece.repeat(1 + Math.floor(rnd() * 40)) : piece;
    }
    out.push(t);
  }
  return out;
}

function corpusTexts(): string[] {
  const texts: string[] = [];
  for (const c of [buildRedactionCorpus(), buildDocsCorpus()]) {
    for (const p of c.positives) texts.push(p.text);
    for (const l of c.lookalikes) texts.push(l.text);
  }
  // JSON-escaped copies: the separators' escapes and quotes.
  for (const t of texts.slice(0, 2000)) texts.push(JSON.stringify(t));
  texts.push(...buildCorpus(2_000_000, 7).docs);
  return texts;
}

function separators(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 58 || c === 61) out.push(i);
  }
  return out;
}

const REGEX = new Map<SeparatorBranch, RegExp>(SEPARATOR_BRANCHES.map((b) => [b, separatorRegex(b)]));
const ALL = new RegExp(escapeAware(`[=:](?:${SEPARATOR_BRANCHES.map((b) => b.src).join("|")})`), "y");

/** The regex's answer for a branch at `at`: its capture, or null. */
function regexCapture(b: SeparatorBranch, text: string, at: number): string | null {
  const re = REGEX.get(b) as RegExp;
  re.lastIndex = at;
  return re.exec(text)?.[1] ?? null;
}

/** Every way a branch's code can differ from its regex at the separators of `texts`, the first few. */
function differences(texts: string[]): string[] {
  const out: string[] = [];
  for (const text of texts) {
    for (const at of separators(text)) {
      for (const [k, b] of SEPARATOR_BRANCHES.entries()) {
        const want = regexCapture(b, text, at);
        if (b.capture !== undefined) {
          const got = b.capture(text, at);
          if (got !== want)
            out.push(`branch ${k} (capture) at ${at} of ${JSON.stringify(text)}: ${got} vs ${want}`);
        } else if (want !== null && b.may?.(text, at) !== true) {
          out.push(`branch ${k} (may) rules out ${at} of ${JSON.stringify(text)} where its regex matches`);
        }
      }
      // The first branch to match, and its capture, as one regex of all of them finds.
      ALL.lastIndex = at;
      const m = ALL.exec(text);
      const found = separatorMatch(text, at);
      const first = m === null ? -1 : m.findIndex((g, i) => i > 0 && g !== undefined) - 1;
      if (
        found !== (m !== null) ||
        (m !== null && (SEPARATOR_BRANCHES[first] !== matched.branch || m[first + 1] !== matched.cap))
      ) {
        out.push(`separatorMatch at ${at} of ${JSON.stringify(text)}`);
      }
      if (out.length >= 5) return out;
    }
  }
  return out;
}

describe("the separators' branches decide as their regexes", () => {
  it("at every separator of both corpora and the bench's traffic", () => {
    expect(differences(corpusTexts())).toEqual([]);
  }, 120_000);

  it.each([1, 2, 3])(
    "at every separator of random texts made of their pieces (seed %i)",
    (seed) => {
      expect(differences(randomTexts(seed, 20_000))).toEqual([]);
    },
    120_000,
  );

  it("every branch has a regex with one group and either exact code or a necessary condition", () => {
    for (const b of SEPARATOR_BRANCHES) {
      expect(new RegExp(`${b.src}|`).exec("")?.length).toBe(2);
      expect((b.capture === undefined) !== (b.may === undefined)).toBe(true);
    }
  });
});
