// The events index: `.tapedeck/index.sqlite`, derived from events.jsonl only
// and rebuilt whenever it is missing, damaged or of an older layout. Each
// session is indexed from the byte offset the last update reached; a grown
// session costs only its new lines. The last indexed line's bytes are kept as
// a hash, so a file truncated or rewritten under the same name (repair drops
// a torn line; a restored backup) is noticed and that session reindexed.
//
// Two FTS5 tables share one content table: words (unicode61, bm25 ranking)
// over the event's text, and trigrams over the identifiers, paths and
// scripts in it (`src/core/archive/session-store.ts`, `snake_case`, `--dry-run`), which the
// word tokenizer splits apart and cannot match by a fragment.
import { createHash } from "node:crypto";
import { closeSync, fstatSync, readSync } from "node:fs";
import { join, relative } from "node:path";
import { openForScan } from "../../core/archive/line-scan.ts";
import { SESSION_FILES } from "../../core/archive/paths.ts";
import type { Manifest } from "../../core/archive/schemas.ts";
import { readLines } from "../../core/base/bounded-lines.ts";
import { lstatOrUndefined, readJsonOrUndefined } from "../../core/base/fsutil.ts";
import { sessionDirNames, sessionRoots } from "../../core/read/session-list.ts";
import { indexPath, isIndex, openIndex } from "./index-db.ts";
import { type Pending, toPending } from "./index-lines.ts";
import { type Database, openDatabase, toMemoryDbError } from "./sqlite.ts";

export { MAX_LINE_BYTES } from "../../core/base/bounded-lines.ts";
export { deleteIndex, INDEX_FILE, INDEX_SCHEMA_VERSION, indexPath, openIndex } from "./index-db.ts";

/** The boundary hash covers this much before the indexed offset: the end of the last indexed line. */
const BOUNDARY_BYTES = 256;
/**
 * Events per transaction: 2,000 built an index with 7% less CPU than 500 (a bigger page cache gained nothing);
 * each write stays well under a second, and the hook server runs its updates in a child process anyway.
 */
const BATCH_EVENTS = 2000;
/** Or this many bytes of lines, whichever comes first: big tool outputs make few, heavy events. */
const BATCH_BYTES = 8 * 1024 * 1024;
const PLANS_PER_SLICE = 50;

export interface IndexProgress {
  bytesDone: number;
  bytesTotal: number;
  sessionsDone: number;
  sessionsTotal: number;
}

export interface UpdateOptions {
  /** Called between batches on long work (the CLI prints it on stderr). */
  onProgress?: (p: IndexProgress) => void;
  /** A one-line notice (a damaged index rebuilt, a session reindexed). */
  onNotice?: (text: string) => void;
}

export interface UpdateResult {
  sessions: number;
  /** Sessions whose file shrank or changed under the indexed offset, indexed again from byte 0. */
  reindexed: number;
  /** Sessions no longer on disk, dropped from the index. */
  removed: number;
  events: number;
  bytes: number;
  /** Lines that were not events (malformed, over MAX_LINE_BYTES): skipped, counted. */
  skipped: number;
  /** The index was damaged or of an older layout, and was rebuilt from nothing. */
  rebuilt: boolean;
}

export interface IndexStatus {
  path: string;
  exists: boolean;
  bytes: number;
  sessions: number;
  events: number;
  /** Bytes of events.jsonl not yet indexed (new lines, or a changed session's whole file). */
  behind_bytes: number;
  behind_sessions: number;
  schema_version: number | null;
}

interface SessionRow {
  id: number;
  path: string;
  size: number;
  offset: number;
  boundary: string;
  inode: string;
}

interface Target {
  path: string;
  rel: string;
  provider: string;
  session_id: string;
  provider_session_id: string | null;
  dir_name: string;
}

/** A manifest is a few KB; the bound only keeps a planted huge file from being read. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/**
 * Every session of the project, by the path of its events.jsonl relative to the project: the manifests only.
 * Not listSessions: it brings stale counters up to date by reading the events past the state file, which for a
 * session whose counters lag read the whole file on every update (326 ms of CPU for an update with nothing
 * to do over a 65 MB session).
 */
function targets(projectRoot: string): Target[] {
  const out: Target[] = [];
  for (const root of sessionRoots(projectRoot)) {
    for (const name of sessionDirNames(root)) {
      const dir = join(root, name);
      const m = readJsonOrUndefined<Manifest>(join(dir, SESSION_FILES.manifest), MAX_MANIFEST_BYTES);
      if (m?.schema_version !== 1 || typeof m.provider !== "string" || typeof m.session_id !== "string")
        continue;
      const path = join(dir, SESSION_FILES.events);
      out.push({
        path,
        rel: relative(projectRoot, path),
        provider: m.provider,
        session_id: m.session_id,
        provider_session_id: typeof m.provider_session_id === "string" ? m.provider_session_id : null,
        dir_name: name,
      });
    }
  }
  return out;
}

/**
 * Brings the index up to date with every session of the project: new lines
 * of grown sessions, changed sessions from byte 0, gone sessions dropped.
 * Synchronous; `updateIndexSteps` is the same work in short slices.
 */
export function updateIndex(projectRoot: string, opts: UpdateOptions = {}): UpdateResult {
  const steps = updateIndexSteps(projectRoot, opts);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * The update as a generator that yields after each committed batch, so a
 * server can run it between requests (better-sqlite3 is synchronous: one
 * batch is the longest the event loop is held). The offset of a session is
 * committed in the same transaction as its events: a crash leaves an index
 * that is behind, never one with a line twice or a line missing.
 */
export function* updateIndexSteps(
  projectRoot: string,
  opts: UpdateOptions = {},
): Generator<IndexProgress, UpdateResult, void> {
  const { db, rebuilt } = openIndex(projectRoot, opts);
  const result: UpdateResult = {
    sessions: 0,
    reindexed: 0,
    removed: 0,
    events: 0,
    bytes: 0,
    skipped: 0,
    rebuilt,
  };
  try {
    const list = targets(projectRoot);
    result.sessions = list.length;
    result.removed = dropGoneSessions(db, new Set(list.map((t) => t.rel)));
    const progress: IndexProgress = { bytesDone: 0, bytesTotal: 0, sessionsDone: 0, sessionsTotal: 0 };
    const plans: Plan[] = [];
    for (const [i, t] of list.entries()) {
      const plan = planSession(db, t);
      if (plan) plans.push(plan);
      // Each plan is an open, a stat and a 256-byte read: a slice every few dozen keeps a server responsive.
      if (i % PLANS_PER_SLICE === PLANS_PER_SLICE - 1) yield progress;
    }
    progress.bytesTotal = plans.reduce((n, p) => n + (p.size - p.from), 0);
    progress.sessionsTotal = plans.length;
    for (const plan of plans) {
      if (plan.reset) {
        result.reindexed += 1;
        opts.onNotice?.(`${plan.target.rel} changed under the index; indexing it again`);
      }
      for (const batch of indexSession(db, plan)) {
        result.events += batch.events;
        result.skipped += batch.skipped;
        result.bytes += batch.bytes;
        progress.bytesDone += batch.bytes;
        opts.onProgress?.(progress);
        yield progress;
      }
      progress.sessionsDone += 1;
    }
    return result;
  } catch (error) {
    throw toMemoryDbError(error, indexPath(projectRoot));
  } finally {
    db.close();
  }
}

function dropGoneSessions(db: Database, present: Set<string>): number {
  const rows = db.prepare("SELECT id, path FROM sessions").all() as Array<{ id: number; path: string }>;
  const gone = rows.filter((r) => !present.has(r.path));
  if (gone.length === 0) return 0;
  db.transaction(() => {
    for (const r of gone) clearSession(db, r.id, true);
  }).immediate();
  return gone.length;
}

/**
 * Removes a session's events from both FTS tables and the content table. External content: each row is deleted
 * by its values, and only from a table it was inserted into (a 'delete' of a row never added corrupts it).
 */
function clearSession(db: Database, session: number, forget: boolean): void {
  db.prepare(
    "INSERT INTO events_fts (events_fts, rowid, body) SELECT 'delete', id, body FROM events WHERE session = ?",
  ).run(session);
  db.prepare(
    "INSERT INTO events_tri (events_tri, rowid, idents) SELECT 'delete', id, idents FROM events WHERE session = ? AND idents != ''",
  ).run(session);
  db.prepare("DELETE FROM events WHERE session = ?").run(session);
  if (forget) db.prepare("DELETE FROM sessions WHERE id = ?").run(session);
}

interface Plan {
  target: Target;
  session: number;
  from: number;
  size: number;
  inode: string;
  reset: boolean;
}

/** Where a session's indexing starts: its indexed offset when the bytes there are still the ones indexed, else 0. */
function planSession(db: Database, target: Target): Plan | undefined {
  let fd: number;
  try {
    fd = openForScan(target.path);
  } catch {
    return undefined; // vanished or not a regular file: listSessions will drop it next time
  }
  try {
    const st = fstatSync(fd);
    const size = st.size;
    const inode = `${st.dev}:${st.ino}`;
    let row = db
      .prepare("SELECT id, path, size, offset, boundary, inode FROM sessions WHERE path = ?")
      .get(target.rel) as SessionRow | undefined;
    if (!row) {
      db.prepare(
        // OR IGNORE: another process may add the same session between the SELECT and here.
        "INSERT OR IGNORE INTO sessions (path, provider, session_id, provider_session_id, dir_name, inode) VALUES (?, ?, ?, ?, ?, ?)",
      ).run(
        target.rel,
        target.provider,
        target.session_id,
        target.provider_session_id,
        target.dir_name,
        inode,
      );
      row = db
        .prepare("SELECT id, path, size, offset, boundary, inode FROM sessions WHERE path = ?")
        .get(target.rel) as SessionRow;
    }
    const intact = row.offset <= size && row.inode === inode && boundaryHash(fd, row.offset) === row.boundary;
    if (intact && row.offset === size) return undefined;
    return {
      target,
      session: row.id,
      from: intact ? row.offset : 0,
      size,
      inode,
      reset: !intact && row.offset > 0,
    };
  } finally {
    closeSync(fd);
  }
}

/** sha256 of the bytes just before `offset` (the end of the last indexed line); "" at offset 0. */
function boundaryHash(fd: number, offset: number): string {
  if (offset === 0) return "";
  const start = Math.max(0, offset - BOUNDARY_BYTES);
  const buf = Buffer.alloc(offset - start);
  const n = readSync(fd, buf, 0, buf.length, start);
  return createHash("sha256").update(buf.subarray(0, n)).digest("hex");
}

interface BatchResult {
  events: number;
  skipped: number;
  bytes: number;
}

/** Indexes one session from `plan.from`, one transaction per batch; yields after each. */
function* indexSession(db: Database, plan: Plan): Generator<BatchResult, void, void> {
  const fd = openForScan(plan.target.path);
  try {
    const insertEvent = db.prepare(
      "INSERT OR IGNORE INTO events (session, line_offset, seq, kind, provider, ts, event_id, body, idents) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    const insertWords = db.prepare("INSERT INTO events_fts (rowid, body) VALUES (?, ?)");
    const insertTri = db.prepare("INSERT INTO events_tri (rowid, idents) VALUES (?, ?)");
    const readRow = db.prepare("SELECT offset, inode FROM sessions WHERE id = ?");
    const saveRow = db.prepare(
      "UPDATE sessions SET size = ?, offset = ?, boundary = ?, inode = ?, events = events + ?, skipped = skipped + ? WHERE id = ?",
    );
    let expected = plan.from;
    const commit = db.transaction((batch: Pending[], end: number, skipped: number, reset: boolean) => {
      // Another process (the hook server, a second search) may have indexed this range meanwhile.
      const row = readRow.get(plan.session) as { offset: number; inode: string } | undefined;
      if (!row || (!reset && row.offset !== expected)) return false;
      if (reset) clearSession(db, plan.session, false);
      let added = 0;
      for (const e of batch) {
        const r = insertEvent.run(
          plan.session,
          e.line_offset,
          e.seq,
          e.kind,
          e.provider,
          e.ts,
          e.event_id,
          e.body,
          e.idents,
        );
        if (r.changes === 0) continue;
        insertWords.run(r.lastInsertRowid, e.body);
        if (e.idents !== "") insertTri.run(r.lastInsertRowid, e.idents);
        added += 1;
      }
      saveRow.run(plan.size, end, boundaryHash(fd, end), plan.inode, added, skipped, plan.session);
      return true;
    });
    let reset = plan.reset || plan.from === 0;
    let batch: Pending[] = [];
    let skipped = 0;
    let batchStart = plan.from;
    let lastEnd = plan.from;
    for (const line of readLines(fd, plan.from, plan.size)) {
      lastEnd = line.end;
      if (line.bytes === undefined) skipped += 1;
      else {
        const pending = toPending(line.bytes, line.offset, plan.target.provider);
        if (pending) batch.push(pending);
        else skipped += 1;
      }
      if (batch.length >= BATCH_EVENTS || line.end - batchStart >= BATCH_BYTES) {
        if (!commit.immediate(batch, line.end, skipped, reset)) return;
        yield { events: batch.length, skipped, bytes: line.end - batchStart };
        reset = false;
        expected = line.end;
        batchStart = line.end;
        batch = [];
        skipped = 0;
      }
    }
    if (batchStart !== expected) return;
    // The last complete line ends the batch; a torn final line waits for its newline.
    const end = lastEnd;
    if (end > batchStart || reset) {
      if (!commit.immediate(batch, end, skipped, reset)) return;
      yield { events: batch.length, skipped, bytes: end - batchStart };
    }
  } finally {
    closeSync(fd);
  }
}

/** What the index holds and how far behind the recordings it is; reads only (creates nothing). */
export function indexStatus(projectRoot: string): IndexStatus {
  const path = indexPath(projectRoot);
  const st = lstatOrUndefined(path);
  const status: IndexStatus = {
    path,
    exists: st?.isFile() === true,
    bytes: st?.isFile() ? Number(st.size) : 0,
    sessions: 0,
    events: 0,
    behind_bytes: 0,
    behind_sessions: 0,
    schema_version: null,
  };
  const list = targets(projectRoot);
  let rows = new Map<string, SessionRow>();
  if (status.exists) {
    const db = openDatabase(path, { readonly: true, base: projectRoot });
    try {
      // A file of another layout (another version, or planted with views in place of the tables) is not read.
      if (isIndex(db)) {
        const version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as
          | { value: string }
          | undefined;
        status.schema_version = version ? Number(version.value) : null;
        const all = db
          .prepare("SELECT id, path, size, offset, boundary, inode, events FROM sessions")
          .all() as Array<SessionRow & { events: number }>;
        rows = new Map(all.map((r) => [r.path, r]));
        status.sessions = all.length;
        status.events = all.reduce((n, r) => n + r.events, 0);
      }
    } catch (error) {
      throw toMemoryDbError(error, path);
    } finally {
      db.close();
    }
  }
  for (const t of list) {
    const size = Number(lstatOrUndefined(t.path)?.size ?? 0);
    const done = rows.get(t.rel)?.offset ?? 0;
    const behind = done <= size ? size - done : size;
    if (behind > 0) {
      status.behind_bytes += behind;
      status.behind_sessions += 1;
    }
  }
  return status;
}
