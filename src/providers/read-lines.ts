// Reading the lines appended to an agent's transcript since a remembered
// offset, without loading the file: transcripts reach gigabytes.
import { readSync } from "node:fs";

const CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;

/**
 * Calls `onLine` for each newline-terminated line in [start, end) and returns
 * the offset just past the last newline seen. Reads in fixed-size chunks at
 * explicit positions so memory stays bounded by the longest line.
 */
export function scanCompleteLines(
  fd: number,
  start: number,
  end: number,
  onLine: (line: Buffer) => void,
): number {
  const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK_BYTES, end - start)));
  let position = start;
  let lineEnd = start;
  let carry: Buffer[] = [];
  while (position < end) {
    const read = readSync(fd, chunk, 0, Math.min(chunk.length, end - position), position);
    if (read <= 0) break;
    const view = chunk.subarray(0, read);
    let from = 0;
    for (let nl = view.indexOf(NEWLINE, from); nl !== -1; nl = view.indexOf(NEWLINE, from)) {
      const piece = view.subarray(from, nl);
      onLine(carry.length > 0 ? Buffer.concat([...carry, piece]) : piece);
      carry = [];
      from = nl + 1;
      lineEnd = position + from;
    }
    // The chunk buffer is reused, so a partial line must be copied out.
    if (from < read) carry.push(Buffer.from(view.subarray(from)));
    position += read;
  }
  return lineEnd;
}
