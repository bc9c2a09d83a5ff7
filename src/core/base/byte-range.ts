// Reading part of a file already opened (through openRegularSync or openForScan): a range of its bytes, or its
// first bytes into a hash. A regular file's read may come back short only at its end, which is where both stop.
import type { Hash } from "node:crypto";
import { readSync } from "node:fs";

/** Read at most this much at once into a hash: a prefix of a large session is hashed in steps. */
const HASH_CHUNK_BYTES = 4 * 1024 * 1024;

/** Bytes [from, to) of an open file; fewer when it ends first, none when `to` is not past `from`. */
export function readRange(fd: number, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(0, to - from));
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, from + got);
    if (n <= 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** Feeds bytes [0, end) of an open file to `hash`; answers how many it fed (fewer when the file ends first). */
export function hashPrefix(fd: number, end: number, hash: Hash): number {
  const buf = Buffer.allocUnsafe(Math.min(HASH_CHUNK_BYTES, Math.max(1, end)));
  let position = 0;
  while (position < end) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, end - position), position);
    if (n <= 0) break;
    hash.update(buf.subarray(0, n));
    position += n;
  }
  return position;
}
