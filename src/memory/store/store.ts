// The durable memory store: `.tapedeck/memory.sqlite` (0600). Unlike the events index it is not derived from
// anything: it holds what the user chose to promote, so it is never deleted or rebuilt for them; a damaged
// file is reported with its name and left alone. Items are rows whose source never changes (insert, read,
// edit the text, forget); two full-text tables over title and body stay in step through triggers: stemmed
// words ranked with bm25, and trigrams for identifiers, paths and scripts that the word tokenizer splits
// apart. The layout and its versions are in store-schema.ts. Every item tapedeck writes carries its proof
// (origin.ts), computed from the row as it reads back; whatever hands items to the agent asks `givable` first.
import { join } from "node:path";
import { ensureTapedeckDir, tapedeckDir } from "../../core/archive/paths.ts";
import { EXIT, UserError } from "../../core/base/user-error.ts";
import { parseQuery } from "../index/query.ts";
import {
  type Database,
  MemoryDbError,
  openDatabase,
  type Statement,
  toMemoryDbError,
} from "../index/sqlite.ts";
import {
  boundBody,
  ITEM_KINDS,
  MEMORY_SCHEMA_VERSION,
  type MemoryItem,
  type MemoryKind,
  type MemorySource,
  sourceSpan,
} from "./item-shape.ts";
import { isProvenItem, itemMac, originKey, trustedKey } from "./origin.ts";
import { clampLimit, type Filter, filterSql, fragmentSnippet, headOf, sessionFilter } from "./store-query.ts";
import {
  identsOf,
  MEMORY_DB_VERSION,
  ownFile,
  PROVEN_ITEMS_VERSION,
  prepareSchema,
  type Tx,
  withBusyRetry,
} from "./store-schema.ts";

export type { MemoryItem, MemoryKind, MemorySource };

export const MEMORY_FILE = "memory.sqlite";
export { MEMORY_DB_VERSION };
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

/**
 * What an item's proof says of it: `proven`, its proof holds under the user's key; `changed`, it no longer
 * matches its proof (changed outside tapedeck); `unproven`, it has none (a format-2 file, a file whose origin
 * proof did not hold when it was upgraded, no key).
 */
export type ItemProof = "proven" | "changed" | "unproven";

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
  /**
   * A new title and text for an item, already redacted and bounded by the caller (the store checks the bound);
   * its id, kind and source stay. Undefined when there is no such item.
   */
  edit(
    id: string,
    change: { title: string; body: string; truncated: boolean; editedAt: string },
  ): MemoryItem | undefined;
  /**
   * The file's format: 3 proves each item, 2 stems its word index (retrieval compares stems), 1 holds words
   * as written.
   */
  readonly format: number;
  /** Laid out by this user's tapedeck with its schema unchanged: what may be handed to the agent (origin.ts). */
  isOwn(): boolean;
  /** What the proof stored with an item (or a hit) this store read says of it, as it reads now. */
  proofOf(x: MemoryItem | MemoryHit): ItemProof;
  /**
   * Those of `xs` that may reach the agent, in order, once the file is the user's (isOwn): each proven; in a
   * file of a format before item proofs, all (it is trusted as a whole until its first write proves them).
   */
  givable<T extends MemoryItem | MemoryHit>(xs: readonly T[]): T[];
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

const BASE_COLUMNS =
  "i.id, i.schema_version, i.kind, i.title, i.body, i.truncated, i.created_at, i.provider, i.session_id, " +
  "i.agent_id, i.seq_from, i.seq_to, i.event_ids, i.envelope_schema_version, i.archive_sha256, i.archive_bytes";

/** A format-1 file (read, never upgraded, by a reader) has no label or edit time; before format 3, no proof. */
function columnsFor(format: number): string {
  const edits = format >= 2 ? "i.label, i.edited_at" : "NULL AS label, NULL AS edited_at";
  return `${BASE_COLUMNS}, ${edits}, ${format >= PROVEN_ITEMS_VERSION ? "i.proof" : "NULL AS proof"}`;
}

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
  label: string | null;
  edited_at: string | null;
  proof: string | null;
}

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
    const version = prepareSchema(db, path, readonly, proveAll);
    if (version === 0) {
      // Created by a writer that has not laid out the schema yet: nothing is in it.
      db.close();
      return undefined;
    }
    return new SqliteMemoryStore(db, path, version);
  } catch (error) {
    db.close();
    throw toMemoryDbError(error, path);
  }
}

const INSERT_SQL =
  "INSERT INTO items (id, schema_version, kind, title, body, truncated, created_at, provider, session_id, " +
  "agent_id, seq_from, seq_to, event_ids, envelope_schema_version, archive_sha256, archive_bytes, idents, label, " +
  "proof) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING";

/**
 * Writes the proof of an item (by rowid) as it reads back: what is proven is exactly what a reader will be
 * handed. Only a writer makes one, on a file in the current format.
 */
type Prover = (rowid: number) => void;

function proverFor(db: Database, key: Buffer = originKey(true)!): Prover {
  const select = db.prepare(`SELECT ${columnsFor(MEMORY_DB_VERSION)} FROM items i WHERE i.rowid = ?`);
  const update = db.prepare("UPDATE items SET proof = ? WHERE rowid = ?");
  return (rowid) => {
    const row = select.get(rowid) as Row | undefined;
    if (row) update.run(itemMac(key, itemOf(row)), rowid);
  };
}

/** Proves every item of a file being upgraded to the current format (store-schema.ts says when). */
function proveAll(db: Database): void {
  const prove = proverFor(db);
  for (const { r } of db.prepare("SELECT rowid AS r FROM items").all() as Array<{ r: number }>) prove(r);
}

class SqliteMemoryStore implements MemoryStore {
  private insertStmt: Statement | undefined;
  private readonly byId: Statement;
  private readonly columns: string;
  /** The proof each item or hit this store handed out was read with, and the item it was read as. */
  private readonly proofs = new WeakMap<object, { item: MemoryItem; proof: string | null }>();
  private key: { value: Buffer | undefined } | undefined;
  private prove: Prover | undefined;
  private signingKey: Buffer | undefined;

  constructor(
    private readonly db: Database,
    readonly path: string,
    readonly format: number,
  ) {
    this.columns = columnsFor(format);
    this.byId = this.guard(() => db.prepare(`SELECT ${this.columns} FROM items i WHERE i.id = ?`));
  }

  /** Every SQLite failure leaves as a MemoryDbError naming this file, never as a driver stack. */
  private guard<T>(fn: () => T): T {
    try {
      return fn();
    } catch (error) {
      if (error instanceof UserError) throw error;
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
      // The set's label (`promote --title`) is not in the word index: an item is found by it too.
      if (hits.length < limit && this.format >= 2 && q.terms.length > 0) {
        const floor = Math.min(0, ...hits.map((h) => h.score));
        const seen = hits.map((h) => h.id);
        for (const h of this.labelled(q.terms, filter, limit - hits.length, seen))
          hits.push({ ...h, score: floor - 0.5 });
      }
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
      return row ? [this.hit(row, -r.rank, snippets.get(r.rid) ?? headOf(row.body))] : [];
    });
  }

  private rowsByRowid(rids: string): Map<number, Row> {
    const rows = this.db
      .prepare(
        `SELECT i.rowid AS rid, ${this.columns} FROM items i WHERE i.rowid IN (SELECT value FROM json_each(?))`,
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
      return row ? [this.hit(row, -r.rank, fragmentSnippet(row.body, terms))] : [];
    });
  }

  /** Items whose set label holds every term (case-insensitive), newest first. */
  private labelled(terms: string[], filter: Filter, limit: number, exclude: string[]): MemoryHit[] {
    const words = terms.map((t) => t.toLowerCase()).filter((t) => t !== "");
    if (words.length === 0 || limit <= 0) return [];
    const held = words.map(() => " AND instr(lower(i.label), ?) > 0").join("");
    const sql =
      `SELECT ${this.columns} FROM items i WHERE i.label IS NOT NULL${held}${filter.sql} ` +
      "AND i.id NOT IN (SELECT value FROM json_each(?)) ORDER BY i.rowid DESC LIMIT ?";
    const rows = this.db
      .prepare(sql)
      .all(...words, ...filter.params, JSON.stringify(exclude), limit) as Row[];
    return rows.map((r) => this.hit(r, 0, `«${r.label}» ${headOf(r.body)}`));
  }

  private filtered(filter: Filter, limit: number): MemoryHit[] {
    const sql = `SELECT ${this.columns} FROM items i WHERE 1${filter.sql} ORDER BY i.rowid DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...filter.params, limit) as Row[];
    return rows.map((r) => this.hit(r, 0, headOf(r.body)));
  }

  get(ids: readonly string[]): MemoryItem[] {
    if (ids.length > MAX_GET_IDS) {
      throw new UserError(`at most ${MAX_GET_IDS} ids at once`, EXIT.usage);
    }
    return this.guard(() => {
      const out: MemoryItem[] = [];
      for (const id of ids) {
        const row = this.byId.get(id) as Row | undefined;
        if (row) out.push(this.item(row));
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
      `SELECT ${this.columns} FROM items i${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ` +
      "ORDER BY i.rowid DESC LIMIT ? OFFSET ?";
    params.push(clampLimit(opts.limit ?? 100, 100_000), Math.max(0, Math.trunc(opts.offset ?? 0)));
    return this.guard(() => (this.db.prepare(sql).all(...params) as Row[]).map((r) => this.item(r)));
  }

  *iterate(): IterableIterator<MemoryItem> {
    // Pages of rows by rowid rather than one open statement: the caller may take its time between items.
    let after = 0;
    for (;;) {
      const rows = this.guard(
        () =>
          this.db
            .prepare(
              `SELECT i.rowid AS rid, ${this.columns} FROM items i WHERE i.rowid > ? ORDER BY i.rowid LIMIT 500`,
            )
            .all(after) as Array<Row & { rid: number }>,
      );
      if (rows.length === 0) return;
      for (const r of rows) yield this.item(r);
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
    // Only a writer inserts, and a writer's file is in the current format (prepareSchema upgraded it).
    const stmt = this.guard(() => {
      this.insertStmt ??= this.db.prepare(INSERT_SQL);
      return this.insertStmt;
    });
    const created: string[] = [];
    const existing: string[] = [];
    const tx = this.db.transaction(() => {
      created.length = 0;
      existing.length = 0;
      for (const item of items) {
        const s = item.source;
        const row: Row = {
          id: item.id,
          schema_version: item.schema_version,
          kind: item.kind,
          title: item.title,
          body: item.body,
          truncated: item.truncated ? 1 : 0,
          created_at: item.created_at,
          provider: s.provider,
          session_id: s.session_id,
          agent_id: s.agent_id,
          seq_from: s.seq_from,
          seq_to: s.seq_to,
          event_ids: JSON.stringify(s.event_ids),
          envelope_schema_version: s.envelope_schema_version,
          archive_sha256: s.archive_sha256,
          archive_bytes: s.archive_bytes,
          label: item.label ?? null,
          edited_at: null,
          proof: null,
        };
        // Proven as the row will read back (itemOf of what is bound), without reading it back.
        const proof = itemMac(this.writerKey(), itemOf(row));
        const r = stmt.run(
          row.id,
          row.schema_version,
          row.kind,
          row.title,
          row.body,
          row.truncated,
          row.created_at,
          row.provider,
          row.session_id,
          row.agent_id,
          row.seq_from,
          row.seq_to,
          row.event_ids,
          row.envelope_schema_version,
          row.archive_sha256,
          row.archive_bytes,
          identsOf(item.title, item.body),
          row.label,
          proof,
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

  edit(
    id: string,
    change: { title: string; body: string; truncated: boolean; editedAt: string },
  ): MemoryItem | undefined {
    if (boundBody(change.body).truncated) throw new UserError(`memory item ${id}: body over the 4 KiB bound`);
    return this.guard(() => {
      const changed = withBusyRetry(() =>
        (
          this.db.transaction(() => {
            const r = this.db
              .prepare(
                "UPDATE items SET title = ?, body = ?, truncated = ?, idents = ?, edited_at = ? WHERE id = ?",
              )
              .run(
                change.title,
                change.body,
                change.truncated ? 1 : 0,
                identsOf(change.title, change.body),
                change.editedAt,
                id,
              );
            if (r.changes === 0) return false;
            // The new text is tapedeck's own writing: proven again, in the same transaction.
            const row = this.db.prepare("SELECT rowid AS rid FROM items WHERE id = ?").get(id) as {
              rid: number;
            };
            this.prover()(row.rid);
            return true;
          }) as Tx<() => boolean>
        ).immediate(),
      );
      if (!changed) return undefined;
      // The old text sits in the write-ahead log until a checkpoint copies the new pages over it (as forget).
      this.db.pragma("wal_checkpoint(TRUNCATE)");
      return this.get([id])[0];
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

  proofOf(x: MemoryItem | MemoryHit): ItemProof {
    const read = this.proofs.get(x);
    if (!read || this.format < PROVEN_ITEMS_VERSION || read.proof === null) return "unproven";
    this.key ??= { value: trustedKey() };
    if (!this.key.value) return "unproven";
    // An item as the caller holds it now; a hit by the item its row read as (a hit has no body).
    const item = x === read.item ? (x as MemoryItem) : read.item;
    return isProvenItem(this.key.value, item, read.proof) ? "proven" : "changed";
  }

  givable<T extends MemoryItem | MemoryHit>(xs: readonly T[]): T[] {
    if (this.format < PROVEN_ITEMS_VERSION) return [...xs];
    return xs.filter((x) => this.proofOf(x) === "proven");
  }

  private prover(): Prover {
    this.prove ??= proverFor(this.db, this.writerKey());
    return this.prove;
  }

  /** The key a writer proves with: created with the first memory file, read once per store. */
  private writerKey(): Buffer {
    this.signingKey ??= originKey(true)!;
    return this.signingKey;
  }

  private item(r: Row): MemoryItem {
    const item = itemOf(r);
    this.proofs.set(item, { item, proof: r.proof ?? null });
    return item;
  }

  private hit(r: Row, score: number, snippet: string): MemoryHit {
    const hit = hitOf(r, score, snippet);
    this.proofs.set(hit, { item: itemOf(r), proof: r.proof ?? null });
    return hit;
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function sourceOf(r: Row): MemorySource {
  return {
    ...sourceSpan(r),
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
    label: r.label ?? null,
    edited_at: r.edited_at ?? null,
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
    throw new UserError(`memory item ${item.id}: unknown kind "${item.kind}"`);
  }
  if (item.schema_version !== MEMORY_SCHEMA_VERSION) {
    throw new UserError(
      `memory item ${item.id}: schema version ${item.schema_version} is not ${MEMORY_SCHEMA_VERSION}`,
    );
  }
  if (boundBody(item.body).truncated)
    throw new UserError(`memory item ${item.id}: body over the 4 KiB bound`);
}
