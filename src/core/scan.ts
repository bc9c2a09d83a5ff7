// Line scanning over events.jsonl in large chunks, without loading the file.
import { createHash } from "node:crypto";
import { closeSync, constants, fstatSync, readSync } from "node:fs";
import { openRegularSync } from "./fsutil.ts";

export interface ScannedLine {
  /** byte offset of the line's first byte */
  offset: number;
  /** the line without its newline */
  bytes: Buffer;
  /** false for a final line with no newline */
  terminated: boolean;
}

const CHUNK = 4 * 1024 * 1024;

/** Calls `onLine` for every line from `from` to EOF; stops early when it returns exactly `false`. */
export function scanLines(fd: number, from: number, onLine: (line: ScannedLine) => unknown): number {
  const size = fstatSync(fd).size;
  let position = from;
  let carry: Buffer = Buffer.alloc(0);
  let carryOffset = from;
  while (position < size) {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK, size - position));
    const read = readSync(fd, chunk, 0, chunk.length, position);
    if (read <= 0) break;
    position += read;
    const data = carry.length > 0 ? Buffer.concat([carry, chunk.subarray(0, read)]) : chunk.subarray(0, read);
    let start = 0;
    for (;;) {
      const nl = data.indexOf(10, start);
      if (nl < 0) break;
      if (
        onLine({ offset: carryOffset + start, bytes: data.subarray(start, nl), terminated: true }) === false
      ) {
        return carryOffset + nl + 1;
      }
      start = nl + 1;
    }
    carryOffset += start;
    carry = Buffer.from(data.subarray(start));
  }
  if (carry.length > 0) onLine({ offset: carryOffset, bytes: carry, terminated: false });
  return size;
}

/** events.jsonl for reading: a regular file only, opened without blocking (see openRegularSync). */
export function openForScan(path: string): number {
  return openRegularSync(path, constants.O_RDONLY);
}

export function closeQuietly(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // closing a descriptor we are done with cannot lose data
  }
}

export interface ParsedEventLine {
  sequence: number;
  event_id: string;
  kind: string;
  timestamp?: string;
  redactions?: unknown[];
  truncations?: unknown[];
}

/** Parses a line into the few fields recovery needs; undefined when it is not an envelope. */
export function parseEventLine(bytes: Buffer): ParsedEventLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.sequence !== "number" || typeof v.event_id !== "string" || typeof v.kind !== "string")
    return undefined;
  return v as unknown as ParsedEventLine;
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
