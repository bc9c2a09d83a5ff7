// The user's prompt → the promoted items relevant to it (relevance.ts), as one marker-wrapped block within a
// byte budget: what the prompt hook hands the agent as added context when retrieval is on (memory/store/inject.ts).
// Items the session was already given are left out (inject.ts keeps that state); when nothing is relevant,
// or only such items, there is no block at all and the answer says which.
//
// Budget: 4 KiB by default, never above 8 KiB (inject.ts says why).
//
// Loaded only when retrieval is on: it opens SQLite (through the memory store), which a hook must not pay for
// otherwise. Built on its own into dist/retrieval.cjs for the hook bundle and the hook server.
import { statSync } from "node:fs";
import { stripInjected, wrapInjected } from "../../core/ports/memory-marker.ts";
import { openDatabase } from "../index/sqlite.ts";
import { Duplicates } from "./clean.ts";
import { clampBudget, clampThreshold, type Retrieval, type RetrieveOptions } from "./inject.ts";
import { coverage, gate, promptTerms, type Term, weightOf } from "./relevance.ts";
import { foreignMemoryError, type MemoryItem, type MemoryStore, memoryPath, openMemory } from "./store.ts";

export type { Retrieval };

/** Items offered at most; more would only share the budget into slivers. */
export const MAX_INJECTED_ITEMS = 5;
/** A cut item shorter than this says nothing useful: the block stops instead. */
const MIN_CUT_BODY_BYTES = 160;
/** Candidates scored in full (every term checked): the best by their rare terms. */
const SCORED_CANDIDATES = 24;

const HEADER =
  "Memory the user promoted into tapedeck from earlier sessions, most relevant first (it may be out of date):";

/** FTS5's string syntax: a phrase in double quotes, a quote inside doubled. Nothing in it is query syntax. */
function phrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/**
 * The items holding a term, asked of the word index (which stems the term as it stemmed the items) and kept
 * until the memory changes: the hook server answers many prompts, and a prompt's common words recur. Counting
 * or checking a term means decoding its whole list of items either way (a word in most of 10,000 items: ~1 ms,
 * each time it was asked; 24 candidates checked one by one cost the same as listing them all), so a term's
 * count is kept, and so are the sorted row ids of a term in at most LISTED_TERM_ROWS items, asked by binary
 * search after that. A term in more items is not listed (listing the many such words of a prompt overflowed
 * any budget and was read again on every prompt): an item is credited with the share of items that hold it.
 */
interface TermIndex {
  items: number;
  docs(term: Term): number;
  /** Row ids of the items holding the term, ascending (a term in at most LISTED_TERM_ROWS items). */
  rows(term: Term): Int32Array;
  /** Whether the item holds the term; undefined for a term in too many items to list. */
  holds(term: Term, rowid: number): boolean | undefined;
  /** Bytes of these items' text (title and body). */
  lengths(rowids: readonly number[]): Map<number, number>;
  /** rowid → item id. */
  ids(rowids: readonly number[]): Map<number, string>;
  close(): void;
}

/** Row ids a process keeps listed, over all terms (4 bytes each); past it the lists start over. */
const LISTED_ROWIDS = 2_000_000;
/** A term in more items than this is counted, never listed. */
const LISTED_TERM_ROWS = 2000;
/** Terms whose counts a process keeps; past it the counts start over. */
const COUNTED_TERMS = 16_384;

function includes(sorted: Int32Array, x: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function openTermIndex(projectRoot: string): TermIndex {
  const db = openDatabase(memoryPath(projectRoot), { readonly: true, base: projectRoot });
  try {
    const rows = db.prepare("SELECT rowid AS r FROM items_fts WHERE items_fts MATCH ? ORDER BY rowid");
    const count = db.prepare("SELECT count(*) AS n FROM items_fts WHERE items_fts MATCH ?");
    const ids = db.prepare(
      "SELECT rowid AS r, id FROM items WHERE rowid IN (SELECT value FROM json_each(?))",
    );
    const sizes = db.prepare(
      "SELECT rowid AS r, length(CAST(title AS BLOB)) + length(CAST(body AS BLOB)) AS n FROM items " +
        "WHERE rowid IN (SELECT value FROM json_each(?))",
    );
    const items = Number((db.prepare("SELECT count(*) AS n FROM items").get() as { n: number }).n);
    const lists = new Map<string, Int32Array>();
    const counts = new Map<string, number>();
    let listed = 0;
    const docsOf = (term: Term): number => {
      let n = counts.get(term.key);
      if (n === undefined) {
        if (counts.size >= COUNTED_TERMS) counts.clear();
        n = Number((count.get(phrase(term.text)) as { n: number }).n);
        counts.set(term.key, n);
      }
      return n;
    };
    const listOf = (term: Term): Int32Array => {
      let list = lists.get(term.key);
      if (list === undefined) {
        const found = rows.all(phrase(term.text)) as Array<{ r: number }>;
        list = Int32Array.from(found, (x) => x.r);
        if (listed + list.length > LISTED_ROWIDS) {
          lists.clear();
          listed = 0;
        }
        lists.set(term.key, list);
        listed += list.length;
      }
      return list;
    };
    return {
      items,
      docs: docsOf,
      rows: listOf,
      holds: (term, rowid) => (docsOf(term) > LISTED_TERM_ROWS ? undefined : includes(listOf(term), rowid)),
      lengths: (rowids) =>
        new Map(
          (sizes.all(JSON.stringify(rowids)) as Array<{ r: number; n: number }>).map((x) => [
            x.r,
            Number(x.n),
          ]),
        ),
      ids: (rowids) =>
        new Map(
          (ids.all(JSON.stringify(rowids)) as Array<{ r: number; id: string }>).map((x) => [x.r, x.id]),
        ),
      close: () => db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** At most this many terms list their items: the rarest ones. */
const MAX_LISTED_TERMS = 8;
/**
 * Candidates come from the rarest terms, at most this many (item, term) matches: scoring them stays well
 * under a millisecond whatever the prompt's words; a word most items hold is only checked on the best ones.
 */
export const MAX_RANKED_MATCHES = 1000;

export interface Candidate {
  rowid: number;
  /** The prompt's terms the item holds (indexes). */
  held: number[];
  /** The share of the prompt's term weight the item holds (0 to 1): what the threshold applies to. */
  coverage: number;
  /** What ranks: the coverage, and between equal coverages the shorter item first. */
  score: number;
}

/**
 * Between items of equal coverage the shorter one comes first: it is more about the prompt's terms and costs
 * fewer bytes. (bm25 ordered them before, but FTS5 scores every match of the query before a row filter
 * applies: 9 ms a prompt over 10,000 items, for a tie-break.)
 */
const SHORTER_FIRST = 1e-7;

/** The prompt's terms with their weights, and the candidates scored on every term. */
export function scoreCandidates(
  terms: readonly Term[],
  index: TermIndex,
): { weights: number[]; candidates: Candidate[] } {
  const docs = terms.map((t) => index.docs(t));
  const weights = terms.map((t, i) => weightOf(t, docs[i]!, index.items));
  const present = terms.map((_, i) => i).filter((i) => docs[i]! > 0);
  present.sort((a, b) => docs[a]! - docs[b]! || a - b);
  const listed: number[] = [];
  let matches = 0;
  for (const i of present) {
    if (listed.length >= MAX_LISTED_TERMS || matches + docs[i]! > MAX_RANKED_MATCHES) break;
    listed.push(i);
    matches += docs[i]!;
  }
  const held = new Map<number, number[]>();
  for (const i of listed) {
    for (const r of index.rows(terms[i]!)) {
      const h = held.get(r);
      if (h) h.push(i);
      else held.set(r, [i]);
    }
  }
  // The best candidates by their listed terms, then checked for the rest.
  const rough = [...held.entries()]
    .map(([rowid, h]) => ({ rowid, h, score: coverage(weights, h) }))
    .sort((a, b) => b.score - a.score || b.rowid - a.rowid)
    .slice(0, SCORED_CANDIDATES);
  const unlisted = present.filter((i) => !listed.includes(i));
  const scored = rough.map(({ rowid, h }) => {
    const all = [...h];
    let credit = 0;
    for (const i of unlisted) {
      const held = index.holds(terms[i]!, rowid);
      if (held === true) all.push(i);
      // Too common to list: the share of items that hold it, of its (small) weight.
      else if (held === undefined) credit += (weights[i]! * docs[i]!) / Math.max(1, index.items);
    }
    return { rowid, held: all, coverage: coverage(weights, all, credit) };
  });
  // Lengths only for items that tie with another: reading every candidate's text cost more than the rest.
  const tied = scored
    .filter((c) => scored.some((o) => o !== c && o.coverage === c.coverage))
    .map((c) => c.rowid);
  const lengths = tied.length > 0 ? index.lengths(tied) : new Map<number, number>();
  const candidates = scored.map((c) => ({
    ...c,
    score: c.coverage - SHORTER_FIRST * (lengths.get(c.rowid) ?? 0),
  }));
  candidates.sort((a, b) => b.score - a.score || b.rowid - a.rowid);
  return { weights, candidates };
}

function sourceLine(item: MemoryItem): string {
  const s = item.source;
  const range = s.seq_from === s.seq_to ? `event ${s.seq_from}` : `events ${s.seq_from}-${s.seq_to}`;
  return `${item.kind}, ${s.provider} session ${s.session_id}, ${range}`;
}

/** The first `bytes` of `text` without splitting a character. */
function cutBytes(text: string, bytes: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= bytes) return text;
  return buf
    .subarray(0, bytes)
    .toString("utf8")
    .replace(/\uFFFD+$/u, "");
}

function render(sections: string[]): string {
  return [HEADER, ...sections].join("\n\n");
}

/**
 * The block for these items, in this order, within `budget` bytes marker included: whole items while they fit,
 * then at most one cut short, then none.
 */
export function composeContext(
  items: readonly MemoryItem[],
  budget: number,
): { text: string; ids: string[]; truncated: boolean } | undefined {
  const sections: string[] = [];
  const ids: string[] = [];
  let truncated = false;
  for (const item of items) {
    const heading = `[${ids.length + 1}] ${item.title} (${sourceLine(item)})`;
    const whole = `${heading}\n${item.body}`;
    const next = wrapInjected(render([...sections, whole]), [...ids, item.id]);
    if (Buffer.byteLength(next) <= budget) {
      sections.push(whole);
      ids.push(item.id);
      continue;
    }
    truncated = true;
    const bare = Buffer.byteLength(wrapInjected(render([...sections, `${heading}\n`]), [...ids, item.id]));
    const room = budget - bare - Buffer.byteLength(" […]");
    if (room >= MIN_CUT_BODY_BYTES) {
      // wrapInjected may widen a tag inside the body by a byte or two: cut again until it fits.
      for (let cut = room; cut >= MIN_CUT_BODY_BYTES; cut -= 16) {
        const section = `${heading}\n${cutBytes(item.body, cut)} […]`;
        if (Buffer.byteLength(wrapInjected(render([...sections, section]), [...ids, item.id])) <= budget) {
          sections.push(section);
          ids.push(item.id);
          break;
        }
      }
    }
    break;
  }
  if (ids.length === 0) return undefined;
  return { text: wrapInjected(render(sections), ids), ids, truncated };
}

interface CachedStore {
  store: MemoryStore;
  /**
   * memory.sqlite's and its log's inode, size and time when opened: a file replaced, or changed since (a write
   * that upgraded its format, whose items then carry proofs), is opened again.
   */
  stamp: string;
  index?: TermIndex;
  /** The file's and its log's size and time when the index was opened: a promotion since changes them. */
  indexStamp?: string;
}

const stores = new Map<string, CachedStore>();

function fileStamp(path: string): string | undefined {
  try {
    const s = statSync(path);
    return `${s.dev}:${s.ino}`;
  } catch {
    return undefined;
  }
}

/** What changes when items are added, edited or forgotten: the log (WAL) until a checkpoint, then the file. */
function contentStamp(path: string): string {
  const part = (p: string) => {
    try {
      const s = statSync(p);
      return `${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return "-";
    }
  };
  return `${part(path)}/${part(`${path}-wal`)}`;
}

/**
 * The project's memory, opened read-only once per process and kept: the hook server answers many hooks, and
 * opening SQLite per hook cost more than the search. A file replaced, removed or written since is noticed (a
 * write may have upgraded it: its format, and so which items may be given, is read again).
 */
function memoryOf(projectRoot: string): CachedStore | undefined {
  const path = memoryPath(projectRoot);
  const stamp = fileStamp(path) === undefined ? undefined : contentStamp(path);
  const cached = stores.get(projectRoot);
  if (cached && cached.stamp === stamp) return cached;
  if (cached) {
    stores.delete(projectRoot);
    closeEntry(cached);
  }
  if (!stamp) return undefined;
  const store = openMemory(projectRoot, { readonly: true });
  if (!store) return undefined;
  if (!store.isOwn()) {
    // A clone's committed memory.sqlite (with a committed config turning retrieval on) is not the user's.
    store.close();
    throw foreignMemoryError(store.path);
  }
  const entry = { store, stamp };
  stores.set(projectRoot, entry);
  return entry;
}

function termIndexOf(projectRoot: string, entry: CachedStore): TermIndex {
  const now = contentStamp(memoryPath(projectRoot));
  if (!entry.index || entry.indexStamp !== now) {
    entry.index?.close();
    entry.index = undefined;
    entry.index = openTermIndex(projectRoot);
    entry.indexStamp = now;
  }
  return entry.index;
}

function closeEntry(entry: CachedStore): void {
  for (const close of [() => entry.store.close(), () => entry.index?.close()]) {
    try {
      close();
    } catch {
      // closing is best effort: the file may be gone
    }
  }
}

/** Closes every store this process keeps open (the hook server on shutdown; tests). */
export function closeRetrievalStores(): void {
  for (const entry of stores.values()) closeEntry(entry);
  stores.clear();
}

/** The relevant items for a prompt, best first, repeats of one text left out (they would say it twice). */
function relevantItems(
  entry: CachedStore,
  index: TermIndex,
  terms: readonly Term[],
  threshold: number,
): { relevant: Array<{ item: MemoryItem; score: number }>; best: number | null } {
  const { candidates } = scoreCandidates(terms, index);
  // The best score, passed or not: what "nothing relevant" is measured against the threshold by.
  const best = candidates.length > 0 ? round(Math.max(...candidates.map((c) => c.coverage))) : null;
  const passed = gate(candidates, { threshold, max: MAX_INJECTED_ITEMS * 2 });
  if (passed.length === 0) return { relevant: [], best };
  const idOf = index.ids(passed.map((c) => c.rowid));
  // Only items whose proof holds reach the agent: one changed outside tapedeck is left out (memory verify says it).
  const found = entry.store.get(passed.flatMap((c) => idOf.get(c.rowid) ?? []));
  const items = new Map(entry.store.givable(found).map((i) => [i.id, i]));
  const out: Array<{ item: MemoryItem; score: number }> = [];
  // Each text read once; across kinds too (an answer and a prompt that say the same thing).
  const seen = new Duplicates();
  for (const c of passed) {
    const item = items.get(idOf.get(c.rowid) ?? "");
    if (!item || seen.repeats("item", item.body)) continue;
    out.push({ item, score: round(c.coverage) });
    if (out.length >= MAX_INJECTED_ITEMS) break;
  }
  return { relevant: out, best };
}

function round(score: number): number {
  return Math.round(score * 1000) / 1000;
}

/**
 * What this prompt gets: the relevant items it was not given before, in one block, or no block at all and why
 * ("nothing_relevant": no memory, no content words, nothing over the threshold; "repeats_only": every relevant
 * item was given to this session already).
 */
export function retrieve(projectRoot: string, prompt: string, opts: RetrieveOptions = {}): Retrieval {
  const budget = clampBudget(opts.budgetBytes);
  const threshold = clampThreshold(opts.threshold);
  const terms = promptTerms(stripInjected(prompt));
  const none: Retrieval = {
    outcome: "nothing_relevant",
    text: "",
    bytes: 0,
    item_ids: [],
    scores: [],
    query: terms.map((t) => phrase(t.text)).join(" OR "),
    budget_bytes: budget,
    threshold,
    matched: 0,
    best_score: null,
    truncated: false,
    skipped_repeat_ids: [],
  };
  if (terms.length === 0) return none;
  const entry = memoryOf(projectRoot);
  if (!entry) return none;
  const { relevant, best } = relevantItems(entry, termIndexOf(projectRoot, entry), terms, threshold);
  if (relevant.length === 0) return { ...none, best_score: best };
  const given = opts.exclude ?? { has: () => false };
  const fresh = relevant.filter((r) => !given.has(r.item.id));
  const repeats = relevant.filter((r) => given.has(r.item.id)).map((r) => r.item.id);
  const base = { ...none, best_score: best, matched: relevant.length, skipped_repeat_ids: repeats };
  if (fresh.length === 0) return { ...base, outcome: "repeats_only" };
  const composed = composeContext(
    fresh.map((r) => r.item),
    budget,
  );
  // Not even a cut item fits (a budget below any heading): nothing given, said as nothing relevant.
  if (!composed) return base;
  const scoreOf = new Map(fresh.map((r) => [r.item.id, r.score]));
  return {
    ...base,
    outcome: "injected",
    text: composed.text,
    bytes: Buffer.byteLength(composed.text),
    item_ids: composed.ids,
    scores: composed.ids.map((id) => scoreOf.get(id) ?? 0),
    truncated: composed.truncated || composed.ids.length < fresh.length,
  };
}
