// Line scanning over events.jsonl in large chunks, without loading the file.
import { createHash } from "node:crypto";
import { constants, fstatSync, readSync } from "node:fs";
import { openRegularSync } from "../base/fsutil.ts";
import { isRecord } from "../base/json.ts";

export interface ScannedLine {
  /** byte offset of the line's first byte */
  offset: number;
  /** the line without its newline */
  bytes: Buffer;
  /** false for a final line with no newline */
  terminated: boolean;
}

const CHUNK = 4 * 1024 * 1024;

export interface ScanOptions {
  /** stop at this offset instead of EOF (an agent's transcript read up to the size seen, and a bounded slice) */
  end?: number;
  /** leave out a final line with no newline: a transcript the agent is still writing ends mid-line */
  completeOnly?: boolean;
}

/**
 * Calls `onLine` for every line from `from` to EOF (or `options.end`); stops
 * early when it returns exactly `false`. Returns where the scan stopped: past
 * the line that stopped it, or the end, or with `completeOnly` past the last
 * newline (the next read's start). `line.bytes` is a view into a buffer reused
 * for the next read: valid only during the call (copy what must outlive it).
 * One buffer moved down, instead of a fresh one joined to the carried bytes
 * per chunk, saved a copy of every byte scanned. The events index keeps its
 * own reader (bounded-lines.ts): it drops a line over 16 MB as it
 * streams by, for a planted file, where this one grows to the longest line.
 */
export function scanLines(
  fd: number,
  from: number,
  onLine: (line: ScannedLine) => unknown,
  options: ScanOptions = {},
): number {
  const size = options.end ?? fstatSync(fd).size;
  let buf = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, size - from)));
  let position = from;
  /** file offset of buf[0] */
  let bufStart = from;
  let filled = 0;
  while (position < size) {
    if (filled === buf.length) {
      // One line longer than the buffer: grow it.
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const read = readSync(fd, buf, filled, Math.min(buf.length - filled, size - position), position);
    if (read <= 0) break;
    position += read;
    filled += read;
    const view = buf.subarray(0, filled);
    let start = 0;
    for (;;) {
      const nl = view.indexOf(10, start);
      if (nl < 0) break;
      if (onLine({ offset: bufStart + start, bytes: view.subarray(start, nl), terminated: true }) === false) {
        return bufStart + nl + 1;
      }
      start = nl + 1;
    }
    buf.copyWithin(0, start, filled);
    bufStart += start;
    filled -= start;
  }
  if (options.completeOnly) return bufStart;
  if (filled > 0) onLine({ offset: bufStart, bytes: buf.subarray(0, filled), terminated: false });
  return size;
}

/** events.jsonl for reading: a regular file only, opened without blocking (see openRegularSync). */
export function openForScan(path: string): number {
  return openRegularSync(path, constants.O_RDONLY);
}

export interface ParsedEventLine {
  sequence: number;
  event_id: string;
  kind: string;
  timestamp?: string;
  redactions?: unknown[];
  truncations?: unknown[];
}

/** A line's JSON object; undefined for anything else (a torn line, an array, a scalar). */
export function parseObjectLine(bytes: Buffer): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  return isRecord(value) ? value : undefined;
}

/** A parsed line with the fields every envelope the store writes has. */
export type EnvelopeLine = Record<string, unknown> & { sequence: number; event_id: string; kind: string };

/** Whether a parsed line has the fields every envelope the store writes has. */
export function isEnvelopeLine(v: Record<string, unknown> | undefined): v is EnvelopeLine {
  return (
    v !== undefined &&
    typeof v.sequence === "number" &&
    typeof v.event_id === "string" &&
    typeof v.kind === "string"
  );
}

/** Parses a line into the few fields recovery needs; undefined when it is not an envelope. */
export function parseEventLine(bytes: Buffer): ParsedEventLine | undefined {
  const v = parseObjectLine(bytes);
  return isEnvelopeLine(v) ? (v as unknown as ParsedEventLine) : undefined;
}

/** sha256 and length of a whole file, read in chunks. */
export function sha256OfFd(fd: number): { sha256: string; bytes: number } {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(CHUNK);
  let position = 0;
  for (;;) {
    const n = readSync(fd, buf, 0, buf.length, position);
    if (n <= 0) break;
    hash.update(buf.subarray(0, n));
    position += n;
  }
  return { sha256: hash.digest("hex"), bytes: position };
}
