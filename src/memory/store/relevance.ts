// Whether a promoted item is relevant to a prompt: the retrieval gate. Deterministic, no model.
//
// A prompt becomes its content terms (words and identifiers; grammar and the words of asking dropped, variants
// of one word merged). Each term weighs what it tells apart: an inverse document frequency over the memory,
// smoothed by a background of BACKGROUND_DOCS documents that hold none of the memory's rare words and a
// COMMON_SHARE of its common ones (words.ts), so that a memory of twenty items weighs words much as one of
// twenty thousand does, and a word of how one asks or describes ("keep", "often", "refreshed") counts for little
// wherever it appears. An item's score is the share of the prompt's weight it holds (its coverage, 0 to 1): an
// item on the prompt's subject holds its rare words; an item that shares one word with an unrelated prompt
// ("key" in "How do I rotate my SSH key?") holds a small share, because the prompt's other words (ssh), unknown
// to memory, weigh the most of all.
//
// The gate (gate()) passes an item when its coverage reaches the threshold (chosen on the calibration half of a
// labelled set, bench/retrieval-eval.ts, and configurable), is within RELATIVE_CUT of the best item's, and, after
// the first, brings evidence of its own: a prompt with one relevant item does not also get the ones that share
// its words.
import { REDACTION_MARKER } from "@tapedeck/redact";
import { COMMON_WORDS, FUNCTION_WORDS, REQUEST_WORDS } from "./words.ts";

export interface Term {
  /** As typed: what the search looks for (the word index stems it). */
  text: string;
  /** Variants of one word in a prompt ("deploys", "deployed") share a key and count once. */
  key: string;
  /** A word of COMMON_WORDS (or an adverb in -ly). */
  common: boolean;
  /** A verb's inflected form: counted as common when no item holds it. */
  inflected?: boolean;
  /** An identifier, a path, a flag, a time: searched as a phrase of its parts. */
  ident: boolean;
}

/** Distinct terms taken from a prompt: enough for any question, few enough for a fast search. */
export const MAX_PROMPT_TERMS = 24;
const MAX_PROMPT_CHARS = 16 * 1024;
/** The background's size in documents (see the header). */
export const BACKGROUND_DOCS = 20;
/** The share of the background a common word is in. */
export const COMMON_SHARE = 0.2;
/** An item passes only within this fraction of the best item's coverage. */
export const RELATIVE_CUT = 0.7;
/** Terms of the prompt a further item must hold that the better ones do not: evidence of its own. */
export const NOVEL_TERMS = 2;

const IDENT_CHARS = /[./_:=@#-]/;
/** Looked up by variant: "refreshed" finds "refresh". */
const COMMON_KEYS: ReadonlySet<string> = new Set([...COMMON_WORDS].map((w) => variantKey(w)));

/** A word of COMMON_WORDS, or an adverb in -ly ("automatically"). */
function isCommon(word: string): boolean {
  return COMMON_KEYS.has(variantKey(word)) || (word.length > 5 && word.endsWith("ly"));
}

/** A verb's inflected form ("refreshed", "shrinking"): generic wherever the memory does not hold it. */
function isInflected(word: string): boolean {
  return word.length > 5 && /(?:ed|ing)$/.test(word);
}
const EDGE = /^[^\p{L}\p{N}_./-]+|[^\p{L}\p{N}_]+$/gu;

/** The index's spelling of a word, near enough: lowercase, diacritics removed. */
function fold(word: string): string {
  return word
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/** "deploys", "deployed", "deploying" → "deploy": merges a prompt's variants of one word (the index stems too). */
export function variantKey(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith("s") && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
  for (const suffix of ["ing", "ed", "es"]) {
    if (w.length > suffix.length + 2 && w.endsWith(suffix)) {
      w = w.slice(0, -suffix.length);
      if (/([b-df-hj-np-tv-z])\1$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  if (w.length > 4 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

function wordTerms(token: string): Term[] {
  const out: Term[] = [];
  for (const raw of token.split(/[^\p{L}\p{N}'’]+/u)) {
    const w = fold(raw.replace(/’/g, "'")).replace(/^'+|'+$/g, "");
    const bare = w.endsWith("'s") ? w.slice(0, -2) : w;
    if (bare.length < 2 || bare.length > 64) continue;
    if (FUNCTION_WORDS.has(w) || FUNCTION_WORDS.has(bare) || REQUEST_WORDS.has(bare)) continue;
    // A lone digit ("step 2") says too little to search for; "Node 22" or "port 5433" do.
    if (/^\p{N}$/u.test(bare)) continue;
    const text = bare.replace(/'/g, "");
    if (text.length < 2) continue;
    out.push({
      text,
      key: variantKey(text),
      common: isCommon(text),
      inflected: isInflected(text),
      ident: false,
    });
  }
  return out;
}

/**
 * A prompt's content terms, in the order typed, each once. Identifiers and paths (`src/core/archive/session-store.ts`,
 * `snake_case`, `--dry-run`, `17:00`) are kept whole; other tokens are split into words. The prompt is the
 * one the archive stores, redacted: a redaction's mark (`[REDACTED:github_token]`) is no term.
 */
export function promptTerms(prompt: string): Term[] {
  const terms: Term[] = [];
  const seen = new Set<string>();
  const add = (t: Term) => {
    if (seen.has(t.key) || terms.length >= MAX_PROMPT_TERMS) return;
    seen.add(t.key);
    terms.push(t);
  };
  for (const raw of prompt
    .slice(0, MAX_PROMPT_CHARS)
    .replace(REDACTION_MARKER, " ")
    .split(/[\s"`]+/)) {
    const token = raw.replace(EDGE, "");
    if (token === "") continue;
    const inner = token.replace(/^[-.]+/, "");
    if (IDENT_CHARS.test(inner) && /[\p{L}\p{N}]/u.test(inner) && [...inner].length <= 128) {
      const parts = inner.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
      if (parts.length > 1) {
        add({ text: inner, key: fold(inner), common: false, ident: true });
        continue;
      }
    }
    for (const t of wordTerms(token)) add(t);
    if (terms.length >= MAX_PROMPT_TERMS) break;
  }
  return terms;
}

/** A term's weight in a memory of `items` items, `docs` of which hold it. */
export function weightOf(term: Term, docs: number, items: number): number {
  return termWeight(docs, items, term.common || (docs === 0 && term.inflected === true));
}

/** What a term tells apart in a memory of `items` items, `docs` of which hold it (see the header). */
export function termWeight(docs: number, items: number, common: boolean): number {
  const total = Math.max(0, items) + BACKGROUND_DOCS;
  const d = Math.max(0, docs) + (common ? COMMON_SHARE * total : 0);
  return Math.log(1 + Math.max(0, total - d + 0.5) / (d + 0.5));
}

/**
 * The share of the prompt's weight an item holds: the sum of its terms' weights over all the prompt's, plus
 * `credit` (weight expected, not checked: a term most items hold).
 */
export function coverage(weights: readonly number[], held: Iterable<number>, credit = 0): number {
  const total = weights.reduce((s, w) => s + w, 0);
  if (total <= 0) return 0;
  let sum = credit;
  for (const i of new Set(held)) sum += weights[i] ?? 0;
  return Math.min(1, sum / total);
}

export interface Scored {
  /** What the threshold applies to. */
  coverage: number;
  /** What ranks and cuts (coverage, refined). */
  score: number;
  /** The prompt's terms the item holds (indexes). */
  held: readonly number[];
}

export interface GateOptions {
  threshold: number;
  /** Items at most. */
  max: number;
}

/**
 * The items that pass, best first: coverage at or above the threshold and within RELATIVE_CUT of the best's,
 * and each after the first holding NOVEL_TERMS terms of the prompt that the better ones do not: an item that
 * repeats the evidence of a better one ("docker" and "image", held by four items alike), or adds one word of a
 * short question ("ship" in "How do we ship a hotfix?"), says nothing the first does not.
 */
export function gate<T extends Scored>(ranked: readonly T[], opts: GateOptions): T[] {
  const passing = ranked.filter((r) => r.coverage >= opts.threshold);
  const best = passing.reduce((m, r) => Math.max(m, r.coverage), 0);
  const seen = new Set<number>();
  const out: T[] = [];
  for (const r of [...passing].sort((a, b) => b.score - a.score)) {
    if (r.coverage < best * RELATIVE_CUT || out.length >= opts.max) continue;
    if (out.length > 0 && r.held.filter((t) => !seen.has(t)).length < NOVEL_TERMS) continue;
    for (const t of r.held) seen.add(t);
    out.push(r);
  }
  return out;
}
