// The archive lines the mapping reads: events.jsonl from a byte offset, each complete line parsed into the
// few envelope fields a span needs. A line that is not an event is skipped (inspect reports it); a final line
// without its newline is a write in progress and is not read.
import { closeSync } from "node:fs";
import { join } from "node:path";
import { openForScan, scanLines } from "../core/archive/line-scan.ts";

export interface ArchiveEvent {
  offset: number;
  /** just past the line's newline */
  end: number;
  sequence: number;
  eventId: string;
  kind: string;
  timeMs: number;
  turnId?: string;
  agentId?: string;
  payload: Record<string, unknown>;
  usage?: Record<string, unknown>;
  redactions: number;
  truncations: number;
}

/** The recorder caps an event at 256 KB; a line far past that is not an event it wrote. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;

function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

export function parseArchiveLine(bytes: Buffer, offset: number): ArchiveEvent | undefined {
  if (bytes.length === 0 || bytes.length > MAX_LINE_BYTES) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  const e = record(v);
  if (!e || typeof e.sequence !== "number" || typeof e.event_id !== "string" || typeof e.kind !== "string")
    return undefined;
  const timeMs = typeof e.timestamp === "string" ? Date.parse(e.timestamp) : Number.NaN;
  const len = (x: unknown) => (Array.isArray(x) ? x.length : 0);
  const usage = record(e.usage);
  return {
    offset,
    end: offset + bytes.length + 1,
    sequence: e.sequence,
    eventId: e.event_id,
    kind: e.kind,
    timeMs,
    ...(typeof e.turn_id === "string" ? { turnId: e.turn_id } : {}),
    ...(typeof e.agent_id === "string" ? { agentId: e.agent_id } : {}),
    payload: record(e.payload) ?? {},
    ...(usage ? { usage } : {}),
    redactions: len(e.redactions),
    truncations: len(e.truncations),
  };
}

/**
 * Calls onEvent for each complete event line from `from`, until it answers false; returns just past the last
 * complete line read.
 */
export function readArchive(
  sessionDir: string,
  from: number,
  onEvent: (e: ArchiveEvent) => boolean | undefined,
): number {
  const fd = openForScan(join(sessionDir, "events.jsonl"));
  let end = from;
  try {
    scanLines(fd, from, (line) => {
      if (!line.terminated) return false;
      end = line.offset + line.bytes.length + 1;
      const e = parseArchiveLine(line.bytes, line.offset);
      return e ? onEvent(e) !== false : true;
    });
  } finally {
    closeSync(fd);
  }
  return end;
}
