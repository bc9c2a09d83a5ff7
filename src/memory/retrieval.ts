// The user's prompt → the promoted items relevant to it (relevance.ts), as one marker-wrapped block within a
// byte budget: what the prompt hook hands the agent as added context when retrieval is on (memory/inject.ts).
// Items the session was already given are left out (inject.ts keeps that state); when nothing is relevant,
// or only such items, there is no block at all and the answer says which.
//
// Budget: 4 KiB by default, never above 8 KiB (inject.ts says why).
//
// Loaded only when retrieval is on: it opens SQLite (through the memory store), which a hook must not pay for
// otherwise. Built on its own into dist/retrieval.cjs for the hook bundle and the hook server.
import { statSync } from "node:fs";
import { sameText } from "./clean.ts";
import { clampBudget, clampThreshold, type Retrieval, type RetrieveOptions } from "./inject.ts";
import { stripInjected, wrapInjected } from "./marker.ts";
import { coverage, gate, promptTerms, type Term, weightOf } from "./relevance.ts";
import { openDatabase } from "./sqlite.ts";
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
 * until the memory changes: the hook server answers many prompts, and a prompt's words recur. Only terms that
 * few items hold are listed in full; for a common one the count alone is kept, and candidates are checked for
 * it one by one.
 */
interface TermIndex {
  items: number;
  docs(term: Term): number;
  /** bm25 (higher is better) of these items for an OR of these terms, titles weighted 3 to 1. */
  bm25(terms: readonly Term[], rowids: readonly number[]): Map<number, number>;
  /** Row ids of the items holding the term (only asked for terms with few items). */
  rows(term: Term): number[];
  holds(term: Term, rowid: number): boolean;
  /** rowid → item id. */
  ids(rowids: readonly number[]): Map<number, string>;
  close(): void;
}

/** Terms whose counts and rows a process keeps; past it the cache starts over. */
const TERM_CACHE = 4096;

function openTermIndex(projectRoot: string): TermIndex {
  const db = openDatabase(memoryPath(projectRoot), { readonly: true, base: projectRoot });
  try {
    const count = db.prepare("SELECT count(*) AS n FROM items_fts WHERE items_fts MATCH ?");
    const rows = db.prepare("SELECT rowid AS r FROM items_fts WHERE items_fts MATCH ?");
    const holds = db.prepare("SELECT 1 FROM items_fts WHERE items_fts MATCH ? AND rowid = ?");
    const ids = db.prepare(
      "SELECT rowid AS r, id FROM items WHERE rowid IN (SELECT value FROM json_each(?))",
    );
    const ranked = db.prepare(
      "SELECT rowid AS r, -bm25(items_fts, 3.0, 1.0) AS s FROM items_fts WHERE items_fts MATCH ? " +
        "AND rowid IN (SELECT value FROM json_each(?))",
    );
    const items = Number((db.prepare("SELECT count(*) AS n FROM items").get() as { n: number }).n);
    const docs = new Map<string, number>();
    const lists = new Map<string, number[]>();
    return {
      items,
      docs(term) {
        let n = docs.get(term.key);
        if (n === undefined) {
          if (docs.size >= TERM_CACHE) docs.clear();
          n = Number((count.get(phrase(term.text)) as { n: number }).n);
          docs.set(term.key, n);
        }
        return n;
      },
      rows(term) {
        let list = lists.get(term.key);
        if (list === undefined) {
          if (lists.size >= TERM_CACHE) lists.clear();
          list = (rows.all(phrase(term.text)) as Array<{ r: number }>).map((x) => x.r);
          lists.set(term.key, list);
        }
        return list;
      },
      holds: (term, rowid) => holds.get(phrase(term.text), rowid) !== undefined,
      bm25: (terms, rowids) =>
        new Map(
          (
            ranked.all(terms.map((t) => phrase(t.text)).join(" OR "), JSON.stringify(rowids)) as Array<{
              r: number;
              s: number;
            }>
          ).map((x) => [x.r, x.s]),
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
 * At most this many (item, term) matches are listed per prompt, so a prompt's cost stays well under a
 * millisecond whatever its words: a word most items hold is only checked on the best candidates.
 */
export const MAX_RANKED_MATCHES = 1000;

export interface Candidate {
  rowid: number;
  /** The prompt's terms the item holds (indexes). */
  held: number[];
  /** The share of the prompt's term weight the item holds (0 to 1): what the threshold applies to. */
  coverage: number;
  /** The coverage, and between equal coverages how much the item is about those terms (bm25): what ranks. */
  score: number;
}

/**
 * bm25 (relative to the best candidate's) only orders items of equal coverage: the one that is more about the
 * prompt's terms first. Weighing it in further counts the terms' rarity twice (coverage already weighs it).
 */
const FOCUS_WEIGHT = 0.001;

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
  const focus =
    rough.length > 0
      ? index.bm25(
          listed.map((i) => terms[i]!),
          rough.map((c) => c.rowid),
        )
      : new Map();
  const best = Math.max(0, ...focus.values());
  const candidates = rough.map(({ rowid, h }) => {
    const all = [...h, ...unlisted.filter((i) => index.holds(terms[i]!, rowid))];
    const cov = coverage(weights, all);
    const f = best > 0 ? Math.max(0, focus.get(rowid) ?? 0) / best : 1;
    return { rowid, held: all, coverage: cov, score: cov * (1 - FOCUS_WEIGHT + FOCUS_WEIGHT * f) };
  });
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
  /** dev:ino of memory.sqlite when opened: a replaced file is opened again. */
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
 * opening SQLite per hook cost more than the search. A file replaced or removed since is noticed (inode).
 */
function memoryOf(projectRoot: string): CachedStore | undefined {
  const stamp = fileStamp(memoryPath(projectRoot));
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
): Array<{ item: MemoryItem; score: number }> {
  const { candidates } = scoreCandidates(terms, index);
  const passed = gate(candidates, { threshold, max: MAX_INJECTED_ITEMS * 2 });
  if (passed.length === 0) return [];
  const idOf = index.ids(passed.map((c) => c.rowid));
  const items = new Map(
    entry.store.get(passed.flatMap((c) => idOf.get(c.rowid) ?? [])).map((i) => [i.id, i]),
  );
  const out: Array<{ item: MemoryItem; score: number }> = [];
  for (const c of passed) {
    const item = items.get(idOf.get(c.rowid) ?? "");
    if (!item || out.some((o) => sameText(o.item.body, item.body))) continue;
    out.push({ item, score: round(c.coverage) });
    if (out.length >= MAX_INJECTED_ITEMS) break;
  }
  return out;
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
    truncated: false,
    skipped_repeat_ids: [],
  };
  if (terms.length === 0) return none;
  const entry = memoryOf(projectRoot);
  if (!entry) return none;
  const relevant = relevantItems(entry, termIndexOf(projectRoot, entry), terms, threshold);
  if (relevant.length === 0) return none;
  const given = opts.exclude ?? new Set<string>();
  const fresh = relevant.filter((r) => !given.has(r.item.id));
  const repeats = relevant.filter((r) => given.has(r.item.id)).map((r) => r.item.id);
  const base = { ...none, matched: relevant.length, skipped_repeat_ids: repeats };
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
