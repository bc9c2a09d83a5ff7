// The one ordered scan of events.jsonl that recovery and inspect share: every
// complete line is validated (a JSON object with a numeric sequence and
// string event_id and kind), and folded into the counters inspect reports
// (counts by kind, redactions, truncations, usage sums, malformed lines,
// sequence and id anomalies). The accumulators can be saved after a line
// boundary and restored (see checkpoint.ts), so a later scan continues where
// a validated prefix ended and reaches exactly the counters a full scan does.

import { addCount } from "../base/json.ts";
import { idKey } from "./dedup.ts";
import { isEnvelopeLine, parseObjectLine, scanLines } from "./line-scan.ts";
import { RECORDED_FIELDS, zeroTokens } from "./manifest-counters.ts";
import { emptyReport } from "./recovery-report.ts";
import type { RecoveryReport } from "./schemas.ts";
import { applyLineToState, emptyState, type SessionState } from "./session-store.ts";

export interface UsageSums {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** the reasoning tokens a provider counts apart from its output (Gemini's thoughts), as recorded */
  reasoning_output_tokens: number;
  sources: string[];
}

/** What a scan found, from offset 0 to the end of the file. */
export interface ScanSummary {
  report: RecoveryReport;
  state: SessionState;
  countsByKind: Record<string, number>;
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  usage: UsageSums;
}

export interface ScanResult extends ScanSummary {
  /** the final line without its newline, if any */
  tail: Buffer | null;
  /** just past the last complete line */
  validEnd: number;
}

/** The accumulators after a line boundary, as plain JSON (sets as sorted ranges and an array). */
export interface ScanSnapshot {
  offset: number;
  line_no: number;
  previous: number;
  report: Pick<
    RecoveryReport,
    | "valid_events"
    | "malformed_lines"
    | "duplicate_sequences"
    | "non_monotonic_sequences"
    | "duplicate_event_ids"
  >;
  state: SessionState;
  counts_by_kind: Record<string, number>;
  first_timestamp: string | null;
  usage: UsageSums;
  /** every sequence seen, as sorted [first, last] ranges: one range for a well-formed session */
  sequences: Array<[number, number]>;
  /**
   * every event id seen, as the JSON text of an array: parsing the checkpoint
   * then reads one string, and the array is parsed only when a line past the
   * offset needs it (a sealed session never does)
   */
  event_ids: string;
}

/** The byte pattern sumUsage always required of a line before reading its usage (kept: the counters must not move). */
const TURN_USAGE_MARK = Buffer.from('"kind":"turn_usage"');

/**
 * Sequences seen, as sorted disjoint ranges plus a set for the stragglers.
 * A well-formed session is one growing range: a new sequence above every
 * earlier one (the common case) costs no lookup, and a restored checkpoint
 * needs no set rebuilt.
 */
class SeenSequences {
  private readonly ranges: Array<[number, number]>;
  private readonly stragglers = new Set<number>();
  private max = Number.NEGATIVE_INFINITY;

  constructor(ranges: ReadonlyArray<readonly [number, number]> = []) {
    this.ranges = ranges.map(([first, last]) => [first, last]);
    const last = this.ranges.at(-1);
    if (last) this.max = last[1];
  }

  has(seq: number): boolean {
    if (seq > this.max) return false;
    if (this.stragglers.has(seq)) return true;
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [first, last] = this.ranges[mid]!;
      if (seq < first) hi = mid - 1;
      else if (seq > last) lo = mid + 1;
      else return true;
    }
    return false;
  }

  add(seq: number): void {
    if (seq <= this.max) {
      this.stragglers.add(seq);
      return;
    }
    const last = this.ranges.at(-1);
    if (last && Number.isInteger(seq) && Number.isInteger(last[1]) && seq === last[1] + 1) last[1] = seq;
    else this.ranges.push([seq, seq]);
    this.max = seq;
  }

  toRanges(): Array<[number, number]> {
    if (this.stragglers.size === 0) return this.ranges.map(([first, last]) => [first, last]);
    const all: number[] = [...this.stragglers];
    for (const [first, last] of this.ranges) {
      if (first === last) all.push(first);
      else for (let s = first; s <= last; s += 1) all.push(s);
    }
    all.sort((a, b) => a - b);
    const out: Array<[number, number]> = [];
    for (const s of all) {
      const last = out.at(-1);
      if (last && s === last[1]) continue;
      if (last && Number.isInteger(s) && Number.isInteger(last[1]) && s === last[1] + 1) last[1] = s;
      else out.push([s, s]);
    }
    return out;
  }
}

export function emptyUsage(): UsageSums {
  return { ...zeroTokens(), reasoning_output_tokens: 0, sources: [] };
}

/** One pass over events.jsonl, from offset 0 or from a snapshot. */
export class SessionScanner {
  private readonly report: RecoveryReport = emptyReport();
  private state: SessionState = emptyState();
  private countsByKind: Record<string, number> = {};
  private sequences: SeenSequences;
  private readonly restoredIds: string;
  private ids: Set<string> | undefined;
  private previous = 0;
  private lineNo = 0;
  private firstTimestamp: string | null = null;
  private usage: UsageSums = emptyUsage();
  private readonly sources = new Set<string>();
  private tail: Buffer | null = null;
  private validEnd = 0;

  constructor(from?: ScanSnapshot) {
    this.sequences = new SeenSequences(from?.sequences);
    this.restoredIds = from?.event_ids ?? "[]";
    if (!from) return;
    Object.assign(this.report, structuredClone(from.report));
    this.state = structuredClone(from.state);
    this.countsByKind = { ...from.counts_by_kind };
    this.previous = from.previous;
    this.lineNo = from.line_no;
    this.firstTimestamp = from.first_timestamp;
    this.usage = { ...from.usage, sources: [] };
    for (const s of from.usage.sources) this.sources.add(s);
    this.validEnd = from.offset;
  }

  /** Scans from the snapshot's offset (or 0) to the end of the file. */
  run(fd: number, fileSize: number): ScanResult {
    scanLines(fd, this.validEnd, (line) => {
      this.lineNo += 1;
      if (!line.terminated) {
        this.tail = Buffer.from(line.bytes);
        return;
      }
      this.validEnd = line.offset + line.bytes.length + 1;
      this.fold(line.bytes, line.offset);
    });
    this.report.bytes_scanned = fileSize;
    this.usage.sources = [...this.sources];
    return {
      report: this.report,
      state: this.state,
      countsByKind: this.countsByKind,
      firstTimestamp: this.firstTimestamp,
      lastTimestamp: this.state.last_event_at,
      usage: this.usage,
      tail: this.tail,
      validEnd: this.validEnd,
    };
  }

  private fold(bytes: Buffer, offset: number): void {
    const value = parseObjectLine(bytes);
    if (value?.usage && bytes.indexOf(TURN_USAGE_MARK) >= 0) this.addUsage(value.usage);
    if (!isEnvelopeLine(value)) {
      this.state.size += bytes.length + 1;
      this.report.malformed_lines.push({
        line: this.lineNo,
        offset,
        bytes: bytes.length,
        reason: bytes.length === 0 ? "empty line" : "not a JSON event envelope",
      });
      return;
    }
    const event = value as { sequence: number; event_id: string; kind: string; timestamp?: string };
    const { sequence, event_id: eventId, kind } = event;
    if (this.sequences.has(sequence)) this.report.duplicate_sequences.push({ line: this.lineNo, sequence });
    else if (sequence <= this.previous) {
      this.report.non_monotonic_sequences.push({ line: this.lineNo, sequence, previous: this.previous });
    }
    this.sequences.add(sequence);
    this.previous = Math.max(this.previous, sequence);
    const ids = this.seenIds();
    if (ids.has(eventId)) {
      this.report.duplicate_event_ids.push({
        line: this.lineNo,
        event_id_sha256: idKey(eventId).toString(16),
      });
    }
    ids.add(eventId);
    applyLineToState(this.state, event, bytes.length + 1);
    addCount(this.countsByKind, kind);
    this.firstTimestamp ??= event.timestamp ?? null;
    this.report.valid_events += 1;
  }

  /** The restored ids become a Set only when a line past the checkpoint needs them. */
  private seenIds(): Set<string> {
    if (this.ids) return this.ids;
    const restored: unknown = JSON.parse(this.restoredIds);
    // A damaged list throws: recovery then scans the file in full.
    if (!Array.isArray(restored) || !restored.every((id) => typeof id === "string")) {
      throw new Error("checkpoint: event ids are not a list of strings");
    }
    this.ids = new Set(restored);
    return this.ids;
  }

  private addUsage(u: unknown): void {
    if (typeof u !== "object" || u === null) return;
    const record = u as Record<string, unknown>;
    // Only numbers are summed and only strings named: a hostile line cannot turn a sum into a string.
    if (typeof record.source === "string") this.sources.add(record.source);
    for (const field of RECORDED_FIELDS) {
      const n = record[field];
      if (typeof n === "number" && Number.isFinite(n)) this.usage[field] += n;
    }
  }

  /** The accumulators at the end of the last complete line: call right after run(), before anyone changes them. */
  snapshot(): ScanSnapshot {
    const {
      valid_events,
      malformed_lines,
      duplicate_sequences,
      non_monotonic_sequences,
      duplicate_event_ids,
    } = this.report;
    // The small parts are copied (recovery goes on changing the state); the sets are fresh arrays already.
    return {
      ...structuredClone({
        offset: this.validEnd,
        line_no: this.lineNo - (this.tail ? 1 : 0),
        previous: this.previous,
        report: {
          valid_events,
          malformed_lines,
          duplicate_sequences,
          non_monotonic_sequences,
          duplicate_event_ids,
        },
        state: this.state,
        counts_by_kind: this.countsByKind,
        first_timestamp: this.firstTimestamp,
        usage: { ...this.usage, sources: [...this.sources] },
      }),
      sequences: this.sequences.toRanges(),
      event_ids: JSON.stringify([...this.seenIds()]),
    };
  }
}
