// Complete lines of a file from a byte offset with bounded memory: a line past the bound is skipped as it
// streams by, never buffered. The index and the readers of planted or grown files (promotion's sources, a
// scenario's source session) read events.jsonl through it.
import { readSync } from "node:fs";

/** A line longer than this is no event the recorder writes (it bounds events far below): skipped, never buffered. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

export interface Line {
  offset: number;
  /** past the newline */
  end: number;
  /** undefined for a line over MAX_LINE_BYTES (skipped without being held in memory) */
  bytes: Buffer | undefined;
}

/**
 * Complete lines from `from` to `size`, with bounded memory: a line over
 * MAX_LINE_BYTES is dropped as it streams by (core's scanLines grows its
 * buffer to the longest line, fine for the recorder's own bounded lines, not
 * for a file someone planted). A final line without a newline is not given.
 */
export function* readLines(fd: number, from: number, size: number): Generator<Line, void, void> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let oversized = false;
  let lineStart = from;
  let position = from;
  while (position < size) {
    const n = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, size - position), position);
    if (n <= 0) break;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0 || nl >= n) break;
      const end = position + nl + 1;
      let bytes: Buffer | undefined;
      if (!oversized && carryBytes + (nl - start) <= MAX_LINE_BYTES) {
        const piece = chunk.subarray(start, nl);
        bytes = carry.length === 0 ? piece : Buffer.concat([...carry, piece]);
      }
      yield { offset: lineStart, end, bytes };
      carry = [];
      carryBytes = 0;
      oversized = false;
      lineStart = end;
      start = nl + 1;
    }
    if (start < n && !oversized) {
      carryBytes += n - start;
      if (carryBytes > MAX_LINE_BYTES) {
        oversized = true;
        carry = [];
      } else carry.push(Buffer.from(chunk.subarray(start, n)));
    }
    position += n;
  }
}
