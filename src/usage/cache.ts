// The usage cache: `.tapedeck/usage-cache.bin`, every session's folded usage (fold.ts) and the same cells in the
// one meaning (normalize.ts), with the size, inode and mtime of the events.jsonl it was folded from. Derived from
// the archive only and rebuilt at will: a report stats each events.jsonl and folds only those that changed,
// from where the last fold stopped when the bytes there are still the ones folded (append-only: a grown session
// costs its new lines), from byte 0 when not (repair dropped a torn line, a backup was restored). A session
// whose file did not change is not opened.
//
// The manifests' own token sums are not enough: they are per session, not per model, version nor slot, and
// count a response twice when two sources reported it.
//
// The file is binary, for a warm report over 10,000 sessions: a header, two JSON parts and the cells as
// float64s. The first JSON part is what every report reads (each session's file, provider, start, names and
// where its cells are), the second what only a fold or a session report reads (the resume point, the message
// ids seen, the ids and the title), parsed when asked. As one JSON file with the cells inline the cache took
// 66 ms to parse and a report built an object per cell; the cells are now one typed array, checked in one pass.
import { createHash } from "node:crypto";
import { closeSync, fstatSync, lstatSync, readSync } from "node:fs";
import { endianness } from "node:os";
import { join, relative, sep } from "node:path";
import { openForScan } from "../core/archive/line-scan.ts";
import { SESSION_FILES, tapedeckDir } from "../core/archive/paths.ts";
import type { Manifest } from "../core/archive/schemas.ts";
import {
  ensureOwnDirUnder,
  readJsonOrUndefined,
  readRegularFileSync,
  unlinkQuietly,
  writeFileAtomicSync,
} from "../core/base/fsutil.ts";
import { sessionDirNames, sessionRoots } from "../core/read/session-list.ts";
import { factsFor, type UsageFacts } from "../core/read/usage-facts.ts";
import {
  CELL,
  CELL_WIDTH,
  emptyUsage,
  type FoldRules,
  foldFrom,
  NO_RULES,
  type SessionMeta,
  type SessionUsage,
  SLOT_MS,
} from "./fold.ts";
import { isCount, isText, isTextOrNull } from "./json-shape.ts";
import { NCELL_WIDTH, normalizeCells } from "./normalize.ts";

export const CACHE_FILE = "usage-cache.bin";
/** What the cache was before it was binary: removed when the new one is written. */
const OLD_CACHE_FILE = "usage-cache.json";
/** Bump when what a cell holds or how a fold counts changes: an older cache is then rebuilt. */
const CACHE_VERSION = 5;
const MAGIC = Buffer.from(`tdusage${endianness() === "LE" ? "l" : "b"}`, "latin1");
const HEADER_BYTES = MAGIC.length + 8;
/** The fold's resume check hashes the bytes just before where it stopped (the end of the last line folded). */
const BOUNDARY_BYTES = 256;
/** Of its sha256: 64 bits tell a rewritten prefix from the one folded. */
const BOUNDARY_HEX = 16;
/** A manifest is a few KB; the bound only keeps a planted huge file from being read. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
/** 10,000 sessions make a cache of a few MB; past this a planted file is not read. */
const MAX_CACHE_BYTES = 512 * 1024 * 1024;

/** What a report reads of a session: who, when, the names its cells index, and its cells in the one meaning. */
export interface SessionView {
  provider: string;
  started_at: string | null;
  models: readonly string[];
  versions: readonly string[];
  sources: readonly string[];
  /** slot length in ms: SLOT_MS, or 1 for an exact fold */
  slot_ms: number;
  /** NCELL_WIDTH numbers a cell (normalize.ts) */
  cells: ArrayLike<number>;
  /** its ids, title and run type (the cache's second part: read when asked) */
  detail(): SessionDetail;
}

export type SessionDetail = Pick<SessionMeta, "session_id" | "provider_session_id" | "title" | "run_type">;

const NO_DETAIL: SessionDetail = {
  session_id: "",
  provider_session_id: null,
  title: null,
  run_type: "recorded",
};

export interface ProjectSession {
  project: string;
  /** the session's directory */
  dir: string;
  /** the directory relative to the project: stable while the session is */
  key: string;
  usage: SessionView;
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
  /** each provider's usage facts by name; a provider missing here is read as Anthropic's */
  facts?: Readonly<Record<string, UsageFacts>>;
}

export function cachePath(projectRoot: string): string {
  return join(tapedeckDir(projectRoot), CACHE_FILE);
}

/** A session as the cache holds it: its file as folded, where the next fold starts, its cells both ways. */
interface Entry {
  root: string;
  name: string;
  dev: number;
  ino: number;
  size: number;
  mtime: number;
  provider: string;
  started_at: string | null;
  models: string[];
  versions: string[];
  sources: string[];
  raw: ArrayLike<number>;
  norm: ArrayLike<number>;
  cold: () => Cold | undefined;
}

/** The second part of an entry: read only to fold on from it, or for a session's ids and title. */
interface Cold {
  offset: number;
  boundary: string;
  seen: string;
  session_id: string;
  provider_session_id: string | null;
  title: string | null;
  run_type: string;
}

interface Loaded {
  entries: Map<string, Entry>;
  /** the providers' rules the normalized cells were made with */
  rules: string;
}

/** Every session of a project with its usage, from the cache where events.jsonl did not change. */
export function collectProject(
  projectRoot: string,
  opts: CollectOptions = {},
): { sessions: ProjectSession[]; stats: CollectStats } {
  const facts = opts.facts ?? {};
  const rules = rulesText(facts);
  const old = loadCache(projectRoot);
  const renormalize = old.rules !== rules;
  const stats: CollectStats = { sessions: 0, unchanged: 0, folded: 0, bytes_read: 0, written: false };
  const out: ProjectSession[] = [];
  const kept: Entry[] = [];
  const targets = sessionFiles(projectRoot);
  let changed = renormalize;
  for (const t of targets) {
    const st = lstatSync(t.events, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    const cached = old.entries.get(`${t.root}\0${t.name}`);
    let entry: Entry | undefined;
    if (
      cached &&
      cached.ino === st.ino &&
      cached.dev === st.dev &&
      cached.size === st.size &&
      cached.mtime === st.mtimeMs
    ) {
      entry = renormalize ? withCellsOf(cached, factsFor(facts, cached.provider)) : cached;
      stats.unchanged += 1;
    } else {
      entry = refold(t, cached, facts, stats);
      changed = true;
      if (stats.folded % 500 === 0) opts.onProgress?.(stats.folded, targets.length);
    }
    if (!entry) continue;
    kept.push(entry);
    out.push({
      project: projectRoot,
      dir: t.dir,
      key: `${t.root}${sep}${t.name}`,
      usage: viewOf(entry, t.dir),
    });
  }
  stats.sessions = out.length;
  // Without a fold every entry came from the old cache: the same count means the same sessions.
  changed ||= old.entries.size !== out.length;
  if (changed) stats.written = saveCache(projectRoot, kept, rules);
  return { sessions: out, stats };
}

function foldRules(f: UsageFacts): FoldRules {
  return f.completes ? { completing: new Set(Object.keys(f.completes)) } : NO_RULES;
}

/** What the cells depend on of the providers' facts: a change of them renormalizes (no file is read again). */
function rulesText(facts: Readonly<Record<string, UsageFacts>>): string {
  return JSON.stringify(
    Object.keys(facts)
      .sort()
      .map((p) => {
        const f = facts[p]!;
        return [
          p,
          f.input_includes_cache_read,
          f.output_excludes_reasoning,
          f.response_needs_message_id,
          Object.keys(f.completes ?? {}).sort(),
        ];
      }),
  );
}

function viewOf(e: Entry, dir: string): SessionView {
  let detail: SessionDetail | undefined;
  return {
    provider: e.provider,
    started_at: e.started_at,
    models: e.models,
    versions: e.versions,
    sources: e.sources,
    slot_ms: SLOT_MS,
    cells: e.norm,
    detail() {
      // A damaged second part leaves the cells good: the ids come from the manifest then.
      detail ??= e.cold() ?? readMeta(dir) ?? NO_DETAIL;
      const { session_id, provider_session_id, title, run_type } = detail;
      detail = { session_id, provider_session_id, title, run_type };
      return detail;
    },
  };
}

function withCellsOf(e: Entry, facts: UsageFacts): Entry {
  const usage = usageOf(e, e.cold());
  return { ...e, norm: normalizeCells(usage, facts) };
}

/** An entry as a SessionUsage (its raw cells copied), for a fold to go on from or a normalization. */
function usageOf(e: Entry, cold: Cold | undefined): SessionUsage {
  return {
    provider: e.provider,
    session_id: cold?.session_id ?? "",
    provider_session_id: cold?.provider_session_id ?? null,
    title: cold?.title ?? null,
    started_at: e.started_at,
    run_type: cold?.run_type ?? "recorded",
    models: [...e.models],
    versions: [...e.versions],
    sources: [...e.sources],
    cells: Array.from(e.raw),
    seen: cold?.seen ?? "",
    slot_ms: SLOT_MS,
  };
}

interface SessionFile {
  /** the session root relative to the project */
  root: string;
  name: string;
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
      out.push({ root: rel, name, dir, events: `${dir}${sep}${SESSION_FILES.events}` });
    }
  }
  return out;
}

/** Folds a new or changed session: from the cached entry's offset when its bytes are still there, else from 0. */
function refold(
  t: SessionFile,
  cached: Entry | undefined,
  facts: Readonly<Record<string, UsageFacts>>,
  stats: CollectStats,
): Entry | undefined {
  const meta = readMeta(t.dir);
  if (!meta) return undefined;
  const f = factsFor(facts, meta.provider);
  let fd: number;
  try {
    fd = openForScan(t.events);
  } catch {
    return undefined; // vanished, or not a regular file
  }
  try {
    const st = fstatSync(fd);
    const cold = cached?.cold();
    const resume =
      cached !== undefined &&
      cold !== undefined &&
      cached.dev === st.dev &&
      cached.ino === st.ino &&
      cached.provider === meta.provider &&
      cold.offset <= st.size &&
      boundaryHash(fd, cold.offset) === cold.boundary;
    const usage: SessionUsage = resume ? { ...usageOf(cached, cold), ...meta } : emptyUsage(meta);
    const from = resume ? cold.offset : 0;
    const offset = foldFrom(fd, from, usage, foldRules(f));
    stats.folded += 1;
    stats.bytes_read += Math.max(0, st.size - from);
    const next: Cold = {
      offset,
      boundary: boundaryHash(fd, offset),
      seen: usage.seen,
      session_id: meta.session_id,
      provider_session_id: meta.provider_session_id,
      title: meta.title,
      run_type: meta.run_type,
    };
    return {
      root: t.root,
      name: t.name,
      dev: st.dev,
      ino: st.ino,
      size: st.size,
      mtime: st.mtimeMs,
      provider: meta.provider,
      started_at: meta.started_at,
      models: usage.models,
      versions: usage.versions,
      sources: usage.sources,
      raw: usage.cells,
      norm: normalizeCells(usage, f),
      cold: () => next,
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
export function foldExactly(s: ProjectSession, slotMs: number, facts: UsageFacts): SessionView {
  const d = s.usage.detail();
  const usage = emptyUsage(
    {
      provider: s.usage.provider,
      started_at: s.usage.started_at,
      session_id: d.session_id,
      provider_session_id: d.provider_session_id,
      title: d.title,
      run_type: d.run_type,
    },
    slotMs,
  );
  let fd: number;
  try {
    fd = openForScan(join(s.dir, SESSION_FILES.events));
  } catch {
    return s.usage; // gone since it was listed: the cached figures stand
  }
  try {
    foldFrom(fd, 0, usage, foldRules(facts));
  } finally {
    closeSync(fd);
  }
  return {
    provider: usage.provider,
    started_at: usage.started_at,
    models: usage.models,
    versions: usage.versions,
    sources: usage.sources,
    slot_ms: slotMs,
    cells: normalizeCells(usage, facts),
    detail: () => d,
  };
}

/** sha256 of the bytes just before `offset`; "" at offset 0. */
function boundaryHash(fd: number, offset: number): string {
  if (offset === 0) return "";
  const start = Math.max(0, offset - BOUNDARY_BYTES);
  const buf = Buffer.alloc(offset - start);
  const n = readSync(fd, buf, 0, buf.length, start);
  return createHash("sha256").update(buf.subarray(0, n)).digest("hex").slice(0, BOUNDARY_HEX);
}

// The file: MAGIC, the byte lengths of the two JSON parts (uint32 each), the parts, zeros up to a multiple of 8,
// then the float64s. The first part: {version, slot_ms, rules, names, sessions: [row...]}, a row
// [root, name, dev, ino, size, mtime, provider, started_at, models, versions, sources, raw_at, raw_len, norm_at,
// norm_len] with root, provider and each model, version and source an index into `names`. The second part: one
// [offset, boundary, seen, session_id, provider_session_id, title, run_type] per row, in the same order.

interface HotFile {
  version: number;
  slot_ms: number;
  rules: string;
  names: string[];
  sessions: unknown[][];
}

const NOTHING: Loaded = { entries: new Map(), rules: "" };

/** The cached entries by root and name; none for a cache that is missing, damaged, planted or of another version. */
function loadCache(projectRoot: string): Loaded {
  let buf: Buffer;
  try {
    buf = readRegularFileSync(cachePath(projectRoot), MAX_CACHE_BYTES);
  } catch {
    return NOTHING;
  }
  if (buf.length < HEADER_BYTES || !buf.subarray(0, MAGIC.length).equals(MAGIC)) return NOTHING;
  const hotLen = buf.readUInt32LE(MAGIC.length);
  const coldLen = buf.readUInt32LE(MAGIC.length + 4);
  const hotEnd = HEADER_BYTES + hotLen;
  const coldEnd = hotEnd + coldLen;
  const dataAt = Math.ceil(coldEnd / 8) * 8;
  if (dataAt > buf.length || (buf.length - dataAt) % 8 !== 0) return NOTHING;
  let hot: HotFile;
  try {
    hot = JSON.parse(buf.toString("utf8", HEADER_BYTES, hotEnd)) as HotFile;
  } catch {
    return NOTHING;
  }
  if (
    hot === null ||
    typeof hot !== "object" ||
    hot.version !== CACHE_VERSION ||
    hot.slot_ms !== SLOT_MS ||
    typeof hot.rules !== "string" ||
    !Array.isArray(hot.names) ||
    !hot.names.every((n) => typeof n === "string") ||
    !Array.isArray(hot.sessions)
  )
    return NOTHING;
  // A view when the bytes are aligned (a whole file read into its own buffer is), a copy when not.
  const data =
    (buf.byteOffset + dataAt) % 8 === 0
      ? new Float64Array(buf.buffer, buf.byteOffset + dataAt, (buf.length - dataAt) / 8)
      : new Float64Array(Uint8Array.prototype.slice.call(buf, dataAt).buffer);
  let colds: unknown[] | undefined;
  const coldOf = (i: number): Cold | undefined => {
    if (colds === undefined) {
      try {
        const parsed: unknown = JSON.parse(buf.toString("utf8", hotEnd, coldEnd));
        colds = Array.isArray(parsed) ? parsed : [];
      } catch {
        colds = [];
      }
    }
    return decodeCold(colds[i]);
  };
  const entries = new Map<string, Entry>();
  hot.sessions.forEach((row, i) => {
    const e = Array.isArray(row) ? decode(row, hot.names, data, () => coldOf(i)) : undefined;
    if (e) entries.set(`${e.root}\0${e.name}`, e);
  });
  return { entries, rules: hot.rules };
}

/** The name at index `n`, or undefined when `n` is not an index into `names`. */
function nameAt(names: readonly string[], n: unknown): string | undefined {
  return isCount(n) && n < names.length ? names[n] : undefined;
}

/** The names a list of indices stands for, or undefined when it is not one. */
function namesAt(names: readonly string[], v: unknown): string[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: string[] = new Array(v.length);
  for (let i = 0; i < v.length; i += 1) {
    const name = nameAt(names, v[i]);
    if (name === undefined) return undefined;
    out[i] = name;
  }
  return out;
}

/**
 * A cached row as the fold wrote it, or undefined: the file is derived, but anyone who can write .tapedeck can
 * write it, and a report must not crash on (or print) what a fold would never have made. Read by index, with
 * no closure per row: a report runs this once per session in a fresh process, before the JIT has optimized
 * it, where array destructuring goes through the iterator protocol; destructured, the 10,000 rows of a warm
 * report took 95 ms of CPU, read by index 45 ms.
 */
function decode(
  r: unknown[],
  names: readonly string[],
  data: Float64Array,
  cold: () => Cold | undefined,
): Entry | undefined {
  if (r.length !== 15) return undefined;
  const name = r[1];
  const dev = r[2];
  const ino = r[3];
  const size = r[4];
  const mtime = r[5];
  const started = r[7];
  const rootName = nameAt(names, r[0]);
  const providerName = nameAt(names, r[6]);
  const m = namesAt(names, r[8]);
  const v = namesAt(names, r[9]);
  const s = namesAt(names, r[10]);
  if (rootName === undefined || providerName === undefined || !m || !v || !s) return undefined;
  if (!isText(name) || !isCount(size) || typeof mtime !== "number" || !isTextOrNull(started))
    return undefined;
  if (typeof dev !== "number" || typeof ino !== "number") return undefined;
  const raw = cellsIn(data, r[11], r[12], CELL_WIDTH, (c, i) => rawCellOk(c, i, m.length, v.length));
  const norm = cellsIn(data, r[13], r[14], NCELL_WIDTH, (c, i) => normCellOk(c, i, m.length, v.length));
  if (!raw || !norm) return undefined;
  return {
    root: rootName,
    name,
    dev,
    ino,
    size,
    mtime,
    provider: providerName,
    started_at: started,
    models: m,
    versions: v,
    sources: s,
    raw,
    norm,
    cold,
  };
}

/** A range of the cells, every number a count and every cell well formed; undefined when not. */
function cellsIn(
  data: Float64Array,
  at: unknown,
  len: unknown,
  width: number,
  ok: (c: Float64Array, i: number) => boolean,
): Float64Array | undefined {
  if (!isCount(at) || !isCount(len) || len % width !== 0 || at + len > data.length) return undefined;
  const cells = data.subarray(at, at + len);
  for (let i = 0; i < cells.length; i += 1) {
    const n = cells[i]!;
    if (!(n >= 0) || !Number.isSafeInteger(n)) return undefined;
  }
  for (let i = 0; i < cells.length; i += width) if (!ok(cells, i)) return undefined;
  return cells;
}

function rawCellOk(c: Float64Array, i: number, models: number, versions: number): boolean {
  return c[i + CELL.model]! < models && c[i + CELL.version]! < versions && c[i + CELL.anonymous]! <= 1;
}

function normCellOk(c: Float64Array, i: number, models: number, versions: number): boolean {
  return c[i + 1]! < models && c[i + 2]! < versions;
}

function decodeCold(r: unknown): Cold | undefined {
  if (!Array.isArray(r) || r.length !== 7) return undefined;
  // By index, as decode reads a row.
  const offset: unknown = r[0];
  const boundary: unknown = r[1];
  const seen: unknown = r[2];
  const sessionId: unknown = r[3];
  const providerId: unknown = r[4];
  const title: unknown = r[5];
  const runType: unknown = r[6];
  if (!isCount(offset) || !isText(boundary) || !isText(seen) || !isText(sessionId) || !isText(runType))
    return undefined;
  if (!isTextOrNull(providerId) || !isTextOrNull(title)) return undefined;
  return {
    offset,
    boundary,
    seen,
    session_id: sessionId,
    provider_session_id: providerId,
    title,
    run_type: runType,
  };
}

function encode(entries: readonly Entry[], rules: string): Buffer {
  const names: string[] = [];
  const index = new Map<string, number>();
  const id = (n: string) => {
    let i = index.get(n);
    if (i === undefined) {
      i = names.length;
      names.push(n);
      index.set(n, i);
    }
    return i;
  };
  let total = 0;
  for (const e of entries) total += e.raw.length + e.norm.length;
  const data = new Float64Array(total);
  let at = 0;
  const place = (cells: ArrayLike<number>): [number, number] => {
    data.set(cells, at);
    const range: [number, number] = [at, cells.length];
    at += cells.length;
    return range;
  };
  const rows: unknown[][] = [];
  const colds: unknown[][] = [];
  for (const e of entries) {
    const raw = place(e.raw);
    const norm = place(e.norm);
    rows.push([
      id(e.root),
      e.name,
      e.dev,
      e.ino,
      e.size,
      e.mtime,
      id(e.provider),
      e.started_at,
      e.models.map(id),
      e.versions.map(id),
      e.sources.map(id),
      ...raw,
      ...norm,
    ]);
    const c = e.cold();
    colds.push(
      c ? [c.offset, c.boundary, c.seen, c.session_id, c.provider_session_id, c.title, c.run_type] : [],
    );
  }
  const hot = Buffer.from(
    JSON.stringify({ version: CACHE_VERSION, slot_ms: SLOT_MS, rules, names, sessions: rows }),
  );
  const cold = Buffer.from(JSON.stringify(colds));
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header);
  header.writeUInt32LE(hot.length, MAGIC.length);
  header.writeUInt32LE(cold.length, MAGIC.length + 4);
  const used = HEADER_BYTES + hot.length + cold.length;
  const pad = Buffer.alloc(Math.ceil(used / 8) * 8 - used);
  return Buffer.concat([header, hot, cold, pad, Buffer.from(data.buffer, data.byteOffset, data.byteLength)]);
}

/** Writes the cache through a temp file and a rename; a project whose .tapedeck is not ours to write is skipped. */
function saveCache(projectRoot: string, entries: readonly Entry[], rules: string): boolean {
  try {
    if (!ensureOwnDirUnder(projectRoot, tapedeckDir(projectRoot), false)) return false;
    writeFileAtomicSync(cachePath(projectRoot), encode(entries, rules));
    // The JSON cache of before: derived, and no reader of this version reads it.
    unlinkQuietly(join(tapedeckDir(projectRoot), OLD_CACHE_FILE));
    return true;
  } catch {
    // Derived data: a report without a cache is slower next time, never wrong.
    return false;
  }
}
