// The timeline `show`, the Markdown export and the local viewer share: archive events folded into turns (the
// prompt, each tool call paired with its result, subagents under the call that spawned them, the answer,
// usage per turn with its source; the core turn model's, given their shape in timeline-builder.ts). It reads
// only the archive, line by line from a byte offset, so a session of 100,000 events is paged, never loaded
// whole.

import { closeSync, fstatSync } from "node:fs";
import { join } from "node:path";
import { openForScan, scanLines } from "../core/archive/line-scan.ts";
import { TimelineBuilder } from "./timeline-builder.ts";
import { str } from "./tool-text.ts";
import type {
  BadLine,
  PageOptions,
  TimelineEvent,
  TimelineOptions,
  TimelinePage,
  Turn,
} from "./turn-shape.ts";

export { usageTokens } from "../core/read/timeline/usage.ts";
export { TimelineBuilder } from "./timeline-builder.ts";
export { between, excerpt, exitCode, inputSummary, resultText } from "./tool-text.ts";
export type * from "./turn-shape.ts";

export const EVENTS_FILE = "events.jsonl";

const DEFAULT_LIMIT = 500;
/** A line this long is not parsed for the timeline (the recorder caps events at 256 KB); it is reported. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

/** An archive line as a TimelineEvent; a reason string when it is not an event. */
export function parseTimelineLine(bytes: Buffer, offset: number): TimelineEvent | string {
  if (bytes.length === 0) return "empty line";
  if (bytes.length > MAX_LINE_BYTES) return "line too large to show";
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString("utf8"));
  } catch {
    return "not JSON";
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "not a JSON event envelope";
  const e = v as Record<string, unknown>;
  if (typeof e.sequence !== "number" || typeof e.kind !== "string") return "not a JSON event envelope";
  const payload =
    e.payload && typeof e.payload === "object" && !Array.isArray(e.payload)
      ? (e.payload as Record<string, unknown>)
      : {};
  const len = (x: unknown) => (Array.isArray(x) ? x.length : 0);
  return {
    sequence: e.sequence,
    offset,
    bytes: bytes.length + 1,
    kind: e.kind,
    timestamp: str(e.timestamp) ?? null,
    ...(typeof e.turn_id === "string" ? { turn_id: e.turn_id } : {}),
    ...(typeof e.agent_id === "string" ? { agent_id: e.agent_id } : {}),
    payload,
    ...(e.usage && typeof e.usage === "object" ? { usage: e.usage as Record<string, unknown> } : {}),
    redactions: len(e.redactions),
    truncations: len(e.truncations),
    omitted: len(e.omitted),
  };
}

export interface ReadHandlers {
  onEvent?: (e: TimelineEvent) => void;
  onBadLine?: (b: BadLine) => void;
}

/**
 * Reads complete lines from `fromOffset`, at most `limit` events; returns where it stopped, the partial final
 * line (if any) and whether the end of the file was reached.
 */
export function readEventLines(
  sessionDir: string,
  fromOffset: number,
  limit: number,
  handlers: ReadHandlers,
): { endOffset: number; atEnd: boolean; partial: BadLine | null } {
  const fd = openEvents(sessionDir);
  // A session whose first event is still being written has no events file yet: nothing to read.
  if (fd === null) return { endOffset: fromOffset, atEnd: true, partial: null };
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, Math.min(fromOffset, size));
    let endOffset = start;
    let seen = 0;
    let partial: BadLine | null = null;
    let stoppedEarly = false;
    scanLines(fd, start, (line) => {
      if (!line.terminated) {
        partial = { offset: line.offset, bytes: line.bytes.length, reason: "final line without a newline" };
        return false;
      }
      if (seen >= limit) {
        stoppedEarly = true;
        return false;
      }
      endOffset = line.offset + line.bytes.length + 1;
      const parsed = parseTimelineLine(line.bytes, line.offset);
      if (typeof parsed === "string")
        handlers.onBadLine?.({ offset: line.offset, bytes: line.bytes.length, reason: parsed });
      else {
        seen += 1;
        handlers.onEvent?.(parsed);
      }
      return true;
    });
    return { endOffset, atEnd: !stoppedEarly, partial };
  } finally {
    closeSync(fd);
  }
}

/** events.jsonl for reading; null when there is none. A symlink, FIFO or device throws UnsafePathError. */
function openEvents(sessionDir: string): number | null {
  try {
    return openForScan(join(sessionDir, EVENTS_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Throws what reading the session's events would (UnsafePathError for a planted link or FIFO), reading nothing. */
export function checkEventsReadable(sessionDir: string): void {
  const fd = openEvents(sessionDir);
  if (fd !== null) closeSync(fd);
}

/**
 * One page of the timeline: up to `limit` events from `fromOffset` (a line boundary: 0 or a page's
 * nextOffset), and the turns they make. A turn cut by the page's start is marked `continued`.
 */
export function readTimelinePage(sessionDir: string, options: PageOptions = {}): TimelinePage {
  const fromOffset = options.fromOffset ?? 0;
  const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_LIMIT));
  const events: TimelineEvent[] = [];
  const turns: Turn[] = [];
  const bad: BadLine[] = [];
  const builder = new TimelineBuilder((t) => turns.push(t), { ...options, continued: fromOffset > 0 });
  const read = readEventLines(sessionDir, fromOffset, limit, {
    onEvent: (e) => {
      events.push(e);
      builder.add(e);
    },
    onBadLine: (b) => bad.push(b),
  });
  builder.finish();
  return {
    fromOffset,
    nextOffset: read.atEnd ? null : read.endOffset,
    endOffset: read.endOffset,
    events,
    turns,
    bad_lines: bad,
    partial_tail: read.partial,
  };
}

export interface StreamResult {
  endOffset: number;
  events: number;
  bad_lines: BadLine[];
  partial_tail: BadLine | null;
}

/** Every turn of a session, handed over one at a time (only the turn being built is held). */
export function streamTurns(
  sessionDir: string,
  onTurn: (t: Turn) => void,
  options: TimelineOptions & { onEvent?: (e: TimelineEvent) => void } = {},
): StreamResult {
  const builder = new TimelineBuilder(onTurn, options);
  const bad: BadLine[] = [];
  let events = 0;
  const read = readEventLines(sessionDir, 0, Number.POSITIVE_INFINITY, {
    onEvent: (e) => {
      events += 1;
      options.onEvent?.(e);
      builder.add(e);
    },
    onBadLine: (b) => bad.push(b),
  });
  builder.finish();
  return { endOffset: read.endOffset, events, bad_lines: bad, partial_tail: read.partial };
}

// The per-session summary lives in its own module: list loads it without the timeline.
export { type SessionSummaryLine, summarizeManifest } from "./session-summary.ts";
