// What promotion leaves out: text with nothing to remember (an acknowledgement, a greeting, an empty answer) and
// an item that says again what an earlier item of the same promotion said (a duplicate, or a near-duplicate:
// the same words give or take a few, and the same numbers, paths and names). Deterministic, no model: the same
// session gives the same items.
//
// Near-duplicates keep every "specific" token (a number, a path, a flag, a snake_case name) apart on purpose: a
// later answer that corrects a port or a version shares nearly every word with the first, and is the one worth
// keeping, so two texts whose specific tokens differ are never merged.
import { createHash } from "node:crypto";
import { ACK_WORDS, FUNCTION_WORDS, REQUEST_WORDS } from "./words.ts";

/** Words that carry no fact: grammar, how one asks, how one acknowledges or greets. */
const FILLER: ReadonlySet<string> = new Set([...FUNCTION_WORDS, ...REQUEST_WORDS, ...ACK_WORDS]);

/** The first word of a greeting or acknowledgement ("Hello from the mock.", "Thanks, Sam!"); not "no", a correction. */
const OPENERS: ReadonlySet<string> = new Set(
  [...ACK_WORDS].filter((w) => !["no", "nope", "nah"].includes(w)),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;
/** A number, or a token with the punctuation of a path, a flag, a version or an identifier. */
const SPECIFIC = /[\p{N}./_:=@#-]/u;
/**
 * Longer than any acknowledgement or follow-up: such a text is content without a word being read (trivial and
 * follow-up checks ran on every prompt and answer of a session, and were most of a 100,000-event promotion).
 */
const SHORT_CHARS = 200;

function words(text: string): string[] {
  return (text.toLowerCase().replace(/’/g, "'").match(WORD) ?? []).slice(0, 4096);
}

/** The whitespace-separated tokens that name something exactly: numbers, paths, flags, identifiers. */
function specifics(text: string): string[] {
  const out = new Set<string>();
  for (const raw of text.split(/\s+/)) {
    const t = raw.replace(/^[("'`[{<]+|[)"'`\]}>,;:.!?]+$/g, "").toLowerCase();
    if (t.length > 0 && t.length <= 200 && SPECIFIC.test(t)) out.add(t);
  }
  return [...out].sort();
}

/**
 * Nothing to remember: empty, only filler words, or a greeting or acknowledgement with one word besides
 * ("Hello from the mock.", "Thanks Sam!"). A number, a path or an identifier is never trivial ("5433.").
 */
export function isTrivial(text: string): boolean {
  if (text.length > SHORT_CHARS) return false;
  const ws = words(text);
  if (ws.length === 0) return true;
  if (specifics(text).length > 0) return false;
  const content = ws.filter((w) => !FILLER.has(w));
  if (content.length === 0) return true;
  return content.length === 1 && ws.length <= 6 && OPENERS.has(ws[0]!);
}

/**
 * Too little to stand alone as an item: trivial, or at most two words of content and no number, path or name
 * ("Mock reply.", "Tests pass."). Inside an exchange the other half gives such a text its sense ("Which
 * package manager?" "pnpm."); alone it tells nothing.
 */
export function saysLittle(text: string): boolean {
  if (isTrivial(text)) return true;
  if (text.length > SHORT_CHARS || specifics(text).length > 0) return false;
  const ws = words(text);
  return ws.length <= 6 && ws.filter((w) => !FILLER.has(w)).length < 3;
}

/** How a prompt opens when it continues the turn before ("And if it is down?", "What about staging?"). */
const CONTINUATIONS: ReadonlySet<string> = new Set(["and", "also", "but", "so", "then", "plus", "or"]);

/**
 * A prompt that continues the one before and means little on its own: it opens like a continuation, or it is
 * a short question with at most one word of content ("And rotation?", "what was the command again").
 */
export function isFollowUp(text: string): boolean {
  if (text.length > SHORT_CHARS) return false;
  const ws = words(text);
  if (ws.length === 0 || specifics(text).length > 0) return false;
  if (CONTINUATIONS.has(ws[0]!) || ((ws[0] === "what" || ws[0] === "how") && ws[1] === "about")) return true;
  return ws.length <= 5 && ws.filter((w) => !FILLER.has(w)).length <= 1;
}

/** Near-duplicates share at least this much of their word pairs (Jaccard), besides every specific token. */
export const NEAR_DUPLICATE = 0.8;
/** Earlier kept items a new one is compared with, word pair by word pair: repeats come close together. */
const WINDOW = 64;

interface Seen {
  kind: string;
  words: string[];
  /** Word pairs, made when first compared (most texts never are: their specific tokens differ). */
  pairs?: Set<string>;
  specifics: string;
}

function pairsOfSeen(s: Seen): Set<string> {
  s.pairs ??= pairsOf(s.words);
  return s.pairs;
}

function pairsOf(ws: readonly string[]): Set<string> {
  const out = new Set<string>();
  if (ws.length === 1) out.add(ws[0]!);
  for (let i = 0; i + 1 < ws.length; i += 1) out.add(`${ws[i]} ${ws[i + 1]}`);
  return out;
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * Remembers what a promotion kept. Exact repeats (same words in the same order, whatever the case, spacing and
 * punctuation) are found across the whole promotion by a hash; near-duplicates among the last WINDOW items.
 */
export class Duplicates {
  private readonly hashes = new Set<string>();
  private readonly recent: Seen[] = [];

  /** True when `body` repeats a kept item of the same kind; otherwise it is kept (remembered) and false. */
  repeats(kind: string, body: string): boolean {
    const ws = words(body);
    const hash = createHash("sha256")
      .update(`${kind}\n${ws.join(" ")}`)
      .digest("base64")
      .slice(0, 16);
    if (this.hashes.has(hash)) return true;
    const seen: Seen = { kind, words: ws, specifics: specifics(body).join("\n") };
    for (const r of this.recent) {
      if (r.kind !== kind || r.specifics !== seen.specifics) continue;
      if (jaccard(pairsOfSeen(r), pairsOfSeen(seen)) >= NEAR_DUPLICATE) return true;
    }
    this.hashes.add(hash);
    this.recent.push(seen);
    if (this.recent.length > WINDOW) this.recent.shift();
    return false;
  }
}
