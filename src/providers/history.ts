// What a provider offers `tapedeck import`: where its agent keeps past sessions, and how the records of one of
// those files become the events its hooks would have recorded. The reader knows the agent's layout and record
// formats and nothing of storage: the orchestration (src/import/) opens each file safely, streams its complete
// lines through the mapper, redacts, bounds and appends through the core, and keeps the cursor.
import type { NormalizedEvent } from "../core/archive/event.ts";

/** One of the agent's files of a session. */
export interface HistoryFile {
  path: string;
  /** `main`: the session's own file; `subagent`: a subagent's own file, whose events carry its agent_id. */
  role: "main" | "subagent";
  /** A subagent's id, when the layout names it (Claude's `agent-<id>.jsonl`, Codex's child thread id). */
  agentId?: string;
  /** A small file beside it that the mapper may read (Claude's `agent-<id>.meta.json`). */
  meta?: string;
  /**
   * When its first record was written. A subagent's file is read where the session's own file reaches that
   * time, so its events sit inside the turn (and after the tool call) that started it, as hooks record them.
   */
  firstAt?: string;
  /**
   * `jsonl` (the default): one record a line, streamed. `json`: one JSON document holding the whole session
   * (Gemini CLI's chat files before 0.6x), read whole, within a bound, by the mapper's `document`.
   */
  format?: "jsonl" | "json";
}

/** A past session found under the agent's home: its files, and what a cheap look at them told. */
export interface HistorySession {
  provider: string;
  /** The agent's own session id (Claude's session id, Codex's root thread id, Gemini's sessionId). */
  sessionId: string;
  /** The working directory the session recorded (its first one): how it is matched to a project. */
  cwd: string | null;
  /** The main file first, when there is one (a Codex subagent's rollout may outlive its parent's). */
  files: HistoryFile[];
  /** The earliest and latest record times the look found (ISO 8601). */
  firstAt?: string;
  lastAt?: string;
  /**
   * The folder the agent keeps the session in, where its name stands for the project (Claude's cwd slug): how
   * a session that recorded no cwd is matched to a project (HistoryReader.folderFits).
   */
  folder?: string;
}

/** A file or directory discovery did not take, and why (symlink, FIFO, another user's, no session id...). */
export interface HistorySkip {
  source: string;
  reason: string;
}

export interface DiscoverOptions {
  env: Record<string, string | undefined>;
  /** Told about every file or directory passed over; nothing is followed or opened past the reason. */
  skip(skip: HistorySkip): void;
}

/**
 * What became of a file's lines: every line read is in exactly one count. `mapped`: read into events (or into
 * the state an event is made of); `skipped`: records the agent writes that hold nothing to import (request
 * blobs, UI progress), by record type; `unknown`: records of a type the mapper does not know, by type, each
 * kept as a generic event (`provider_event` with `type: "unknown_record"`), never dropped; `malformed`: lines
 * that are no JSON object. `lines` names where (1-based line numbers, the first few of each type).
 */
export interface LineTally {
  records: number;
  mapped: number;
  skipped: Record<string, number>;
  unknown: Record<string, number>;
  malformed: number;
  lines: Record<string, number[]>;
}

/**
 * Turns one file's records into normalized events, line by line, in file order. Never throws: a line that is
 * not one of the agent's records is counted in `malformed` and passed over; every line is counted somewhere
 * in `tally`.
 */
export interface HistoryMapper {
  /** One complete line (without its newline) starting at byte `offset` of the file. */
  line(bytes: Buffer, offset: number): NormalizedEvent[];
  /** A file of `format: "json"`: the whole document, parsed (undefined: it is not JSON). */
  document?(doc: unknown): NormalizedEvent[];
  /** The end of what the file holds now: the events held back for a record still to come (a message's last block). */
  end(): NormalizedEvent[];
  /**
   * What a later import of the grown file continues from (small, bounded, JSON): the open turn, calls waiting
   * for their result. The orchestration redacts it before it is written.
   */
  state(): Record<string, unknown>;
  readonly malformed: number;
  readonly tally: LineTally;
}

/**
 * What the mappers of one import run share: the messages counted so far, by their key, with the session that
 * counted them (a resume or fork copies earlier messages, ids and all, into a session's own file).
 */
export interface ImportRun {
  messages: Map<string, string>;
}

export function newImportRun(): ImportRun {
  return { messages: new Map() };
}

export interface HistoryReader {
  /** The sessions under the agent's home directories (from `env`: HOME, CLAUDE_CONFIG_DIR, CODEX_HOME...). */
  discover(options: DiscoverOptions): HistorySession[];
  /**
   * A mapper for `file` of `session`; `state` is what the previous import of the file left (absent: from its
   * start); `run` what every mapper of one import run shares.
   */
  mapper(
    session: HistorySession,
    file: HistoryFile,
    state: Record<string, unknown> | undefined,
    run?: ImportRun,
  ): HistoryMapper;
  /**
   * Whether `dir` is a project the session's folder (HistorySession.folder) names by the agent's own naming,
   * for a session that recorded no cwd. A lossy naming (Claude's slug) can fit several directories.
   * undefined: the folder names no project (a layout the agent did not make).
   */
  folderFits?(session: HistorySession, dir: string): boolean | undefined;
  /** The manifest's capabilities of an imported session: what the files give. */
  capabilities: readonly string[];
  /** What only the hooks see, which the agent's files do not keep (the manifest's `import.not_captured`). */
  notCaptured: readonly string[];
  /**
   * The hook names the mapper's events carry (`payload.hook_event_name`) and the `source` of its session
   * starts: with `capabilities`, what tells its events from the hooks' in an archive an older tapedeck wrote,
   * whose hooks did not mark the sessions they recorded after an import (onlyHooksWrite).
   */
  ownHooks: readonly string[];
  ownStartSources: readonly string[];
}

/**
 * Whether `event` (an envelope from an archive) is one the import of `reader` never writes, so the agent's hooks
 * wrote it: a kind the import lacks (a session's end), a hook the agent's files have no record of (Claude's
 * Stop, Gemini's AfterAgent: every turn the hooks record has one), or a session start of theirs
 * (`resume`, `startup`) where the import writes `import`.
 */
export function onlyHooksWrite(reader: HistoryReader, event: { kind?: unknown; payload?: unknown }): boolean {
  const kind = event.kind;
  if (typeof kind !== "string" || !reader.capabilities.includes(kind)) return true;
  const payload = event.payload;
  if (typeof payload !== "object" || payload === null) return false;
  const { hook_event_name: hook, source } = payload as Record<string, unknown>;
  if (typeof hook === "string" && !reader.ownHooks.includes(hook)) return true;
  return kind === "session_start" && !reader.ownStartSources.includes(String(source));
}

/** A record's time as the envelope wants it (ISO 8601 UTC, milliseconds), or undefined. */
/** What the agents write (`2026-11-29T18:40:22.726Z`): already the envelope's form, no parse needed. */
const ENVELOPE_TIME = /^20\d\d-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d\.\d{3}Z$/;

/** Earliest first: files or sessions by when their first record was written (none known sorts first). */
export function byFirstAt(a: { firstAt?: string }, b: { firstAt?: string }): number {
  return (a.firstAt ?? "").localeCompare(b.firstAt ?? "");
}

export function isoTime(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length < 10 || value.length > 64) return undefined;
  if (value.length === 24 && ENVELOPE_TIME.test(value)) return value;
  const ms = Date.parse(value);
  // Outside these years a stamp is noise, not a time an agent wrote.
  if (!Number.isFinite(ms) || ms < Date.UTC(2000, 0, 1) || ms > Date.UTC(2200, 0, 1)) return undefined;
  return new Date(ms).toISOString();
}

/**
 * A set that forgets its oldest entries past `max`: what a mapper remembers of a file it streams (message ids
 * counted, calls waiting) stays bounded however long the file is. A late repeat of a forgotten id reaches the
 * store, which drops it by its event id.
 */
export class BoundedMap<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  has(key: string): boolean {
    return this.map.has(key);
  }

  set(key: string, value: V): void {
    // Moved to the newest place only when already there: most keys are new (a record's uuid).
    if (this.map.has(key)) this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value as string);
  }

  delete(key: string): boolean {
    return this.map.delete(key);
  }

  entries(): [string, V][] {
    return [...this.map.entries()];
  }

  /** Restores what `entries()` gave, bounded again: state read back from disk can say anything. */
  static from<V>(max: number, raw: unknown, valid: (v: unknown) => v is V): BoundedMap<V> {
    const out = new BoundedMap<V>(max);
    if (!Array.isArray(raw)) return out;
    for (const pair of raw.slice(-max)) {
      if (Array.isArray(pair) && typeof pair[0] === "string" && pair[0].length <= 256 && valid(pair[1]))
        out.set(pair[0], pair[1]);
    }
    return out;
  }
}

/** A string of bounded length, else undefined: ids and names from a file go into event ids and paths. */
export function shortString(value: unknown, max = 256): string | undefined {
  return typeof value === "string" && value !== "" && value.length <= max ? value : undefined;
}
