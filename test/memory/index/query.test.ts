import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { MAX_QUERY_BYTES, parseQuery, QueryError, quoteFts } from "../../../src/memory/index/query.ts";
import { INHERITED_NAMES } from "../../helpers/inherited-names.ts";

const Sqlite = createRequire(import.meta.url)("better-sqlite3");

/** A real FTS5 pair (words, trigram) to run every generated expression against. */
function ftsTables() {
  const db = new Sqlite(":memory:");
  db.exec(
    "CREATE VIRTUAL TABLE w USING fts5(body); CREATE VIRTUAL TABLE g USING fts5(body, tokenize='trigram');",
  );
  const rows = [
    "fix the flaky recorder test in src/core/store.ts",
    "rename snake_case_name and pass --dry-run to the script",
    "the hook server answers on 127.0.0.1",
    "NEAR the column body: says AND OR NOT",
  ];
  for (const r of rows) {
    db.prepare("INSERT INTO w VALUES (?)").run(r);
    db.prepare("INSERT INTO g VALUES (?)").run(r);
  }
  const count = (table: "w" | "g", match: string): number =>
    db.prepare(`SELECT count(*) AS c FROM ${table} WHERE ${table} MATCH ?`).get(match).c;
  return { db, count };
}

function errorOf(text: string): QueryError {
  try {
    parseQuery(text);
  } catch (error) {
    if (error instanceof QueryError) return error;
    throw error;
  }
  throw new Error(`no error for ${JSON.stringify(text)}`);
}

describe("parseQuery", () => {
  it("ANDs words by default, each quoted", () => {
    const q = parseQuery("flaky recorder");
    expect(q.match).toBe('"flaky" AND "recorder"');
    expect(q.terms).toEqual(["flaky", "recorder"]);
    expect(q.filters).toEqual({});
  });

  it("keeps a phrase whole and a prefix as a prefix query", () => {
    expect(parseQuery('"flaky recorder" rec*').match).toBe('"flaky recorder" AND "rec" *');
    expect(parseQuery('"flaky test"*').match).toBe('"flaky test" *');
  });

  it("joins the terms beside OR, tighter than the implicit AND", () => {
    expect(parseQuery("hook server OR proxy").match).toBe('"hook" AND ("server" OR "proxy")');
    expect(parseQuery("a OR b OR c").match).toBe('("a" OR "b" OR "c")');
  });

  it('excludes -word, -"phrase" and NOT word', () => {
    expect(parseQuery('recorder -flaky -"dry run"').match).toBe('("recorder") NOT "flaky" NOT "dry run"');
    expect(parseQuery("recorder NOT flaky").match).toBe('("recorder") NOT "flaky"');
    expect(parseQuery("recorder AND flaky").match).toBe('"recorder" AND "flaky"');
  });

  it("reads kind:, provider: and session: filters, comma lists and quoted values", () => {
    const q = parseQuery('kind:user_prompt,tool_call provider:claude session:"s 1" session:s2 hook');
    expect(q.filters).toEqual({
      kinds: ["user_prompt", "tool_call"],
      providers: ["claude"],
      sessions: ["s 1", "s2"],
    });
    expect(q.match).toBe('"hook"');
    expect(parseQuery("kind:user_prompt").match).toBe("");
  });

  it("treats a word with an unknown field as a term (a URL, a path with a colon)", () => {
    const q = parseQuery("body:x http://127.0.0.1:8080/x");
    expect(q.match).toBe('"body:x" AND "http://127.0.0.1:8080/x"');
    expect(q.filters).toEqual({});
  });

  it("flags identifiers, paths and flags for the trigram index", () => {
    expect(parseQuery("src/core/store.ts").identifiers).toBe(true);
    expect(parseQuery("snake_case_name").identifiers).toBe(true);
    expect(parseQuery("--dry-run").identifiers).toBe(true);
    expect(parseQuery("recorder").identifiers).toBe(false);
    expect(parseQuery("src/core/store.ts").trigram).toBe('"src/core/store.ts"');
    expect(parseQuery("rec*").trigram).toBe('"rec"');
    // A term under three characters cannot be matched by trigrams.
    expect(parseQuery("ab store.ts").trigram).toBeUndefined();
  });

  it("doubles a quote inside an FTS5 string", () => {
    expect(quoteFts('a"b')).toBe('"a""b"');
    expect(parseQuery('it"s').match).toBe('"it""s"');
  });

  it.each([
    ['"unterminated', "unterminated quote", 1],
    ["a OR", "OR must stand between two terms", 3],
    ["OR a", "OR must stand between two terms", 1],
    ["a OR OR b", "OR must stand between two terms", 6],
    ["a OR -b", "OR cannot join an excluded term", 6],
    ["-a -b", "at least one word that is not excluded", 1],
    ["a NOT", "NOT before a term", 3],
    ["*", "a * must end a word", 1],
    ["kind:", "kind: needs a value", 1],
    ["kind:banana", 'unknown kind "banana"', 1],
    ['kind:"banana"', 'unknown kind "banana"', 1],
    ["-kind:user_prompt x", "cannot be excluded", 1],
    ['"a"b', "closing quote must be followed by a space", 4],
    ['""', "empty phrase", 1],
  ])("refuses %j with a clear message and position", (text, message, column) => {
    const error = errorOf(text);
    expect(error.message).toContain(message);
    expect(error.message).toContain(`at character ${column}`);
    expect(error.exitCode).toBe(2);
  });

  it("refuses a 100 KB query before parsing it", () => {
    // The unterminated quote at the end would be reported if the text were parsed at all.
    const error = errorOf(`${"word ".repeat(20_000)}"`);
    expect(error.message).toContain(`longer than ${MAX_QUERY_BYTES} bytes`);
    expect(errorOf(`${"é".repeat(2049)}`).message).toContain("longer than");
  });

  it("refuses more terms than it bounds", () => {
    expect(errorOf("a ".repeat(65)).message).toContain("more than 64 terms");
  });

  it("replaces control characters (NUL, ESC) before anything reaches SQLite", () => {
    const q = parseQuery("rec\u0000order \u001b[31mred");
    expect(q.match).toBe('"rec" AND "order" AND "[31mred"');
  });

  it("gives FTS5's own syntax in user input no meaning: it is searched as text", () => {
    const { count } = ftsTables();
    // Unquoted, each of these is an FTS5 syntax error or a column filter.
    for (const text of [
      "body:says",
      "NEAR(the column)",
      "^the",
      "+the",
      "a:b",
      "(column",
      "column)",
      "{body}: says",
      "the AND",
      "said.",
      "127.0.0.1",
      "--dry-run",
    ]) {
      const q = parseQuery(text);
      expect(() => count("w", q.match), text).not.toThrow();
      if (q.trigram) expect(() => count("g", q.trigram!), text).not.toThrow();
    }
    expect(count("w", parseQuery("NEAR column").match)).toBe(1);
    expect(count("g", parseQuery("src/core/store.ts").trigram!)).toBe(1);
    expect(count("g", parseQuery("snake_case").trigram!)).toBe(1);
    expect(count("w", parseQuery("127.0.0.1").match)).toBe(1);
  });

  it("never produces an expression FTS5 rejects, whatever the input (fuzz)", () => {
    const { count } = ftsTables();
    const alphabet = [
      '"',
      "*",
      "^",
      "(",
      ")",
      ":",
      "+",
      "-",
      "{",
      "}",
      " ",
      "OR",
      "AND",
      "NOT",
      "NEAR",
      "a",
      "é",
      ",",
      "kind:",
      "\u0000",
    ];
    let seed = 42;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    let parsed = 0;
    for (let n = 0; n < 3000; n++) {
      const len = 1 + (next() % 12);
      let text = "";
      for (let k = 0; k < len; k++) text += alphabet[next() % alphabet.length];
      let q: ReturnType<typeof parseQuery>;
      try {
        q = parseQuery(text);
      } catch (error) {
        expect(error, text).toBeInstanceOf(QueryError);
        continue;
      }
      parsed += 1;
      if (q.match !== "") expect(() => count("w", q.match), text).not.toThrow();
      if (q.trigram) expect(() => count("g", q.trigram!), text).not.toThrow();
    }
    expect(parsed).toBeGreaterThan(100);
  });
});

describe("a word before a colon spelled like an object's own member", () => {
  it("is a search term, not a filter", () => {
    for (const name of INHERITED_NAMES) {
      const q = parseQuery(`${name}:abc hello`);
      expect(q.filters, name).toEqual({});
      expect(q.terms, name).toEqual([`${name}:abc`, "hello"]);
    }
  });
});
