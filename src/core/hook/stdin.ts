import { readSync } from "node:fs";
import { isErrno, sleepSync } from "../base/fsutil.ts";
import { MAX_HOOK_INPUT_BYTES } from "./recorder.ts";

export interface StdinRead {
  data: Buffer;
  /** the input was over the limit; it was read to the end and discarded */
  overflow: boolean;
}

/**
 * Reads stdin to EOF synchronously. A hook is short-lived and sync reads of
 * fd 0 skip the stream machinery, which is most of a hook's own start-up
 * cost. Input past the limit is read and discarded so the agent never blocks
 * writing to us. A non-blocking stdin that stays silent is given up on after
 * the deadline; a blocking pipe is closed by the agent once it has written.
 */
export function readStdinSync(limit = MAX_HOOK_INPUT_BYTES, deadlineMs = 10_000): StdinRead {
  if (process.stdin.isTTY) return { data: Buffer.alloc(0), overflow: false };
  const chunks: Buffer[] = [];
  let kept = 0;
  let overflow = false;
  const buf = Buffer.allocUnsafe(1 << 20);
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (error) {
      if (isErrno(error, "EAGAIN") && Date.now() < deadline) {
        sleepSync(2);
        continue;
      }
      if (isErrno(error, "EOF")) break;
      break;
    }
    if (n <= 0) break;
    if (overflow || kept + n > limit) {
      overflow = true;
      continue;
    }
    chunks.push(Buffer.from(buf.subarray(0, n)));
    kept += n;
  }
  return { data: overflow ? Buffer.alloc(0) : Buffer.concat(chunks, kept), overflow };
}
