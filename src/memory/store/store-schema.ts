// The memory file's layout and its versions. Format 1 laid out items, two full-text tables and an origin proof;
// format 2 adds what the user may change of an item (its title and text, `memory edit`), the label of the set it
// was promoted in (`promote --title`), and stems the word index (porter): "rotated" finds "rotates", and
// retrieval's relevance gate compares a prompt's words with the items' by stem. Format 3 gives each item a proof
// of its own (origin.ts): what the file's origin proof never covered, the items themselves.
//
// Each format is the one before plus one migration, run as written in a fresh file and in an upgraded one alike,
// so that both lay out exactly the same sqlite_master: the schema check (hasSchema) compares the file with what
// these statements produce, never with a hand-written copy. A writer upgrades an older file in one transaction
// on open; a reader reads it as it is (retrieval on the prompt hook never writes).
//
// Upgrading to format 3 proves the items the file already holds only when its origin proof holds: they are then
// trusted as the whole file was (by the user's own tapedeck, at the first write of this build: a promote, an
// edit, a forget), and the origin is proven anew, of kind 2. A file whose origin proof does not hold keeps its
// items unproven (reported by `memory verify`, never given to the agent).
import { identifiers } from "../index/index-text.ts";
import { type Database, hasSchema, MemoryDbError } from "../index/sqlite.ts";
import { isOwnOrigin, newNonce, originKey, originMac } from "./origin.ts";

/** The file's own format (PRAGMA user_version), apart from the items' schema_version. */
export const MEMORY_DB_VERSION = 3;
/** The first format whose items carry proofs of their own (and whose origin proof is of kind 2). */
export const PROVEN_ITEMS_VERSION = 3;

const ITEMS_V1 = `
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
const ORIGIN = "CREATE TABLE IF NOT EXISTS origin (nonce TEXT NOT NULL, mac TEXT NOT NULL);\n";

/**
 * Format 1 → 2. The text of an item may change (`memory edit`, an explicit command), never where it came from:
 * a trigger refuses an update of any source column. The word index is laid out again with the porter stemmer
 * and rebuilt from the items.
 */
const MIGRATION_2 = `
ALTER TABLE items ADD COLUMN label TEXT;
ALTER TABLE items ADD COLUMN edited_at TEXT;
DROP TRIGGER items_bu;
CREATE TRIGGER items_bu BEFORE UPDATE OF id, schema_version, kind, created_at, provider, session_id, agent_id,
  seq_from, seq_to, event_ids, envelope_schema_version, archive_sha256, archive_bytes ON items BEGIN
  SELECT RAISE(ABORT, 'a memory item''s source is immutable');
END;
CREATE TRIGGER items_au AFTER UPDATE OF title, body, idents ON items BEGIN
  INSERT INTO items_fts(items_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
  INSERT INTO items_trigram(items_trigram, rowid, idents) VALUES ('delete', old.rowid, old.idents);
  INSERT INTO items_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
  INSERT INTO items_trigram(rowid, idents) VALUES (new.rowid, new.idents);
END;
DROP TABLE items_fts;
CREATE VIRTUAL TABLE items_fts USING fts5(
  title, body, content='items', content_rowid='rowid', tokenize='porter unicode61 remove_diacritics 2');
INSERT INTO items_fts(items_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO items_fts(items_fts) VALUES ('rebuild');
`;

/** Format 2 → 3: each item's proof (origin.ts), written by tapedeck whenever it writes the item. */
const MIGRATION_3 = `
ALTER TABLE items ADD COLUMN proof TEXT;
`;

/** A layout tapedeck may find: its format, and whether it carries the origin proof. */
interface Layout {
  version: 1 | 2 | 3;
  proven: boolean;
  sql: string;
}

const LAYOUTS: readonly Layout[] = [
  { version: 3, proven: true, sql: ITEMS_V1 + ORIGIN + MIGRATION_2 + MIGRATION_3 },
  { version: 3, proven: false, sql: ITEMS_V1 + MIGRATION_2 + MIGRATION_3 },
  { version: 2, proven: true, sql: ITEMS_V1 + ORIGIN + MIGRATION_2 },
  // Laid out before origin proofs, then upgraded by a writer (a forget): still the user's to list and export.
  { version: 2, proven: false, sql: ITEMS_V1 + MIGRATION_2 },
  { version: 1, proven: true, sql: ITEMS_V1 + ORIGIN },
  { version: 1, proven: false, sql: ITEMS_V1 },
];

/** The layout the file has, of those its format allows; undefined for anything else (a planted trigger). */
export function layoutOf(db: Database, version: number): Layout | undefined {
  return LAYOUTS.find((l) => l.version === version && hasSchema(db, l.sql));
}

/**
 * Whether this user's tapedeck laid the file out and nobody changed its schema since: sqlite_master is read as
 * data (no view or trigger of the file runs) and must be exactly a proven layout's, and the origin row's proof
 * must hold.
 */
export function ownFile(db: Database): boolean {
  const version = Number(db.pragma("user_version", { simple: true }));
  if (!layoutOf(db, version)?.proven) return false;
  const rows = db.prepare("SELECT nonce, mac FROM origin LIMIT 2").all() as Array<{
    nonce: unknown;
    mac: unknown;
  }>;
  const kind = version >= PROVEN_ITEMS_VERSION ? 2 : 1;
  return rows.length === 1 && isOwnOrigin(rows[0]!.nonce, rows[0]!.mac, undefined, kind);
}

/** Writes the proof of every item in the file (the store knows how a row reads as an item). */
export type ProveAll = (db: Database) => void;

/**
 * Checks the file and, for a writer, lays it out or upgrades it. Answers the format the file is in now: 0 when
 * nothing is laid out yet (a reader then has no memory), 1 for a file a reader found in format 1.
 */
export function prepareSchema(db: Database, path: string, readonly: boolean, proveAll: ProveAll): number {
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
  if (version > 0 && !layoutOf(db, version)) {
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
    // IMMEDIATE: two first promotions at once lay the schema out (or upgrade it) one after the other.
    const tx = db.transaction(() => {
      const now = Number(db.pragma("user_version", { simple: true }));
      // Read before any change: whether the file is the user's as it stands (a fresh one is).
      const trusted = now === 0 || ownFile(db);
      if (now === 0) db.exec(ITEMS_V1 + ORIGIN);
      if (now < 2) db.exec(MIGRATION_2);
      if (now < PROVEN_ITEMS_VERSION) {
        db.exec(MIGRATION_3);
        if (trusted) {
          proveAll(db);
          // Of kind 2, under a new nonce: the kind-1 proof this file carried proves no format-3 file.
          const key = originKey(true)!;
          const nonce = newNonce();
          db.prepare("DELETE FROM origin").run();
          db.prepare("INSERT INTO origin (nonce, mac) VALUES (?, ?)").run(nonce, originMac(key, nonce, 2));
        }
      }
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

export function withBusyRetry<T>(fn: () => T): T {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return fn();
    } catch (error) {
      const code = String((error as { code?: unknown })?.code ?? "");
      if (!code.startsWith("SQLITE_BUSY") || attempt >= BUSY_RETRIES) throw error;
    }
  }
}

export type Tx<F> = F & { immediate: F };

/** What the trigram table holds of an item: recomputed whenever its text changes. */
export function identsOf(title: string, body: string): string {
  return identifiers(`${title}\n${body}`);
}
