// A word list expanded and indexed by its endings (packages/redact/src/alternation.ts) must answer what a
// lookbehind over the list as written answers: at the end of every string made of its words' pieces.
import { describe, expect, it } from "vitest";
import { endingIndex, endsWithOneOf, wordsOf } from "../src/alternation.ts";
import { pick, seededRandom } from "./random.ts";

const LISTS = [
  "gh[pousr]|glc|glsa|whsec|hf|npm|shp(?:at|ss|ca|pa)|sbp?|fm(?:1[ar]|2)|access|add|r8",
  "gl(?:pat|dt|ptt|rt)|xox[abposre]|xapp|sk|NR(?:AK|II)|sq0(?:atp|csp)|add",
  "ya29|SG|dp|hv[sbr]|xoxe|hooks|sk|st|sl|dt0c01",
  "[Pp]ass(?:word|wd)?s?|PASS(?:WORD)?S?|[Kk]ey|KEY|(?:[Kk]ey|KEY)[_.]?(?:[Bb]ase|[Ii][Dd])|secret_id|[Ss]alt",
];

/** Strings ending in words, parts of words and neighbours, for `list`. */
function samples(list: string, seed: number): string[] {
  const rnd = seededRandom(seed);
  const pieces = [...new Set(list.replace(/\[[^\]]*\]|[()?:|{}0-9]/g, " ").split(/\s+/))].filter(Boolean);
  const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
  const out: string[] = [];
  for (let i = 0; i < 4000; i++) {
    let s = "";
    const n = 1 + Math.floor(rnd() * 4);
    for (let j = 0; j < n; j++) {
      s += rnd() < 0.7 ? pick(rnd, pieces) : pick(rnd, chars);
    }
    out.push(s);
  }
  return out;
}

describe("lookbehind word lists", () => {
  it.each(LISTS)(
    "%s: the index finds a word ending where the pattern does, at every string's end",
    (list) => {
      const plain = new RegExp(`(?<=(?:${list}))$`);
      const index = endingIndex(wordsOf(list));
      for (const s of samples(list, list.length))
        expect(endsWithOneOf(index, s, s.length), s).toBe(plain.test(s));
    },
  );

  it("expands a finite pattern to its strings, and refuses one that is not finite", () => {
    expect(wordsOf("[Kk]ey(?:_id)?|PSK").sort()).toEqual(["Key", "Key_id", "PSK", "key", "key_id"]);
    expect(() => wordsOf("a{2}")).toThrow();
    expect(() => wordsOf("[a-z]")).toThrow();
  });

  it("finds which words end at a position", () => {
    const index = endingIndex(wordsOf("[Pp]assword|key|KEY_ID"));
    expect(endsWithOneOf(index, "my_password=", 11)).toBe(true);
    expect(endsWithOneOf(index, "monkey:", 6)).toBe(true);
    expect(endsWithOneOf(index, "API_KEY_ID", 10)).toBe(true);
    expect(endsWithOneOf(index, "passwords", 9)).toBe(false);
    expect(endsWithOneOf(index, "ey", 2)).toBe(false);
  });
});
