// Reading a session's events.jsonl for promotion and verification: streamed line by line (bounded memory
// whatever the session's size), a regular file only (no symlink, no FIFO), and the checksum that links a
// memory item to the exact bytes it came from.
import { createHash } from "node:crypto";
import { closeSync, fstatSync } from "node:fs";
import { join } from "node:path";
import { openForScan } from "../../core/archive/line-scan.ts";
import { SESSION_FILES } from "../../core/archive/paths.ts";
import { readLines } from "../../core/base/bounded-lines.ts";
import { hashPrefix } from "../../core/base/byte-range.ts";
import { asSourceEvent, type SourceEvent } from "./items.ts";

/** tapedeck writes events of at most 256 KiB; a longer line was planted or damaged and is not parsed. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;

export function eventsFile(sessionDir: string): string {
  return join(sessionDir, SESSION_FILES.events);
}

export interface ScanProgress {
  lines: number;
  bytes: number;
  total: number;
}

export interface ArchiveScan {
  /** Just past the last complete line read: where a second pass over the same bytes stops. */
  end: number;
  lines: number;
  /** Lines that are not an envelope of this session (malformed, oversized, another session's). */
  skipped: number;
}

export interface ScanArchiveOptions {
  /** The session the lines must belong to. */
  sessionId: string;
  /** Stop before this byte offset (the end of an earlier pass: an active session may have grown). */
  until?: number;
  onEvent(event: SourceEvent, lineEnd: number): void;
  onProgress?(progress: ScanProgress): void;
  progressEvery?: number;
}

/** Every complete line from offset 0 (a torn final line is not an event yet). */
export function scanArchive(path: string, opts: ScanArchiveOptions): ArchiveScan {
  const fd = openForScan(path);
  const result: ArchiveScan = { end: 0, lines: 0, skipped: 0 };
  const every = opts.progressEvery ?? 10_000;
  try {
    const total = Math.min(fstatSync(fd).size, opts.until ?? Number.POSITIVE_INFINITY);
    // index-lines' bounded stream, not core's scanLines: that one grows its buffer to the longest line, and a
    // planted or damaged events.jsonl with a 1 GB line had promote and verify hold all of it (twice, while
    // the buffer doubled). A line over the bound streams by without being held.
    for (const line of readLines(fd, 0, total)) {
      result.end = line.end;
      result.lines += 1;
      const event = line.bytes && line.bytes.length <= MAX_LINE_BYTES ? parse(line.bytes) : undefined;
      if (event && event.session_id === opts.sessionId) opts.onEvent(event, line.end);
      else result.skipped += 1;
      if (opts.onProgress && result.lines % every === 0) {
        opts.onProgress({ lines: result.lines, bytes: line.end, total });
      }
    }
  } finally {
    closeSync(fd);
  }
  return result;
}

function parse(bytes: Buffer): SourceEvent | undefined {
  try {
    return asSourceEvent(JSON.parse(bytes.toString("utf8")));
  } catch {
    return undefined;
  }
}

/**
 * sha256 of the first `bytes` bytes of the file; undefined when the file is shorter (it lost what was
 * promoted). A prefix, not the whole file: an active session keeps growing, and appending never changes
 * what was already written, so a later append does not make an item's source look changed.
 */
export function sha256Prefix(path: string, bytes: number): string | undefined {
  const fd = openForScan(path);
  try {
    if (fstatSync(fd).size < bytes) return undefined;
    const hash = createHash("sha256");
    return hashPrefix(fd, bytes, hash) < bytes ? undefined : hash.digest("hex");
  } finally {
    closeSync(fd);
  }
}
