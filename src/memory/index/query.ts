// The search query language, parsed by us and never handed to SQLite as
// typed: FTS5's own syntax (column filters, NEAR, ^, +, parentheses, bare
// operators) turns a pasted path or a stray quote into an SQLite error or a
// different query. Every user token comes out as a double-quoted FTS5 string;
// the only operators in the MATCH expression are the ones written here.
//
//   words            all of them (AND is the default)
//   "a phrase"       these words in this order
//   prefix*          any word starting with prefix
//   a OR b           either (OR joins the terms beside it, tighter than AND)
//   -word, NOT word  without it (also -"a phrase")
//   kind:K provider:P session:S   filters (comma lists, repeatable)

import { EVENT_KINDS } from "../../core/archive/kinds.ts";
import { EXIT, UserError } from "../../core/base/user-error.ts";

/** A query is typed by a person; 4 KiB bounds the parse and the FTS work (a pasted 100 KB log is refused at once). */
export const MAX_QUERY_BYTES = 4096;
/** Each term is one more FTS5 lookup; more than this is a pasted document, not a query. */
export const MAX_TERMS = 64;
/** The trigram tokenizer cannot match a string shorter than three characters. */
export const MIN_TRIGRAM_CHARS = 3;

export type FilterField = "kind" | "provider" | "session";

export interface ParsedQuery {
  /** A safe FTS5 MATCH expression for the word index, every user token quoted; "" when the query has only filters. */
  match: string;
  /** The text of every positive term, for highlighting and the trigram fallback. */
  terms: string[];
  filters: { kinds?: string[]; providers?: string[]; sessions?: string[] };
  /** The same query for the trigram index (substring matches), when every positive term is long enough for it. */
  trigram?: string;
  /** Some term is an identifier, path or script fragment that the word tokenizer splits apart (`a_b`, `x.ts`, `--flag`). */
  identifiers: boolean;
}

export class QueryError extends UserError {
  override name = "QueryError";
  constructor(
    message: string,
    /** 0-based index in the query where the problem is */
    readonly position: number,
  ) {
    super(`bad query: ${message} (at character ${position + 1})`, EXIT.usage);
  }
}

interface Term {
  type: "term";
  text: string;
  phrase: boolean;
  prefix: boolean;
  negated: boolean;
  position: number;
}

type Token =
  | Term
  | { type: "or"; position: number }
  | { type: "and"; position: number }
  | { type: "filter"; field: FilterField; values: string[]; position: number };

// A Map: a word before a colon is the user's (or a query string's), and `constructor:x` found Object's
// member in a plain object and became a session filter.
const FIELDS = new Map<string, FilterField>([
  ["kind", "kind"],
  ["provider", "provider"],
  ["session", "session"],
]);
// Anything the word tokenizer (unicode61) keeps inside one token: letters, digits, marks.
const WORD_CHARS = /^[\p{L}\p{N}\p{M}]+$/u;
const CONTROL = /\p{Cc}/gu;

export function parseQuery(text: string): ParsedQuery {
  if (Buffer.byteLength(text, "utf8") > MAX_QUERY_BYTES) {
    throw new QueryError(
      `longer than ${MAX_QUERY_BYTES} bytes; search for a few distinctive words`,
      MAX_QUERY_BYTES,
    );
  }
  // A NUL or an escape sequence is nothing a person searches for, and must not reach SQLite or a terminal.
  const tokens = tokenize(text.replace(CONTROL, " "));
  const filters: ParsedQuery["filters"] = {};
  const items: Term[][] = [];
  const excluded: Term[] = [];
  let pendingOr: { position: number } | undefined;
  let previous: Token | undefined;
  for (const token of tokens) {
    if (token.type === "and") continue;
    if (token.type === "filter") {
      if (pendingOr) throw new QueryError("OR must stand between two terms", pendingOr.position);
      addFilter(filters, token.field, token.values);
    } else if (token.type === "or") {
      if (pendingOr || !previous || previous.type !== "term" || previous.negated) {
        throw new QueryError("OR must stand between two terms", token.position);
      }
      pendingOr = token;
    } else if (token.negated) {
      if (pendingOr) throw new QueryError("OR cannot join an excluded term", token.position);
      excluded.push(token);
    } else if (pendingOr) {
      items[items.length - 1]!.push(token);
      pendingOr = undefined;
    } else {
      items.push([token]);
    }
    previous = token;
  }
  if (pendingOr) throw new QueryError("OR must stand between two terms", pendingOr.position);
  const positive = items.flat();
  if (positive.length + excluded.length > MAX_TERMS) {
    throw new QueryError(`more than ${MAX_TERMS} terms`, (positive[MAX_TERMS] ?? excluded[0])!.position);
  }
  if (positive.length === 0 && excluded.length > 0) {
    throw new QueryError("a query needs at least one word that is not excluded", excluded[0]!.position);
  }
  const trigramOk = positive.every((t) => [...t.text].length >= MIN_TRIGRAM_CHARS) && positive.length > 0;
  return {
    match: build(items, excluded, wordString),
    terms: positive.map((t) => t.text),
    filters,
    ...(trigramOk ? { trigram: build(items, excluded, trigramString) } : {}),
    identifiers: [...positive, ...excluded].some((t) => !t.phrase && !WORD_CHARS.test(t.text)),
  };
}

/** An FTS5 string literal: double quotes, a quote inside doubled. Nothing else is special inside one. */
export function quoteFts(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

function wordString(t: Term): string {
  return t.prefix ? `${quoteFts(t.text)} *` : quoteFts(t.text);
}

// The trigram index matches substrings: a prefix is already one.
function trigramString(t: Term): string {
  return quoteFts(t.text);
}

function build(items: Term[][], excluded: Term[], render: (t: Term) => string): string {
  if (items.length === 0) return "";
  const groups = items.map((g) => (g.length === 1 ? render(g[0]!) : `(${g.map(render).join(" OR ")})`));
  const all = groups.join(" AND ");
  if (excluded.length === 0) return all;
  return [`(${all})`, ...excluded.map((t) => render(t))].join(" NOT ");
}

function addFilter(filters: ParsedQuery["filters"], field: FilterField, values: string[]): void {
  const key = field === "kind" ? "kinds" : field === "provider" ? "providers" : "sessions";
  const list = filters[key] ?? [];
  filters[key] = list;
  for (const v of values) if (!list.includes(v)) list.push(v);
}

/** Splits the query into terms, phrases, OR and filters, with the position of each for error messages. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) {
      i += 1;
      continue;
    }
    const start = i;
    let negated = false;
    const not = /^NOT\s+(?=\S)/.exec(text.slice(i, i + 64));
    if (not) {
      negated = true;
      i += not[0].length;
    } else if (text[i] === "-" && i + 1 < text.length && !/[\s-]/.test(text[i + 1]!)) {
      negated = true;
      i += 1;
    }
    if (text[i] === '"') {
      const [phrase, end] = readQuoted(text, i);
      i = end;
      const prefix = text[i] === "*";
      if (prefix) i += 1;
      if (i < text.length && !/\s/.test(text[i]!)) {
        throw new QueryError("a closing quote must be followed by a space", i);
      }
      if (phrase.trim() === "") throw new QueryError("empty phrase", start);
      tokens.push({ type: "term", text: phrase, phrase: true, prefix, negated, position: start });
      continue;
    }
    const end = wordEnd(text, i);
    const word = text.slice(i, end);
    i = end;
    tokens.push(classify(word, negated, start, text));
    if (tokens.at(-1)?.type === "filter" && text[i] === '"') {
      // kind:"a b" — the quoted value belongs to the filter just read.
      const [value, after] = readQuoted(text, i);
      i = after;
      const f = tokens.at(-1) as { type: "filter"; field: FilterField; values: string[] };
      f.values = splitValues(value, start, f.field);
    }
  }
  return tokens;
}

/** The end of a bare word: the next space, or a quote that opens a filter's value right after `field:`. */
function wordEnd(text: string, i: number): number {
  let j = i;
  while (j < text.length && !/\s/.test(text[j]!)) {
    if (text[j] === '"' && text[j - 1] === ":") break;
    j += 1;
  }
  return j;
}

function readQuoted(text: string, open: number): [string, number] {
  const close = text.indexOf('"', open + 1);
  if (close < 0) throw new QueryError("unterminated quote", open);
  return [text.slice(open + 1, close), close + 1];
}

function classify(word: string, negated: boolean, position: number, text: string): Token {
  if (!negated && word === "OR") return { type: "or", position };
  if (!negated && word === "AND") return { type: "and", position };
  if (!negated && word === "NOT") {
    throw new QueryError('write NOT before a term, as "NOT word" or "-word"', position);
  }
  const colon = word.indexOf(":");
  const field = colon > 0 ? FIELDS.get(word.slice(0, colon).toLowerCase()) : undefined;
  if (field) {
    if (negated) throw new QueryError(`a ${field}: filter cannot be excluded`, position);
    const raw = word.slice(colon + 1);
    // `kind:` followed by a quoted value is completed by the caller.
    const quotedNext = raw === "" && text[position + word.length] === '"';
    return { type: "filter", field, values: quotedNext ? [] : splitValues(raw, position, field), position };
  }
  let core = word;
  let prefix = false;
  if (core.endsWith("*")) {
    core = core.replace(/\*+$/, "");
    prefix = true;
  }
  if (core === "") throw new QueryError("a * must end a word (prefix*)", position);
  return { type: "term", text: core, phrase: false, prefix, negated, position };
}

function splitValues(raw: string, position: number, field: FilterField): string[] {
  const values = raw
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  if (values.length === 0) throw new QueryError(`${field}: needs a value`, position);
  if (field === "kind") {
    for (const v of values) {
      if (!(EVENT_KINDS as readonly string[]).includes(v)) {
        throw new QueryError(`unknown kind "${v}" (kinds: ${EVENT_KINDS.join(", ")})`, position);
      }
    }
  }
  return values;
}
