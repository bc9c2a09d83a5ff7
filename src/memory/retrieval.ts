// The user's prompt → the best matches in the project's memory, as one marker-wrapped block within a byte
// budget: what the prompt hook hands the agent as added context when retrieval is on (memory/inject.ts).
//
// Budget: 4 KiB by default, never above 8 KiB (inject.ts says why).
//
// Loaded only when retrieval is on: it opens SQLite (through the memory store), which a hook must not pay for
// otherwise. Built on its own into dist/retrieval.cjs for the hook bundle and the hook server.
import { statSync } from "node:fs";
import { clampBudget, type Retrieval } from "./inject.ts";
import { stripInjected, wrapInjected } from "./marker.ts";
import { openDatabase } from "./sqlite.ts";
import {
  foreignMemoryError,
  type MemoryHit,
  type MemoryItem,
  type MemoryStore,
  memoryPath,
  openMemory,
} from "./store.ts";

/** Items offered at most; more would only share the budget into slivers. */
export type { Retrieval };

export const MAX_INJECTED_ITEMS = 5;
/** A cut item shorter than this says nothing useful: the block stops instead. */
const MIN_CUT_BODY_BYTES = 160;
/** Distinct words taken from a prompt: enough to find an item, few enough for a fast FTS query. */
const MAX_QUERY_TERMS = 24;
const MAX_PROMPT_CHARS = 16 * 1024;

const HEADER =
  "Memory the user promoted into tapedeck from earlier sessions, most relevant first (it may be out of date):";

export interface RetrieveOptions {
  budgetBytes?: number;
}

// Words that match nearly every item and only dilute the ranking.
const STOPWORDS = new Set(
  (
    "the and for are but not you all any can had her was one our out has have his how its may new now " +
    "old see two way who did get let say she too use that with this from they will would there their what " +
    "about which when make like time just know take into your some could them than then these want been " +
    "were said each does doing done here where why should shall also only over such very more most other " +
    "please tell give show find need using used there's it's i'm don't what's"
  ).split(" "),
);

/**
 * The prompt as a search: its distinctive words (a marker from an earlier injection removed first), each quoted
 * so that nothing in a prompt is query syntax, joined by OR so that an item matching some of them ranks.
 */
export function queryFromPrompt(prompt: string): { query: string; terms: string[] } | undefined {
  const text = stripInjected(prompt.slice(0, MAX_PROMPT_CHARS));
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const raw of text.split(/[\s"]+/)) {
    // Sentence punctuation around a word, not inside an identifier (src/core/store.ts keeps its dots).
    const word = raw.replace(/^[^\p{L}\p{N}_./-]+|[^\p{L}\p{N}_]+$/gu, "");
    const key = word.toLowerCase();
    if ([...word].length < 3 || word.length > 64 || STOPWORDS.has(key) || seen.has(key)) continue;
    seen.add(key);
    terms.push(word);
    if (terms.length >= MAX_QUERY_TERMS) break;
  }
  if (terms.length === 0) return undefined;
  return { query: terms.map((t) => `"${t}"`).join(" OR "), terms };
}

/**
 * How many items hold a word of the memory's word index (FTS5's own tokens: lowercased, diacritics removed),
 * asked per word and remembered until the memory changes. A prompt's common words match most of memory, and
 * ranking thousands of rows was the whole cost of a search (10,000 items: 6 ms for 8 terms that each matched
 * ~9,000 items, 0.03 ms for the 4 that matched ~50); a word that many items hold says little anyway, so the
 * rarest words are searched (selectTerms). Per word, not the whole vocabulary: reading all of it took 75 ms
 * (10,000 items, 8,000 words), which a one-shot hook process (the command transport) would pay per prompt;
 * one word is 0.04 ms for a rare one, up to ~0.7 ms for one that nearly every item holds, once per process.
 * A process that has asked for many words (the hook server) reads them all once instead.
 */
interface Vocabulary {
  docsOf(word: string): number;
  close(): void;
}

/** Single-word lookups before a process reads the whole vocabulary instead (about ten prompts' worth). */
const WORDS_BEFORE_FULL_READ = 256;

function openVocabulary(projectRoot: string): Vocabulary {
  const db = openDatabase(memoryPath(projectRoot), { readonly: true, base: projectRoot });
  try {
    // A temp table: the memory file itself is read-only here.
    db.exec("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'items_fts', 'row')");
    const lookup = db.prepare("SELECT doc FROM temp.vocab WHERE term = ?");
    const known = new Map<string, number>();
    let asked = 0;
    let complete = false;
    return {
      docsOf(word) {
        let n = known.get(word);
        if (n !== undefined || complete) return n ?? 0;
        asked += 1;
        if (asked > WORDS_BEFORE_FULL_READ) {
          for (const row of db.prepare("SELECT term, doc FROM temp.vocab").iterate()) {
            const r = row as { term: string; doc: number };
            known.set(r.term, Number(r.doc));
          }
          complete = true;
          return known.get(word) ?? 0;
        }
        n = Number((lookup.get(word) as { doc?: number } | undefined)?.doc ?? 0);
        known.set(word, n);
        return n;
      },
      close: () => db.close(),
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** The word index's spelling of a word (unicode61 with remove_diacritics 2). */
function tokenOf(word: string): string {
  return word
    .normalize("NFD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/** Items holding a term: its own count for a word, its rarest word's for an identifier or path (a phrase). */
function docsOf(term: string, vocab: Vocabulary): number {
  const words = term.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  if (words.length === 0) return 0;
  return Math.min(...words.map((w) => vocab.docsOf(tokenOf(w))));
}

/** At most this many terms go into the search: the rarest ones. */
const MAX_SEARCH_TERMS = 8;
/**
 * At most this many (item, term) matches are ranked per prompt: bm25 cost ~0.6 µs per match (10,000 items),
 * so a search stays well under a millisecond whatever the prompt.
 */
export const MAX_RANKED_MATCHES = 1000;

/**
 * The prompt's terms that the memory holds, rarest first, while their matches together stay within
 * MAX_RANKED_MATCHES. A prompt whose every word most of memory holds names nothing in particular: no terms.
 */
export function selectTerms(terms: readonly string[], vocab: Vocabulary): string[] {
  const present = terms
    .map((t) => ({ t, n: docsOf(t, vocab) }))
    .filter((x) => x.n > 0)
    .sort((a, b) => a.n - b.n);
  const out: string[] = [];
  let matches = 0;
  for (const { t, n } of present) {
    if (matches + n > MAX_RANKED_MATCHES || out.length >= MAX_SEARCH_TERMS) break;
    matches += n;
    out.push(t);
  }
  return out;
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
  vocab?: Vocabulary;
  /** The file's and its log's size and time when the counts were opened: a promotion since changes them. */
  vocabStamp?: string;
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

/** What changes when items are added or forgotten: the log (WAL) until a checkpoint, then the file. */
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

function vocabularyOf(projectRoot: string, entry: CachedStore): Vocabulary {
  const now = contentStamp(memoryPath(projectRoot));
  if (!entry.vocab || entry.vocabStamp !== now) {
    entry.vocab?.close();
    entry.vocab = undefined;
    entry.vocab = openVocabulary(projectRoot);
    entry.vocabStamp = now;
  }
  return entry.vocab;
}

function closeEntry(entry: CachedStore): void {
  for (const close of [() => entry.store.close(), () => entry.vocab?.close()]) {
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

/** The context for this prompt, or undefined when memory holds nothing that matches (or there is no memory). */
export function retrieve(
  projectRoot: string,
  prompt: string,
  opts: RetrieveOptions = {},
): Retrieval | undefined {
  const q = queryFromPrompt(prompt);
  if (!q) return undefined;
  const entry = memoryOf(projectRoot);
  if (!entry) return undefined;
  const terms = selectTerms(q.terms, vocabularyOf(projectRoot, entry));
  if (terms.length === 0) return undefined;
  const query = terms.map((t) => `"${t}"`).join(" OR ");
  const store = entry.store;
  const budget = clampBudget(opts.budgetBytes);
  const hits: MemoryHit[] = store.search(query, { limit: MAX_INJECTED_ITEMS });
  if (hits.length === 0) return undefined;
  const byId = new Map(store.get(hits.map((h) => h.id)).map((item) => [item.id, item]));
  const ordered = hits.map((h) => byId.get(h.id)).filter((i): i is MemoryItem => i !== undefined);
  const composed = composeContext(ordered, budget);
  if (!composed) return undefined;
  return {
    text: composed.text,
    bytes: Buffer.byteLength(composed.text),
    item_ids: composed.ids,
    query,
    budget_bytes: budget,
    matched: hits.length,
    truncated: composed.truncated || composed.ids.length < ordered.length,
  };
}
