// One session's token usage, folded from its events.jsonl into cells: the counts of its turn_usage events summed
// per model, agent version and slot of time. A slot is 15 minutes of UTC: every UTC offset in use since 1972 is
// a multiple of 15 minutes and changes at a local time that is one too, so no slot straddles a local midnight in
// any time zone Node knows, and a day, week or month in any of them is a sum of whole slots; so is a 5-hour
// block, which starts on an hour. A report that meets a slot straddling one of its boundaries anyway (a
// duration like `--since 12h` cuts through slots) folds that session again with slots of one millisecond:
// every event then has its own time (report.ts). Each cell also keeps how many responses it holds and when,
// within its slot, the first and the last came: what a block's start, end and burn rate need.
//
// The counts are kept as the provider reported them (what each means is the provider's, normalize.ts). A
// response reported twice under two event ids (the same message id from two sources) counts once, first report
// wins, as in the timeline; the store has already dropped a repeated event id, and every recorder derives the
// event id of a response's usage from its message id, so this is a guard for near repeats: the last SEEN_KEPT
// ids are remembered, as a 52-bit hash each (the cache keeps them for the next fold, 10,000 sessions at a time).
import { scanLines } from "../core/archive/line-scan.ts";

export const SLOT_MS = 15 * 60 * 1000;
/** Message ids remembered per session. */
export const SEEN_KEPT = 16;
/** Numbers per cell in SessionUsage.cells. */
export const CELL_WIDTH = 12;
/** Offsets within a cell. */
export const CELL = {
  slot: 0,
  model: 1,
  /** the agent CLI's version the records named (index into SessionUsage.versions) */
  version: 2,
  /** 1: usage that named no message id (a provider may say such a record is a running total) */
  anonymous: 3,
  input: 4,
  output: 5,
  cache_read: 6,
  cache_creation: 7,
  reasoning: 8,
  /** records that stand for a response of their own (not one completing another's, Gemini's chat file) */
  responses: 9,
  /** ms into the slot of the first and the last record */
  first: 10,
  last: 11,
} as const;

/** The byte pattern of a usage line, tested before anything is parsed: most lines are tool calls and outputs. */
const TURN_USAGE_MARK = Buffer.from('"kind":"turn_usage"');
/** More distinct models, versions or sources than any session has: a hostile file cannot grow them without end. */
const MAX_NAMES = 64;
const MAX_NAME_CHARS = 200;

export interface SessionUsage {
  provider: string;
  session_id: string;
  provider_session_id: string | null;
  title: string | null;
  started_at: string | null;
  run_type: string;
  /** Model ids the cells name by index; "" for usage that named no model. */
  models: string[];
  /** Agent CLI versions the cells name by index; "" for usage that named none. */
  versions: string[];
  sources: string[];
  /** Flat: CELL_WIDTH numbers per cell (the slot's index, start / slot_ms; the indices; the counts). */
  cells: number[];
  /**
   * Hashes of the last message ids counted (SEEN_KEPT at most), oldest first, packed into one string of
   * SEEN_WIDTH characters each: parsing 10,000 sessions' ids as arrays of strings was half the cache's read.
   */
  seen: string;
  /** Slot length in ms the cells were folded with: SLOT_MS, or 1 for an exact fold. */
  slot_ms: number;
}

export type SessionMeta = Pick<
  SessionUsage,
  "provider" | "session_id" | "provider_session_id" | "title" | "started_at" | "run_type"
>;

/** What a fold needs of the provider: the sources whose records complete another's rather than stand alone. */
export interface FoldRules {
  completing: ReadonlySet<string>;
}

export const NO_RULES: FoldRules = { completing: new Set() };

export function emptyUsage(meta: SessionMeta, slotMs = SLOT_MS): SessionUsage {
  return { ...meta, models: [], versions: [], sources: [], cells: [], seen: "", slot_ms: slotMs };
}

function count(v: unknown): number {
  return typeof v === "number" && Number.isSafeInteger(v) && v > 0 ? v : 0;
}

function name(v: unknown): string | undefined {
  return typeof v === "string" && v.length > 0 && v.length <= MAX_NAME_CHARS ? v : undefined;
}

/** Adds lines to a SessionUsage; built over one that came from the cache, it goes on where that one stopped. */
export class UsageFolder {
  private readonly cellAt = new Map<string, number>();
  private readonly seen: Set<string>;
  private readonly order: string[];
  private readonly fallbackAt: number;

  constructor(
    private readonly u: SessionUsage,
    private readonly rules: FoldRules = NO_RULES,
  ) {
    for (let i = 0; i < u.cells.length; i += CELL_WIDTH) this.cellAt.set(cellKey(u.cells, i), i);
    this.order = unpackSeen(u.seen);
    this.seen = new Set(this.order);
    const started = u.started_at ? Date.parse(u.started_at) : Number.NaN;
    this.fallbackAt = Number.isFinite(started) ? started : Number.NaN;
  }

  /** One line of events.jsonl (without its newline). */
  line(bytes: Buffer): void {
    if (bytes.indexOf(TURN_USAGE_MARK) < 0) return;
    let e: unknown;
    try {
      e = JSON.parse(bytes.toString("utf8"));
    } catch {
      return;
    }
    if (e === null || typeof e !== "object") return;
    const { kind, usage, timestamp } = e as Record<string, unknown>;
    if (kind !== "turn_usage" || usage === null || typeof usage !== "object" || Array.isArray(usage)) return;
    this.add(
      usage as Record<string, unknown>,
      typeof timestamp === "string" ? Date.parse(timestamp) : Number.NaN,
    );
  }

  private add(u: Record<string, unknown>, at: number): void {
    // A source that reported a response counted already is still a source of the session (the proxy's closes gaps).
    const source = name(u.source);
    if (source !== undefined && !this.u.sources.includes(source) && this.u.sources.length < MAX_NAMES)
      this.u.sources.push(source);
    const messageId = name(u.message_id);
    if (messageId !== undefined) {
      const id = idHash(messageId);
      if (this.seen.has(id)) return;
      this.remember(id);
    }
    // The store stamps every event; a line without a time (a planted file) is dated by the session's start.
    const when = Number.isFinite(at) ? at : this.fallbackAt;
    if (!Number.isFinite(when) || when < 0) return;
    const model = indexIn(this.u.models, name(u.model) ?? "");
    const version = indexIn(this.u.versions, name(u.agent_version) ?? "");
    const slotMs = this.u.slot_ms;
    const slot = Math.floor(when / slotMs);
    const within = when - slot * slotMs;
    const anonymous = messageId === undefined ? 1 : 0;
    const key = `${slot}/${model}/${version}/${anonymous}`;
    const c = this.u.cells;
    let at0 = this.cellAt.get(key);
    if (at0 === undefined) {
      at0 = c.length;
      c.push(slot, model, version, anonymous, 0, 0, 0, 0, 0, 0, within, within);
      this.cellAt.set(key, at0);
    }
    c[at0 + CELL.input]! += count(u.input_tokens);
    c[at0 + CELL.output]! += count(u.output_tokens);
    c[at0 + CELL.cache_read]! += count(u.cache_read_input_tokens);
    c[at0 + CELL.cache_creation]! += count(u.cache_creation_input_tokens);
    c[at0 + CELL.reasoning]! += count(u.reasoning_output_tokens);
    if (source === undefined || !this.rules.completing.has(source)) c[at0 + CELL.responses]! += 1;
    if (within < c[at0 + CELL.first]!) c[at0 + CELL.first] = within;
    if (within > c[at0 + CELL.last]!) c[at0 + CELL.last] = within;
  }

  private remember(id: string): void {
    this.seen.add(id);
    this.order.push(id);
    if (this.order.length > SEEN_KEPT) this.seen.delete(this.order.shift()!);
    this.u.seen = this.order.join("");
  }
}

function cellKey(cells: readonly number[], i: number): string {
  return `${cells[i + CELL.slot]}/${cells[i + CELL.model]}/${cells[i + CELL.version]}/${cells[i + CELL.anonymous]}`;
}

/** A name's index in a session's list, added when new; past MAX_NAMES a new one counts as none (""). */
function indexIn(names: string[], value: string): number {
  const i = names.indexOf(value);
  if (i >= 0) return i;
  if (names.length >= MAX_NAMES && value !== "") return indexIn(names, "");
  names.push(value);
  return names.length - 1;
}

/** Characters of one hash in SessionUsage.seen: 2^52 needs 11 in base 36. */
export const SEEN_WIDTH = 11;

function unpackSeen(packed: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + SEEN_WIDTH <= packed.length; i += SEEN_WIDTH) out.push(packed.slice(i, i + SEEN_WIDTH));
  return out;
}

/** FNV-1a over two 32-bit lanes, 52 bits kept, base 36: short, and no two of 16 ids collide but once in 2^45. */
export function idHash(id: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ id.length;
  for (let i = 0; i < id.length; i += 1) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return ((a >>> 0) * 2 ** 20 + ((b >>> 0) & 0xfffff)).toString(36).padStart(SEEN_WIDTH, "0");
}

/**
 * Folds the complete lines of an open events.jsonl from `from` into `u`; answers where the next fold starts (past
 * the last newline: a line still being written is read once it is whole).
 */
export function foldFrom(fd: number, from: number, u: SessionUsage, rules: FoldRules = NO_RULES): number {
  const folder = new UsageFolder(u, rules);
  return scanLines(fd, from, (line) => folder.line(line.bytes), { completeOnly: true });
}
