// What an agent appended to a file of its own since a hook last read it (Claude's transcript, Codex's rollout):
// the caller keeps the offset, a read takes a bounded window of complete lines (the agent may be mid-write) and
// never blocks or fails the hook.
import { closeSync, constants, fstatSync } from "node:fs";
import { scanLines } from "../core/archive/line-scan.ts";
import { openRegularSync } from "../core/base/fsutil.ts";

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export interface LineSink {
  add(line: Buffer): void;
}

/**
 * Feeds the complete lines from `fromOffset` on, at most `maxBytes` of them, to the sink `open` makes for the
 * read's start: `fromOffset`, or 0 when the file is now smaller than it (rewritten or replaced). Answers where
 * the next read starts, with the sink; undefined when the file could not be opened or read.
 */
export function readAppendedLines<S extends LineSink>(
  path: string,
  fromOffset: number,
  maxBytes: number,
  open: (start: number) => S,
): { offset: number; sink: S } | undefined {
  let fd: number;
  try {
    // The agent's own file, so a symlink is followed; but a FIFO planted there must not block the hook.
    fd = openRegularSync(path, constants.O_RDONLY, undefined, true);
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const start = Number.isSafeInteger(fromOffset) && fromOffset >= 0 && fromOffset <= size ? fromOffset : 0;
    const window = Number.isFinite(maxBytes) && maxBytes >= 1 ? Math.floor(maxBytes) : DEFAULT_MAX_BYTES;
    const end = Math.min(size, start + window);
    const sink = open(start);
    const lineEnd = scanLines(fd, start, (line) => sink.add(line.bytes), { end, completeOnly: true });
    // A line longer than the whole window would pin the offset forever. Skip past the window instead; the rest
    // of that line then fails to parse as JSON on the next call and is dropped like any malformed line.
    const offset = lineEnd === start && end < size ? end : lineEnd;
    return { offset, sink };
  } catch {
    // Best effort: a read error must never fail the hook.
    return undefined;
  } finally {
    closeSync(fd);
  }
}
