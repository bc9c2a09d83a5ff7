// What the history mappers (<provider>/history-map.ts) share: the cursor's open turn and last record time, the
// count of lines that are no record, the parse every line gets before the agent's own mapping, and the hook
// payload each record is turned into before the hooks' own normalizer reads it.
import type { NormalizedEvent } from "../core/archive/event.ts";
import { parseObjectLine } from "../core/archive/line-scan.ts";
import { type HistoryMapper, isoTime, type LineTally, shortString } from "./history.ts";
import { derivedId, type Payload } from "./shared.ts";

/** Line numbers kept per record type in a tally: where to look, not a listing. */
const LINES_NOTED = 5;

/** A line of nothing but whitespace (what a newline written after a record that had none leaves). */
function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

/** The fields that are set, in their order: what a hook payload or a cursor's state holds. */
export function setFields(fields: Payload): Payload {
  const out: Payload = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

export abstract class RecordMapper implements HistoryMapper {
  readonly tally: LineTally = { records: 0, mapped: 0, skipped: {}, unknown: {}, malformed: 0, lines: {} };
  /** The turn of a record that names none: the last one opened (the state's `turn`). */
  protected turn: string | undefined;
  /** The last record time read, for a record without one (the state's `last_at`). */
  protected lastAt: string | undefined;
  /** Lines of the file read before this one, by this read and the earlier ones (the state's `lines`). */
  protected lineNo: number;
  /** Where the line being mapped starts: what a generic event's id is made of. */
  protected offset = 0;
  /** Which file of the session this is, in a generic event's id (a subagent's id; "" for the session's own). */
  protected fileTag = "";
  private verdict: "skipped" | "unknown" | undefined;
  private readonly skippedCounters = new Map<string, { lines: number[] }>();
  private readonly unknownCounters = new Map<string, { lines: number[] }>();
  private readonly malformedCounters = new Map<string, { lines: number[] }>();

  /** `state` is what the previous import of the file left; `firstAt` the time before its first record. */
  protected constructor(
    protected readonly session: string,
    state: Record<string, unknown> | undefined,
    firstAt: string | undefined,
  ) {
    this.turn = shortString(state?.turn);
    this.lastAt = isoTime(state?.last_at) ?? firstAt;
    const lines = state?.lines;
    this.lineNo = typeof lines === "number" && Number.isSafeInteger(lines) && lines >= 0 ? lines : 0;
  }

  get malformed(): number {
    return this.tally.malformed;
  }

  line(bytes: Buffer, offset = 0): NormalizedEvent[] {
    this.lineNo += 1;
    this.offset = offset;
    this.tally.records += 1;
    const known = isBlank(bytes) ? "(blank line)" : this.provablyUnread(bytes);
    if (known !== undefined) {
      this.count("skipped", known);
      return [];
    }
    const record = parseObjectLine(bytes);
    if (!record) {
      this.count("malformed", "malformed");
      return [];
    }
    return this.record(record);
  }

  /** One parsed record (a line's, or a message of a JSON document), counted in the tally. */
  protected record(record: Payload): NormalizedEvent[] {
    const at = this.timeOf(record);
    if (at !== undefined) this.lastAt = at;
    this.verdict = undefined;
    const events = this.map(record);
    if (this.verdict === undefined) this.tally.mapped += 1;
    return events;
  }

  /**
   * The record type of a line that is certainly one the mapper skips, told from its first bytes without a
   * parse (Claude's request blobs, megabytes each, name their type first); undefined: parse it.
   */
  protected provablyUnread(_bytes: Buffer): string | undefined {
    return undefined;
  }

  /** The record being mapped is one the agent writes that holds nothing to import: counted by its type. */
  protected skip(type: string): NormalizedEvent[] {
    this.verdict = "skipped";
    this.count("skipped", type);
    return [];
  }

  /**
   * A record of a type the mapper does not know: kept whole as a generic event (redacted and bounded by the
   * core like any payload), counted by its type, never dropped. A later tapedeck may map it.
   */
  protected unknown(type: string, record: Payload): NormalizedEvent {
    this.verdict = "unknown";
    this.count("unknown", type);
    const event: NormalizedEvent = {
      kind: "provider_event",
      event_id: derivedId("provider_event", `unknown_record:${this.session}:${this.fileTag}:${this.offset}`),
      payload: { type: "unknown_record", record_type: type, record },
    };
    if (this.lastAt !== undefined) event.timestamp = this.lastAt;
    if (this.turn !== undefined) event.turn_id = this.turn;
    return event;
  }

  /**
   * One line more of `type`. Most lines of a transcript are skipped ones of a handful of types: each type's
   * counter is found once by a Map lookup, not by building its key per line (measured: 2% of an import's CPU).
   */
  private count(where: "skipped" | "unknown" | "malformed", type: string): void {
    const counters =
      where === "skipped"
        ? this.skippedCounters
        : where === "unknown"
          ? this.unknownCounters
          : this.malformedCounters;
    let c = counters.get(type);
    if (c === undefined) {
      const key = where === "malformed" ? "malformed" : `${where}:${type}`;
      c = { lines: [] };
      counters.set(type, c);
      this.tally.lines[key] = c.lines;
    }
    if (where === "malformed") this.tally.malformed += 1;
    else {
      const counts = this.tally[where];
      counts[type] = (counts[type] ?? 0) + 1;
    }
    if (c.lines.length < LINES_NOTED) c.lines.push(this.lineNo);
  }

  /** What every mapper's state keeps: the open turn, the last time, the lines read. */
  protected baseState(): Payload {
    return { turn: this.turn, last_at: this.lastAt, lines: this.lineNo };
  }

  end(): NormalizedEvent[] {
    return [];
  }

  /** Keeps `turn` and `last_at` among the mapper's own fields. */
  abstract state(): Record<string, unknown>;

  /** One record's events. */
  protected abstract map(record: Payload): NormalizedEvent[];

  protected timeOf(record: Payload): string | undefined {
    return isoTime(record.timestamp);
  }

  /** The payload of the agent's hook `name` for this session: the fields that are set, in their order. */
  protected hookPayload(name: string, fields: Payload): Payload {
    return { hook_event_name: name, session_id: this.session, ...setFields(fields) };
  }
}
