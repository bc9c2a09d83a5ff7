// The usage cache: `.tapedeck/usage-cache.json`, every session's folded usage (fold.ts) with the size, inode
// and mtime of the events.jsonl it was folded from. Derived from the archive only and rebuilt at will: a
// report stats each events.jsonl and folds only those that changed, from where the last fold stopped when the
// bytes there are still the ones folded (append-only: a grown session costs its new lines), from byte 0 when
// not (repair dropped a torn line, a backup was restored). A session whose file did not change is not opened.
//
// The manifests' own token sums are not enough: they are per session, not per model nor per day, and count a
// response twice when two sources reported it.
import { createHash } from "node:crypto";
import { closeSync, fstatSync, lstatSync, readSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { openForScan } from "../core/archive/line-scan.ts";
import { SESSION_FILES, tapedeckDir } from "../core/archive/paths.ts";
import type { Manifest } from "../core/archive/schemas.ts";
import { ensureOwnDirUnder, readJsonOrUndefined, writeFileAtomicSync } from "../core/base/fsutil.ts";
import { sessionDirNames, sessionRoots } from "../core/read/session-list.ts";
import {
  CELL,
  CELL_WIDTH,
  emptyUsage,
  foldFrom,
  type SessionMeta,
  type SessionUsage,
  SLOT_MS,
} from "./fold.ts";

export const CACHE_FILE = "usage-cache.json";
/** Bump when what a cell holds or how a fold counts changes: an older cache is then rebuilt. */
const CACHE_VERSION = 4;
/** The fold's resume check hashes the bytes just before where it stopped (the end of the last line folded). */
const BOUNDARY_BYTES = 256;
/** Of its sha256: 64 bits tell a rewritten prefix from the one folded. */
const BOUNDARY_HEX = 16;
/** A manifest is a few KB; the bound only keeps a planted huge file from being read. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
/** 10,000 sessions make a cache of a few MB; past this a planted file is not read. */
const MAX_CACHE_BYTES = 512 * 1024 * 1024;

interface CachedSession extends SessionUsage {
  /** events.jsonl as last folded: `dev:ino`, size, mtime in ms */
  file: [string, number, number];
  /** where the next fold starts */
  offset: number;
  boundary: string;
}

/**
 * A session on disk: an array, not an object (the keys were half the file), in an array of them, not an object
 * keyed by path (10,000 keys parse 1.4x slower): its key (the directory relative to the project), file id,
 * size, mtime, offset, boundary, provider, session id, provider session id, title, start, run type, models,
 * sources, cells, seen.
 */
type CachedRow = [
  string,
  string,
  number,
  number,
  number,
  string,
  string,
  string,
  string | null,
  string | null,
  string | null,
  string,
  string[],
  string[],
  number[],
  string,
];

interface CacheFile {
  version: number;
  slot_ms: number;
  sessions: CachedRow[];
}

export interface ProjectSession {
  project: string;
  /** the session's directory */
  dir: string;
  usage: SessionUsage;
}

export interface CollectStats {
  sessions: number;
  /** sessions whose events.jsonl had not changed since the cache was written */
  unchanged: number;
  /** sessions folded (new, grown or changed) */
  folded: number;
  /** bytes of events.jsonl read */
  bytes_read: number;
  /** whether the cache was written (false: nothing changed, or the directory is not writable) */
  written: boolean;
}

export interface CollectOptions {
  /** Called every few hundred sessions folded, for a progress line on long work. */
  onProgress?: (done: number, total: number) => void;
}

export function cachePath(projectRoot: string): string {
  return join(tapedeckDir(projectRoot), CACHE_FILE);
}

/** Every session of a project with its usage, from the cache where events.jsonl did not change. */
export function collectProject(
  projectRoot: string,
  opts: CollectOptions = {},
): { sessions: ProjectSession[]; stats: CollectStats } {
  const old = loadCache(projectRoot);
  const next: CacheFile = { version: CACHE_VERSION, slot_ms: SLOT_MS, sessions: [] };
  const stats: CollectStats = { sessions: 0, unchanged: 0, folded: 0, bytes_read: 0, written: false };
  const out: ProjectSession[] = [];
  const targets = sessionFiles(projectRoot);
  let changed = false;
  for (const t of targets) {
    const st = lstatSync(t.events, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    const row = old.get(t.key);
    const cached = row === undefined ? undefined : decode(row);
    let entry: CachedSession | undefined;
    if (
      cached &&
      cached.file[0] === `${st.dev}:${st.ino}` &&
      cached.file[1] === st.size &&
      cached.file[2] === st.mtimeMs
    ) {
      entry = cached;
      // Well formed (decode said so): written back as it was read.
      next.sessions.push(row as CachedRow);
      stats.unchanged += 1;
    } else {
      entry = refold(t, cached, stats);
      changed = true;
      if (stats.folded % 500 === 0) opts.onProgress?.(stats.folded, targets.length);
      if (entry) next.sessions.push(encode(t.key, entry));
    }
    if (entry) out.push({ project: projectRoot, dir: t.dir, usage: entry });
  }
  stats.sessions = out.length;
  // Without a fold every entry came from the old cache: the same count means the same sessions.
  changed ||= old.size !== out.length;
  if (changed) stats.written = saveCache(projectRoot, next);
  return { sessions: out, stats };
}

interface SessionFile {
  /** the directory's path relative to the project: the cache's key */
  key: string;
  dir: string;
  events: string;
}

/** The events.jsonl of every session directory under the project's session roots (no manifest read). */
function sessionFiles(projectRoot: string): SessionFile[] {
  const out: SessionFile[] = [];
  for (const root of sessionRoots(projectRoot)) {
    // Paths by concatenation: path.join per session was a tenth of a warm report over 10,000 of them.
    const rel = relative(projectRoot, root) || ".";
    for (const name of sessionDirNames(root)) {
      const dir = `${root}${sep}${name}`;
      out.push({ key: `${rel}${sep}${name}`, dir, events: `${dir}${sep}${SESSION_FILES.events}` });
    }
  }
  return out;
}

/** Folds a new or changed session: from the cached entry's offset when its bytes are still there, else from 0. */
function refold(
  t: SessionFile,
  cached: CachedSession | undefined,
  stats: CollectStats,
): CachedSession | undefined {
  const meta = readMeta(t.dir);
  if (!meta) return undefined;
  let fd: number;
  try {
    fd = openForScan(t.events);
  } catch {
    return undefined; // vanished, or not a regular file
  }
  try {
    const st = fstatSync(fd);
    const file: CachedSession["file"] = [`${st.dev}:${st.ino}`, st.size, st.mtimeMs];
    const resume =
      cached !== undefined &&
      cached.file[0] === file[0] &&
      cached.offset <= st.size &&
      cached.slot_ms === SLOT_MS &&
      boundaryHash(fd, cached.offset) === cached.boundary;
    const usage: SessionUsage = resume
      ? {
          ...cached,
          ...meta,
          models: [...cached.models],
          sources: [...cached.sources],
          cells: [...cached.cells],
        }
      : emptyUsage(meta);
    const from = resume ? cached.offset : 0;
    const offset = foldFrom(fd, from, usage);
    stats.folded += 1;
    stats.bytes_read += Math.max(0, st.size - from);
    const { models, sources, cells, seen, slot_ms } = usage;
    return {
      ...meta,
      models,
      sources,
      cells,
      seen,
      slot_ms,
      file,
      offset,
      boundary: boundaryHash(fd, offset),
    };
  } finally {
    closeSync(fd);
  }
}

/** What the report shows of a session beside its usage, from its manifest; undefined when it is not a session. */
function readMeta(dir: string): SessionMeta | undefined {
  const m = readJsonOrUndefined<Manifest & { title?: unknown }>(
    join(dir, SESSION_FILES.manifest),
    MAX_MANIFEST_BYTES,
  );
  if (m?.schema_version !== 1 || typeof m.provider !== "string" || typeof m.session_id !== "string")
    return undefined;
  return {
    provider: m.provider,
    session_id: m.session_id,
    provider_session_id: typeof m.provider_session_id === "string" ? m.provider_session_id : null,
    title: typeof m.title === "string" ? m.title : null,
    started_at: typeof m.started_at === "string" ? m.started_at : null,
    run_type: typeof m.run_type === "string" ? m.run_type : "recorded",
  };
}

/** Folds a whole session again with slots of `slotMs` (an exact fold: 1), not cached. */
export function foldExactly(s: ProjectSession, slotMs: number): SessionUsage {
  const { provider, session_id, provider_session_id, title, started_at, run_type } = s.usage;
  const usage = emptyUsage(
    { provider, session_id, provider_session_id, title, started_at, run_type },
    slotMs,
  );
  let fd: number;
  try {
    fd = openForScan(join(s.dir, SESSION_FILES.events));
  } catch {
    return s.usage; // gone since it was listed: the cached figures stand
  }
  try {
    foldFrom(fd, 0, usage);
  } finally {
    closeSync(fd);
  }
  return usage;
}

/** sha256 of the bytes just before `offset`; "" at offset 0. */
function boundaryHash(fd: number, offset: number): string {
  if (offset === 0) return "";
  const start = Math.max(0, offset - BOUNDARY_BYTES);
  const buf = Buffer.alloc(offset - start);
  const n = readSync(fd, buf, 0, buf.length, start);
  return createHash("sha256").update(buf.subarray(0, n)).digest("hex").slice(0, BOUNDARY_HEX);
}

/** The cached rows by key; empty for a cache that is missing, damaged or of another version. */
function loadCache(projectRoot: string): Map<string, unknown[]> {
  const rows = new Map<string, unknown[]>();
  const c = readJsonOrUndefined<CacheFile>(cachePath(projectRoot), MAX_CACHE_BYTES);
  if (!c || c.version !== CACHE_VERSION || c.slot_ms !== SLOT_MS || !Array.isArray(c.sessions)) return rows;
  for (const r of c.sessions as unknown[]) {
    if (Array.isArray(r) && typeof r[0] === "string") rows.set(r[0], r);
  }
  return rows;
}

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isSafeInteger(n) && n >= 0;
const isText = (v: unknown): v is string => typeof v === "string";
const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === "string";
const isTexts = (v: unknown): v is string[] => Array.isArray(v) && v.every(isText);

/**
 * A cached row as the fold wrote it, or undefined: the file is derived, but anyone who can write .tapedeck can
 * write it, and a report must not crash on (or print) what a fold would never have made.
 */
function decode(r: unknown[]): CachedSession | undefined {
  if (r.length !== 16) return undefined;
  const [, id, size, mtime, offset, boundary, provider, sessionId, providerId, title, started, runType] = r;
  const [models, sources, cells, seen] = [r[12], r[13], r[14], r[15]];
  if (!isText(id) || !isCount(size) || typeof mtime !== "number" || !isCount(offset) || !isText(boundary))
    return undefined;
  if (!isText(provider) || !isText(sessionId) || !isText(runType)) return undefined;
  if (!isTextOrNull(providerId) || !isTextOrNull(title) || !isTextOrNull(started)) return undefined;
  if (!isTexts(models) || !isTexts(sources) || !isText(seen) || !Array.isArray(cells)) return undefined;
  if (cells.length % CELL_WIDTH !== 0) return undefined;
  for (let i = 0; i < cells.length; i += 1) {
    const n = cells[i];
    if (!isCount(n) || (i % CELL_WIDTH === CELL.model && n >= models.length)) return undefined;
    if (i % CELL_WIDTH === CELL.anonymous && n > 1) return undefined;
  }
  return {
    provider,
    session_id: sessionId,
    provider_session_id: providerId,
    title,
    started_at: started,
    run_type: runType,
    models,
    sources,
    cells: cells as number[],
    seen,
    slot_ms: SLOT_MS,
    file: [id, size, mtime],
    offset,
    boundary,
  };
}

function encode(key: string, e: CachedSession): CachedRow {
  return [
    key,
    e.file[0],
    e.file[1],
    e.file[2],
    e.offset,
    e.boundary,
    e.provider,
    e.session_id,
    e.provider_session_id,
    e.title,
    e.started_at,
    e.run_type,
    e.models,
    e.sources,
    e.cells,
    e.seen,
  ];
}

/** Writes the cache through a temp file and a rename; a project whose .tapedeck is not ours to write is skipped. */
function saveCache(projectRoot: string, cache: CacheFile): boolean {
  try {
    if (!ensureOwnDirUnder(projectRoot, tapedeckDir(projectRoot), false)) return false;
    writeFileAtomicSync(cachePath(projectRoot), JSON.stringify(cache));
    return true;
  } catch {
    // Derived data: a report without a cache is slower next time, never wrong.
    return false;
  }
}
