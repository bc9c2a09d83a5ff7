// The progress line of a long index update (search and index update share it): on stderr, at most once a
// second, and only once an update has run two seconds, so a quick one prints nothing.
import type { IndexProgress } from "../memory/index/index.ts";
import { io } from "./io.ts";

/** Progress of a long index update on stderr, at most once a second, only after the first two seconds. */
export function progressPrinter(): ((p: IndexProgress) => void) & { done(): void } {
  const started = Date.now();
  let last = 0;
  let printed = false;
  const tty = io().stderr.isTTY === true;
  const fn = (p: IndexProgress) => {
    const now = Date.now();
    if (now - started < 2000 || now - last < 1000) return;
    last = now;
    printed = true;
    const pct = p.bytesTotal > 0 ? Math.floor((100 * p.bytesDone) / p.bytesTotal) : 100;
    const line = `tapedeck: indexing ${mb(p.bytesDone)} of ${mb(p.bytesTotal)} MB (${pct}%), session ${p.sessionsDone + 1} of ${p.sessionsTotal}`;
    io().stderr.write(tty ? `\r${line}` : `${line}\n`);
  };
  return Object.assign(fn, {
    done() {
      if (printed && tty) io().stderr.write("\n");
    },
  });
}

function mb(n: number): string {
  return (n / 1024 / 1024).toFixed(1);
}
