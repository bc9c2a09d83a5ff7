// The durable memory store: `.tapedeck/memory.sqlite` (0600). Unlike the events index it is not derived from
// anything: it holds what the user chose to promote, so it is never deleted or rebuilt for them; a damaged
// file is reported with its name and left alone. Items are immutable rows (insert, read, forget); two
// full-text tables over title and body stay in step through triggers: words ranked with bm25, and trigrams
// for identifiers, paths and scripts that the word tokenizer splits apart.
import { join } from "node:path";
import { CliError, EXIT } from "../cli/errors.ts";
import { ensureTapedeckDir, tapedeckDir } from "../core/paths.ts";
import { identifiers } from "./index-text.ts";
import {
  boundBody,
  ITEM_KINDS,
  MEMORY_SCHEMA_VERSION,
  type MemoryItem,
  type MemoryKind,
  type MemorySource,
} from "./item-shape.ts";
import { isOwnOrigin, newNonce, originKey, originMac } from "./origin.ts";
import { type ParsedQuery, parseQuery } from "./query.ts";
import {
  type Database,
  hasSchema,
  MemoryDbError,
  openDatabase,
  type Statement,
  toMemoryDbError,
} from "./sqlite.ts";

export type { MemoryItem, MemoryKind, MemorySource };

export const MEMORY_FILE = "memory.sqlite";
/** The file's own format (PRAGMA user_version), apart from the items' schema_version. */
export const MEMORY_DB_VERSION = 1;
export const MAX_SEARCH_LIMIT = 100;
export const MAX_GET_IDS = 1000;
/** Matches ranked at most: the most recently promoted ones (see words()). */
export const RANK_CAP = 20_000;

export interface MemoryHit {
  id: string;
  kind: MemoryKind;
  title: string;
  /** Higher is better: bm25 of the word index (negated); trigram-only matches rank after every word match. */
  score: number;
  /** The best-matching stretch of title or body, matches wrapped in « ». */
  snippet: string;
  source: MemorySource;
}

export interface ListOptions {
  limit?: number;
  offset?: number;
  /** An archive session id (`claude:abc`), the provider's id (`abc`) or a prefix of either. */
  session?: string;
  kind?: MemoryKind;
}

export interface MemoryStore {
  readonly path: string;
  search(query: string, opts: { limit: number }): MemoryHit[];
  /** In the order asked; unknown ids are left out. */
  get(ids: readonly string[]): MemoryItem[];
  list(opts?: ListOptions): MemoryItem[];
  /** Every item, oldest first, one row at a time (export, verify). */
  iterate(): IterableIterator<MemoryItem>;
  count(): number;
  insert(items: readonly MemoryItem[]): { created: string[]; existing: string[] };
  /** True when the item existed. Its text is overwritten in the file, not only unlinked. */
  forget(id: string): boolean;
  /** Laid out by this user's tapedeck with its schema unchanged: what may be handed to the agent (origin.ts). */
  isOwn(): boolean;
  close(): void;
}

/** A memory file that is not this user's (origin.ts): refused wherever memory would reach the agent. */
export function foreignMemoryError(path: string): MemoryDbError {
  return new MemoryDbError(
    `${path} was not laid out by your tapedeck (it came with the project, was changed, or predates origin proofs); its items are never given to the agent: move it aside and promote again`,
    "foreign",
    path,
  );
}

export function memoryPath(projectRoot: string): string {
  return join(tapedeckDir(projectRoot), MEMORY_FILE);
}

const ITEMS_SCHEMA = `
CREATE TABLE IF NOT EXISTS items (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  schema_version INTEGER NOT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  truncated INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  provider TEXT NOT NULL,
  session_id TEXT NOT NULL,
  agent_id TEXT,
  seq_from INTEGER NOT NULL,
  seq_to INTEGER NOT NULL,
  event_ids TEXT NOT NULL,
  envelope_schema_version INTEGER NOT NULL,
  archive_sha256 TEXT NOT NULL,
  archive_bytes INTEGER NOT NULL,
  -- The identifiers, paths and flags of title and body: all the trigram table holds.
  idents TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS items_by_session ON items(session_id, seq_from);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
  title, body, content='items', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS items_trigram USING fts5(
  idents, content='items', content_rowid='rowid', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS items_ai AFTER INSERT ON items BEGIN
  INSERT INTO items_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
  INSERT INTO items_trigram(rowid, idents) VALUES (new.rowid, new.idents);
END;
CREATE TRIGGER IF NOT EXISTS items_ad AFTER DELETE ON items BEGIN
  INSERT INTO items_fts(items_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
  INSERT INTO items_trigram(items_trigram, rowid, idents) VALUES ('delete', old.rowid, old.idents);
END;
-- A forgotten item's terms leave the index at once, not at some later segment merge (FTS5 secure-delete).
INSERT INTO items_fts(items_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO items_trigram(items_trigram, rank) VALUES ('secure-delete', 1);
-- Items are immutable: an edit would silently rewrite what the user promoted.
CREATE TRIGGER IF NOT EXISTS items_bu BEFORE UPDATE ON items BEGIN
  SELECT RAISE(ABORT, 'memory items are immutable');
END;
`;

/** Proof that this user's tapedeck laid the file out (origin.ts): only such a file reaches the agent. */
const ORIGIN = "CREATE TABLE IF NOT EXISTS origin (nonce TEXT NOT NULL, mac TEXT NOT NULL);";
/** Files laid out before the origin proof: still the user's to list, export and forget, never handed to the agent. */
const UNPROVEN_SCHEMA = ITEMS_SCHEMA;
const SCHEMA = `${ITEMS_SCHEMA}${ORIGIN}\n`;

/**
 * Whether this user's tapedeck laid the file out and nobody changed its schema since: sqlite_master is read as
 * data (no view or trigger of the file runs) and must be exactly SCHEMA's, and the origin row's proof must hold.
 */
function ownFile(db: Database): boolean {
  if (!hasSchema(db, SCHEMA)) return false;
  const rows = db.prepare("SELECT nonce, mac FROM origin LIMIT 2").all() as Array<{
    nonce: unknown;
    mac: unknown;
  }>;
  return rows.length === 1 && isOwnOrigin(rows[0]!.nonce, rows[0]!.mac);
}

const COLUMNS =
  "i.id, i.schema_version, i.kind, i.title, i.body, i.truncated, i.created_at, i.provider, i.session_id, " +
  "i.agent_id, i.seq_from, i.seq_to, i.event_ids, i.envelope_schema_version, i.archive_sha256, i.archive_bytes";

interface Row {
  id: string;
  schema_version: number;
  kind: string;
  title: string;
  body: string;
  truncated: number;
  created_at: string;
  provider: string;
  session_id: string;
  agent_id: string | null;
  seq_from: number;
  seq_to: number;
  event_ids: string;
  envelope_schema_version: number;
  archive_sha256: string;
  archive_bytes: number;
}

/** The event kinds a `kind:` filter names (the query language's), as the item kinds they become. */
const KIND_FILTER: Record<string, MemoryKind[]> = {
  user_prompt: ["prompt"],
  assistant_message: ["answer"],
  tool_call: ["tool_call"],
  tool_result: ["tool_call"],
  tool_error: ["tool_call"],
  compaction: ["compaction_summary"],
};

/**
 * The project's memory. Read-only: undefined when there is none yet (nothing promoted), and the file is
 * never created. Writable: creates `.tapedeck/` and the file (0600) as needed.
 */
export function openMemory(projectRoot: string, opts: { readonly?: boolean } = {}): MemoryStore | undefined {
  const path = memoryPath(projectRoot);
  const readonly = opts.readonly === true;
  try {
    if (!readonly) ensureTapedeckDir(projectRoot);
  } catch (error) {
    // A symlinked or non-directory .tapedeck: said as the memory file's problem, with its name.
    throw toMemoryDbError(error, path);
  }
  let db: Database;
  try {
    db = openDatabase(path, { readonly, base: projectRoot });
  } catch (error) {
    if (readonly && error instanceof MemoryDbError && error.problem === "missing") return undefined;
    throw error;
  }
  try {
    const version = prepareSchema(db, path, readonly);
    if (version === 0) {
      // Created by a writer that has not laid out the schema yet: nothing is in it.
      db.close();
      return undefined;
    }
    return new SqliteMemoryStore(db, path);
  } catch (error) {
    db.close();
    throw toMemoryDbError(error, path);
  }
}

function prepareSchema(db: Database, path: string, readonly: boolean): number {
  // A forgotten item's text is overwritten, not left in free pages of a file that may be copied elsewhere.
  db.pragma("secure_delete = ON");
  const { version, foreign } = schemaState(db);
  if (version > MEMORY_DB_VERSION) {
    throw new MemoryDbError(
      `${path} was written by a newer tapedeck (format ${version}, this one reads ${MEMORY_DB_VERSION}); upgrade tapedeck to read it`,
      "failed",
      path,
    );
  }
  if (version === 0 && foreign) {
    // Someone else's SQLite file in tapedeck's place: laying tables over it would mix two things in one file.
    throw new MemoryDbError(
      `${path} is an SQLite database tapedeck did not create; move it aside (tapedeck never deletes it for you)`,
      "failed",
      path,
    );
  }
  if (version === MEMORY_DB_VERSION && !hasSchema(db, SCHEMA) && !hasSchema(db, UNPROVEN_SCHEMA)) {
    // Views or triggers under tapedeck's names (a planted file): a recursive one never ends, a trigger runs on
    // every promoted item. Checked as data, before any query of the file's own tables.
    throw new MemoryDbError(
      `${path} has tables or triggers tapedeck did not create; move it aside (tapedeck never deletes it for you)`,
      "failed",
      path,
    );
  }
  if (version === MEMORY_DB_VERSION || readonly) return version;
  withBusyRetry(() => {
    // IMMEDIATE: two first promotions at once lay the schema out one after the other.
    const tx = db.transaction(() => {
      if (Number(db.pragma("user_version", { simple: true })) !== 0) return;
      db.exec(SCHEMA);
      const nonce = newNonce();
      db.prepare("INSERT INTO origin (nonce, mac) VALUES (?, ?)").run(
        nonce,
        originMac(originKey(true)!, nonce),
      );
      db.pragma(`user_version = ${MEMORY_DB_VERSION}`);
    }) as Tx<() => void>;
    tx.immediate();
  });
  return MEMORY_DB_VERSION;
}

/**
 * The format and whether any table exists, in one statement: one snapshot, so a concurrent first writer's
 * schema is seen together with its user_version, never as tables without it.
 */
function schemaState(db: Database): { version: number; foreign: boolean } {
  const row = db
    .prepare(
      "SELECT (SELECT user_version FROM pragma_user_version) AS v, " +
        "(SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite_%') AS n",
    )
    .get() as { v: number; n: number };
  return { version: Number(row.v), foreign: Number(row.v) === 0 && Number(row.n) > 0 };
}

/**
 * better-sqlite3 waits BUSY_TIMEOUT_MS inside SQLite for a lock; a promotion of a big session holds the write
 * lock for one batch at a time, so another writer retries a few times before giving up with a clear message.
 */
const BUSY_RETRIES = 2;

function withBusyRetry<T>(fn: () => T): T {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return fn();
    } catch (error) {
      const code = String((error as { code?: unknown })?.code ?? "");
      if (!code.startsWith("SQLITE_BUSY") || attempt >= BUSY_RETRIES) throw error;
    }
  }
}

type Tx<F> = F & { immediate: F };

class SqliteMemoryStore implements MemoryStore {
  private readonly insertStmt: Statement;
  private readonly byId: Statement;

  constructor(
    private readonly db: Database,
    readonly path: string,
  ) {
    this.insertStmt = this.guard(() =>
      db.prepare(
        "INSERT INTO items (id, schema_version, kind, title, body, truncated, created_at, provider, session_id, " +
          "agent_id, seq_from, seq_to, event_ids, envelope_schema_version, archive_sha256, archive_bytes, idents) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING",
      ),
    );
    this.byId = this.guard(() => db.prepare(`SELECT ${COLUMNS} FROM items i WHERE i.id = ?`));
  }

  /** Every SQLite failure leaves as a MemoryDbError naming this file, never as a driver stack. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw toMemoryDbError(error, this.path);
    }
  }

  search(query: string, opts: { limit: number }): MemoryHit[] {
    const q = parseQuery(query);
    const limit = clampLimit(opts.limit, MAX_SEARCH_LIMIT);
    const filter = filterSql(q.filters);
    if (filter === null) return [];
    return this.guard(() => {
      if (q.match === "") return this.filtered(filter, limit);
      const hits = this.words(q.match, filter, limit);
      // As the events index: fragments of identifiers and paths, or anything when the words found nothing.
      if (hits.length < limit && q.trigram && (q.identifiers || hits.length === 0)) {
        const seen = hits.map((h) => h.id);
        const floor = Math.min(0, ...hits.map((h) => h.score));
        for (const h of this.fragments(q.trigram, q.terms, filter, limit - hits.length, seen)) {
          // Below every word match: a substring hit is the weaker evidence.
          hits.push({ ...h, score: floor - 1 / (1 + Math.max(0, h.score)) });
        }
      }
      return hits;
    });
  }

  private words(match: string, filter: Filter, limit: number): MemoryHit[] {
    // Ranked on rowids alone, then only the top rows read in full: carrying every match's columns (1 KB
    // bodies) into the sort made a common word over 100,000 items 4x slower (238 ms against 60 ms).
    const join = filter.sql === "" ? "" : " JOIN items i ON i.rowid = items_fts.rowid";
    // bm25 scores every match before it knows the best: a word in 82,000 of 100,000 items took 141 ms, ranked
    // among its 20,000 most recently promoted matches 38 ms. Filters apply first, so fewer than `limit` hits
    // means every match was ranked.
    const ranked = this.db
      .prepare(
        "SELECT rid, rank FROM (" +
          // Title matches weigh more: a title is the item's own summary.
          `SELECT items_fts.rowid AS rid, bm25(items_fts, 3.0, 1.0) AS rank FROM items_fts${join} ` +
          `WHERE items_fts MATCH ?${filter.sql} ORDER BY items_fts.rowid DESC LIMIT ${RANK_CAP}` +
          ") ORDER BY rank, rid LIMIT ?",
      )
      .all(match, ...filter.params, limit) as Array<{ rid: number; rank: number }>;
    if (ranked.length === 0) return [];
    const rids = JSON.stringify(ranked.map((r) => r.rid));
    const rows = this.rowsByRowid(rids);
    const snippets = new Map(
      (
        this.db
          .prepare(
            "SELECT rowid AS rid, snippet(items_fts, -1, '«', '»', '…', 24) AS snip FROM items_fts " +
              "WHERE items_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
          )
          .all(match, rids) as Array<{ rid: number; snip: string }>
      ).map((r) => [r.rid, r.snip]),
    );
    return ranked.flatMap((r) => {
      const row = rows.get(r.rid);
      return row ? [hitOf(row, -r.rank, snippets.get(r.rid) ?? headOf(row.body))] : [];
    });
  }

  private rowsByRowid(rids: string): Map<number, Row> {
    const rows = this.db
      .prepare(
        `SELECT i.rowid AS rid, ${COLUMNS} FROM items i WHERE i.rowid IN (SELECT value FROM json_each(?))`,
      )
      .all(rids) as Array<Row & { rid: number }>;
    return new Map(rows.map((r) => [r.rid, r]));
  }

  private fragments(
    match: string,
    terms: string[],
    filter: Filter,
    limit: number,
    exclude: string[],
  ): MemoryHit[] {
    const ranked = this.db
      .prepare(
        "SELECT items_trigram.rowid AS rid, bm25(items_trigram) AS rank FROM items_trigram " +
          `JOIN items i ON i.rowid = items_trigram.rowid WHERE items_trigram MATCH ?${filter.sql} ` +
          "AND i.id NOT IN (SELECT value FROM json_each(?)) ORDER BY rank, items_trigram.rowid LIMIT ?",
      )
      .all(match, ...filter.params, JSON.stringify(exclude), limit) as Array<{ rid: number; rank: number }>;
    if (ranked.length === 0) return [];
    const rows = this.rowsByRowid(JSON.stringify(ranked.map((r) => r.rid)));
    // The table holds identifiers only: the snippet comes from the body around the fragment.
    return ranked.flatMap((r) => {
      const row = rows.get(r.rid);
      return row ? [hitOf(row, -r.rank, fragmentSnippet(row.body, terms))] : [];
    });
  }

  private filtered(filter: Filter, limit: number): MemoryHit[] {
    const sql = `SELECT ${COLUMNS} FROM items i WHERE 1${filter.sql} ORDER BY i.rowid DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...filter.params, limit) as Row[];
    return rows.map((r) => hitOf(r, 0, headOf(r.body)));
  }

  get(ids: readonly string[]): MemoryItem[] {
    if (ids.length > MAX_GET_IDS) {
      throw new CliError(`at most ${MAX_GET_IDS} ids at once`, EXIT.usage);
    }
    return this.guard(() => {
      const out: MemoryItem[] = [];
      for (const id of ids) {
        const row = this.byId.get(id) as Row | undefined;
        if (row) out.push(itemOf(row));
      }
      return out;
    });
  }

  list(opts: ListOptions = {}): MemoryItem[] {
    const where: string[] = [];
    const params: unknown[] = [];
    if (opts.session !== undefined) {
      const s = sessionFilter([opts.session]);
      where.push(s.sql.replace(/^ AND /, ""));
      params.push(...s.params);
    }
    if (opts.kind !== undefined) {
      where.push("i.kind = ?");
      params.push(opts.kind);
    }
    const sql =
      `SELECT ${COLUMNS} FROM items i${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ` +
      "ORDER BY i.rowid DESC LIMIT ? OFFSET ?";
    params.push(clampLimit(opts.limit ?? 100, 100_000), Math.max(0, Math.trunc(opts.offset ?? 0)));
    return this.guard(() => (this.db.prepare(sql).all(...params) as Row[]).map(itemOf));
  }

  *iterate(): IterableIterator<MemoryItem> {
    // Pages of rows by rowid rather than one open statement: the caller may take its time between items.
    let after = 0;
    for (;;) {
      const rows = this.guard(
        () =>
          this.db
            .prepare(
              `SELECT i.rowid AS rid, ${COLUMNS} FROM items i WHERE i.rowid > ? ORDER BY i.rowid LIMIT 500`,
            )
            .all(after) as Array<Row & { rid: number }>,
      );
      if (rows.length === 0) return;
      for (const r of rows) yield itemOf(r);
      after = rows.at(-1)!.rid;
    }
  }

  count(): number {
    return this.guard(() =>
      Number((this.db.prepare("SELECT count(*) AS n FROM items").get() as { n: number }).n),
    );
  }

  insert(items: readonly MemoryItem[]): { created: string[]; existing: string[] } {
    for (const item of items) checkItem(item);
    const created: string[] = [];
    const existing: string[] = [];
    const tx = this.db.transaction(() => {
      created.length = 0;
      existing.length = 0;
      for (const item of items) {
        const s = item.source;
        const r = this.insertStmt.run(
          item.id,
          item.schema_version,
          item.kind,
          item.title,
          item.body,
          item.truncated ? 1 : 0,
          item.created_at,
          s.provider,
          s.session_id,
          s.agent_id,
          s.seq_from,
          s.seq_to,
          JSON.stringify(s.event_ids),
          s.envelope_schema_version,
          s.archive_sha256,
          s.archive_bytes,
          identifiers(`${item.title}\n${item.body}`),
        );
        (r.changes > 0 ? created : existing).push(item.id);
      }
    }) as Tx<() => void>;
    // IMMEDIATE: the write lock up front, so a concurrent promotion waits here instead of failing mid-way.
    this.guard(() => withBusyRetry(() => tx.immediate()));
    return { created, existing };
  }

  forget(id: string): boolean {
    return this.guard(() => {
      const removed = withBusyRetry(() =>
        (
          this.db.transaction(() => {
            const r = this.db.prepare("DELETE FROM items WHERE id = ?").run(id);
            // FTS5's secure-delete takes the terms out of the index; PRAGMA secure_delete zeroes freed pages.
            // (An 'optimize' merge did it too, but rewrote the whole index under the write lock.)
            return r.changes > 0;
          }) as Tx<() => boolean>
        ).immediate(),
      );
      // The old pages also sit in the write-ahead log until a checkpoint copies the new ones over them.
      if (removed) this.db.pragma("wal_checkpoint(TRUNCATE)");
      return removed;
    });
  }

  isOwn(): boolean {
    try {
      return ownFile(this.db);
    } catch {
      // A file whose schema cannot even be read as data is nobody's memory to hand over.
      return false;
    }
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

interface Filter {
  sql: string;
  params: unknown[];
}

/** SQL for the query's filters; null when a kind filter names only kinds memory never holds. */
function filterSql(filters: ParsedQuery["filters"]): Filter | null {
  let sql = "";
  const params: unknown[] = [];
  if (filters.kinds) {
    const kinds = [...new Set(filters.kinds.flatMap((k) => KIND_FILTER[k] ?? []))];
    if (kinds.length === 0) return null;
    sql += " AND i.kind IN (SELECT value FROM json_each(?))";
    params.push(JSON.stringify(kinds));
  }
  if (filters.providers) {
    sql += " AND i.provider IN (SELECT value FROM json_each(?))";
    params.push(JSON.stringify(filters.providers));
  }
  if (filters.sessions) {
    const s = sessionFilter(filters.sessions);
    sql += s.sql;
    params.push(...s.params);
  }
  return { sql, params };
}

/** `claude:abc`, `abc` (the provider's id) or a prefix of either. */
function sessionFilter(sessions: readonly string[]): Filter {
  const alternatives: string[] = [];
  const params: unknown[] = [];
  for (const s of sessions) {
    const like = `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    alternatives.push("i.session_id LIKE ? ESCAPE '\\'", "i.session_id LIKE ? ESCAPE '\\'");
    params.push(like, `%:${like}`);
  }
  return { sql: ` AND (${alternatives.join(" OR ")})`, params };
}

function clampLimit(limit: number, max: number): number {
  if (!Number.isFinite(limit)) return max;
  return Math.min(max, Math.max(1, Math.trunc(limit)));
}

const SNIPPET_CHARS = 160;

/** A window of the body around the first term found (case-insensitively), the matches marked « ». */
function fragmentSnippet(body: string, terms: string[]): string {
  const lower = body.toLowerCase();
  const needles = terms.map((t) => t.toLowerCase()).filter((t) => t !== "");
  const found = needles.map((t) => lower.indexOf(t)).filter((i) => i >= 0);
  const start = Math.max(0, (found.length > 0 ? Math.min(...found) : 0) - Math.floor(SNIPPET_CHARS / 3));
  const end = Math.min(body.length, start + SNIPPET_CHARS);
  let out = "";
  let at = start;
  const window = lower.slice(0, end);
  for (;;) {
    let next = -1;
    let len = 0;
    for (const n of needles) {
      const i = window.indexOf(n, at);
      if (i >= 0 && i + n.length <= end && (next < 0 || i < next)) {
        next = i;
        len = n.length;
      }
    }
    if (next < 0) break;
    out += `${body.slice(at, next)}«${body.slice(next, next + len)}»`;
    at = next + len;
  }
  return `${start > 0 ? "…" : ""}${out}${body.slice(at, end)}${end < body.length ? "…" : ""}`;
}

function headOf(body: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat;
}

function sourceOf(r: Row): MemorySource {
  return {
    provider: r.provider,
    session_id: r.session_id,
    agent_id: r.agent_id,
    seq_from: r.seq_from,
    seq_to: r.seq_to,
    event_ids: parseIds(r.event_ids),
    envelope_schema_version: r.envelope_schema_version,
    archive_sha256: r.archive_sha256,
    archive_bytes: r.archive_bytes,
  };
}

function parseIds(text: string): string[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

function itemOf(r: Row): MemoryItem {
  return {
    id: r.id,
    schema_version: MEMORY_SCHEMA_VERSION,
    kind: r.kind as MemoryKind,
    title: r.title,
    body: r.body,
    truncated: r.truncated !== 0,
    created_at: r.created_at,
    source: sourceOf(r),
  };
}

function hitOf(r: Row, score: number, snippet: string): MemoryHit {
  // One line: a snippet sits under its title in a list, and a newline in it would read as the next hit.
  const line = snippet.replace(/\s+/g, " ").trim();
  return { id: r.id, kind: r.kind as MemoryKind, title: r.title, score, snippet: line, source: sourceOf(r) };
}

/** The store is the last line: whatever a caller builds, nothing over the bound or of an unknown kind lands. */
function checkItem(item: MemoryItem): void {
  if (!(ITEM_KINDS as readonly string[]).includes(item.kind)) {
    throw new CliError(`memory item ${item.id}: unknown kind "${item.kind}"`);
  }
  if (item.schema_version !== MEMORY_SCHEMA_VERSION) {
    throw new CliError(
      `memory item ${item.id}: schema version ${item.schema_version} is not ${MEMORY_SCHEMA_VERSION}`,
    );
  }
  if (boundBody(item.body).truncated) throw new CliError(`memory item ${item.id}: body over the 4 KiB bound`);
}
