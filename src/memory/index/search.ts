import { storedId } from "../../core/archive/identity.ts";
import { tapedeckDir } from "../../core/archive/paths.ts";
import { lstatOrUndefined } from "../../core/base/fsutil.ts";
import { indexPath, type UpdateOptions, updateIndex } from "./index.ts";
import { isIndex } from "./index-db.ts";
import { MARK_CLOSE, MARK_OPEN } from "./index-text.ts";
import type { ParsedQuery } from "./query.ts";
import { type Database, MemoryDbError, openDatabase, toMemoryDbError } from "./sqlite.ts";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 1000;
/** Words of context on each side of a match in a snippet. */
const SNIPPET_TOKENS = 16;
const SNIPPET_CHARS = 160;

export interface SearchFilters {
  kinds?: string[];
  providers?: string[];
  sessions?: string[];
  /** ISO-8601: events at or after it */
  since?: string;
}

export interface SearchHit {
  project: string;
  session_id: string;
  provider_session_id: string | null;
  provider: string;
  sequence: number;
  kind: string;
  timestamp: string;
  event_id: string;
  /** Higher is better (bm25, negated); 0 for a filter-only listing. */
  score: number;
  /** The matched text around the hit, the matches between MARK_OPEN and MARK_CLOSE. */
  snippet: string;
  /** Which table found it: words (bm25 over the text), trigram (identifier substrings), or none (filters only). */
  via: "words" | "trigram" | "filter";
  /** events.jsonl of the session, relative to the project. */
  path: string;
}

export interface ProjectSearch {
  hits: SearchHit[];
  /** The index could not be brought up to date (another process holds it): the hits may miss the newest events. */
  stale: boolean;
}

/** A restriction from the query and one from a flag both apply: where both name values, only the common ones. */
export function mergeFilters(query: ParsedQuery["filters"], flags: SearchFilters): SearchFilters {
  const both = (a?: string[], b?: string[]) => (a && b ? a.filter((x) => b.includes(x)) : (a ?? b));
  return {
    kinds: both(query.kinds, flags.kinds),
    providers: both(query.providers, flags.providers),
    sessions: both(query.sessions, flags.sessions),
    since: flags.since,
  };
}

/** Updates the project's index, then searches it. A project without recordings answers no hits and creates nothing. */
export function searchProject(
  projectRoot: string,
  query: ParsedQuery,
  filters: SearchFilters,
  limit: number,
  opts: UpdateOptions = {},
): ProjectSearch {
  if (!lstatOrUndefined(tapedeckDir(projectRoot))?.isDirectory()) return { hits: [], stale: false };
  let stale = false;
  try {
    updateIndex(projectRoot, opts);
  } catch (error) {
    if (!(error instanceof MemoryDbError && error.problem === "locked")) throw error;
    stale = true;
  }
  const path = indexPath(projectRoot);
  const db = openDatabase(path, { readonly: true, base: projectRoot });
  try {
    // Left as found when the update could not take it (locked): it must still be an index of ours to be queried.
    if (!isIndex(db)) {
      throw new MemoryDbError(
        `${path} is not an index of this tapedeck; run \`tapedeck index rebuild\``,
        "failed",
        path,
      );
    }
    return { hits: searchDatabase(db, projectRoot, query, filters, limit), stale };
  } catch (error) {
    throw toMemoryDbError(error, path);
  } finally {
    db.close();
  }
}

/**
 * Words first (bm25); an identifier-like query also asks the trigram table,
 * whose substring hits follow the word hits; a query whose words find nothing
 * falls back to trigram substrings.
 */
export function searchDatabase(
  db: Database,
  project: string,
  query: ParsedQuery,
  filters: SearchFilters,
  limit: number,
  window = RANK_WINDOW,
): SearchHit[] {
  filters = mergeFilters(query.filters, filters);
  if (query.match === "") return listByFilters(db, project, filters, limit);
  const words = ftsSearch(db, project, "events_fts", query.match, filters, limit, [], window);
  const useTrigram = query.trigram !== undefined && (query.identifiers || words.length === 0);
  if (!useTrigram || words.length >= limit) return words;
  const seen = new Set(words.map((h) => `${h.path}\u0000${h.sequence}\u0000${h.event_id}`));
  const extra = ftsSearch(
    db,
    project,
    "events_tri",
    query.trigram!,
    filters,
    limit,
    query.terms,
    window,
  ).filter((h) => !seen.has(`${h.path}\u0000${h.sequence}\u0000${h.event_id}`));
  return [...words, ...extra].slice(0, limit);
}

interface Row {
  seq: number;
  kind: string;
  provider: string;
  ts: string;
  event_id: string;
  session_id: string;
  provider_session_id: string | null;
  path: string;
  rank: number;
  snippet: string;
}

function filterSql(filters: SearchFilters): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  const inList = (column: string, values: string[]) => {
    parts.push(`${column} IN (${values.map(() => "?").join(", ")})`);
    params.push(...values);
  };
  if (filters.kinds) inList("e.kind", filters.kinds.length ? filters.kinds : [""]);
  if (filters.providers) inList("e.provider", filters.providers.length ? filters.providers : [""]);
  if (filters.sessions) {
    const values = filters.sessions.length ? filters.sessions : [""];
    const one =
      "(s.session_id = ? OR s.provider_session_id = ? OR s.dir_name = ? OR s.provider_session_id = ? OR substr(s.provider_session_id, 1, length(?)) = ? OR substr(s.session_id, 1, length(?)) = ?)";
    parts.push(`(${values.map(() => one).join(" OR ")})`);
    // A credential-like id is stored as its marker: typing the id itself still finds the session.
    for (const v of values) params.push(v, v, v, storedId(v), v, v, v, v);
  }
  if (filters.since) {
    parts.push("e.ts >= ?");
    params.push(filters.since);
  }
  return { sql: parts.length ? ` AND ${parts.join(" AND ")}` : "", params };
}

/**
 * bm25 scores every match before the best are known: a word in half of 1,000,000 events took 1 s
 * (bench/memory-index). A query matching more than RANK_WINDOW events is ranked among its newest RANK_WINDOW
 * matches (rowids grow as sessions are indexed), found by walking the doclist backwards, which costs < 1 ms.
 */
export const RANK_WINDOW = 20_000;

function rankFloor(db: Database, table: string, match: string, window: number): number | undefined {
  const row = db
    .prepare(`SELECT rowid AS id FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?`)
    .get(match, window - 1) as { id: number } | undefined;
  return row?.id;
}

function ftsSearch(
  db: Database,
  project: string,
  table: "events_fts" | "events_tri",
  match: string,
  filters: SearchFilters,
  limit: number,
  terms: string[],
  window: number | undefined,
): SearchHit[] {
  const floor = window === undefined ? undefined : rankFloor(db, table, match, window);
  const f = filterSql(filters);
  const snippet =
    table === "events_fts"
      ? `snippet(events_fts, 0, '${MARK_OPEN}', '${MARK_CLOSE}', '…', ${SNIPPET_TOKENS})`
      : "e.body";
  const rows = db
    .prepare(
      `SELECT e.seq, e.kind, e.provider, e.ts, e.event_id, s.session_id, s.provider_session_id, s.path,
        bm25(${table}) AS rank, ${snippet} AS snippet
       FROM ${table} JOIN events e ON e.id = ${table}.rowid JOIN sessions s ON s.id = e.session
       WHERE ${table} MATCH ?${floor === undefined ? "" : ` AND ${table}.rowid >= ${floor}`}${f.sql}
       ORDER BY rank LIMIT ?`,
    )
    .all(match, ...f.params, limit) as Row[];
  // Filters may leave fewer hits than wanted among the newest matches: then rank them all.
  if (floor !== undefined && rows.length < limit && f.sql !== "") {
    return ftsSearch(db, project, table, match, filters, limit, terms, undefined);
  }
  return rows.map((r) =>
    toHit(
      project,
      r,
      table === "events_fts" ? "words" : "trigram",
      table === "events_fts" ? r.snippet : substringSnippet(r.snippet, terms),
    ),
  );
}

function listByFilters(db: Database, project: string, filters: SearchFilters, limit: number): SearchHit[] {
  const f = filterSql(filters);
  const rows = db
    .prepare(
      `SELECT e.seq, e.kind, e.provider, e.ts, e.event_id, s.session_id, s.provider_session_id, s.path,
        0 AS rank, substr(e.body, 1, ${SNIPPET_CHARS}) AS snippet
       FROM events e JOIN sessions s ON s.id = e.session WHERE 1${f.sql} ORDER BY e.ts DESC, e.seq DESC LIMIT ?`,
    )
    .all(...f.params, limit) as Row[];
  return rows.map((r) => toHit(project, r, "filter", r.snippet));
}

function toHit(project: string, r: Row, via: SearchHit["via"], snippet: string): SearchHit {
  return {
    project,
    session_id: r.session_id,
    provider_session_id: r.provider_session_id,
    provider: r.provider,
    sequence: r.seq,
    kind: r.kind,
    timestamp: r.ts,
    event_id: r.event_id,
    score: r.rank === 0 ? 0 : Number((-r.rank).toPrecision(4)),
    snippet: snippet.replace(/\s+/g, " ").trim(),
    via,
    path: r.path,
  };
}

/** A window of the body around the first term found (case-insensitively), every occurrence in it marked. */
export function substringSnippet(body: string, terms: string[]): string {
  const lower = body.toLowerCase();
  const needles = terms.map((t) => t.toLowerCase()).filter((t) => t !== "");
  const first = Math.min(
    ...needles.map((t) => lower.indexOf(t)).filter((i) => i >= 0),
    Number.POSITIVE_INFINITY,
  );
  const center = Number.isFinite(first) ? first : 0;
  const start = Math.max(0, center - SNIPPET_CHARS / 2);
  const end = Math.min(body.length, start + SNIPPET_CHARS);
  const window = body.slice(start, end);
  const marked = markAll(window, needles);
  return `${start > 0 ? "…" : ""}${marked}${end < body.length ? "…" : ""}`;
}

function markAll(text: string, needles: string[]): string {
  const lower = text.toLowerCase();
  const spans: Array<[number, number]> = [];
  for (const n of needles) {
    for (let i = lower.indexOf(n); i >= 0; i = lower.indexOf(n, i + n.length)) spans.push([i, i + n.length]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [s, e] of spans) {
    if (s < at) continue;
    out += `${text.slice(at, s)}${MARK_OPEN}${text.slice(s, e)}${MARK_CLOSE}`;
    at = e;
  }
  return out + text.slice(at);
}

/** The snippet without markers, and where each marked match is in it (UTF-16 offsets, end exclusive). */
export function splitMarks(snippet: string): { text: string; matches: Array<[number, number]> } {
  let text = "";
  const matches: Array<[number, number]> = [];
  let open = -1;
  for (const ch of snippet) {
    if (ch === MARK_OPEN) open = text.length;
    else if (ch === MARK_CLOSE) {
      if (open >= 0) matches.push([open, text.length]);
      open = -1;
    } else text += ch;
  }
  return { text, matches };
}
