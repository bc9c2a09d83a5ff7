// A session's running counters (state.json) and how one written line moves them: shared by the writer
// (src/core/archive/session-store.ts), recovery, and `list`, which folds a stale manifest's tail without loading the writer,
// its redaction rules or its locks.
import { addCount } from "../base/json.ts";

export interface SessionState {
  version: 1;
  size: number;
  next_sequence: number;
  event_count: number;
  counts: Record<string, number>;
  redaction_count: number;
  truncation_count: number;
  dropped_count: number;
  duplicate_count: number;
  /** a terminal event was appended and no session_start has come since */
  ended: boolean;
  /** number of session_start events: a resumed session is a new epoch */
  epoch: number;
  last_event_at: string | null;
}

export function emptyState(): SessionState {
  return {
    version: 1,
    size: 0,
    next_sequence: 1,
    event_count: 0,
    counts: {},
    redaction_count: 0,
    truncation_count: 0,
    dropped_count: 0,
    duplicate_count: 0,
    ended: false,
    epoch: 0,
    last_event_at: null,
  };
}

/** Folds one already-written line into the state (used by tail reconciliation and recovery). */
export function applyLineToState(
  state: SessionState,
  line: {
    sequence: number;
    kind: string;
    timestamp?: string;
    redactions?: unknown[];
    truncations?: unknown[];
  },
  bytes: number,
): void {
  state.size += bytes;
  state.event_count += 1;
  state.next_sequence = Math.max(state.next_sequence, line.sequence + 1);
  addCount(state.counts, line.kind);
  state.redaction_count += Array.isArray(line.redactions) ? line.redactions.length : 0;
  state.truncation_count += Array.isArray(line.truncations) ? line.truncations.length : 0;
  if (line.kind === "session_start") {
    state.epoch += 1;
    state.ended = false;
  }
  if (line.kind === "session_end") state.ended = true;
  if (line.timestamp) state.last_event_at = line.timestamp;
}
