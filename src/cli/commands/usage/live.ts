// `tapedeck usage … --live`: the report drawn again every few seconds on the alternate screen until q or Ctrl-C
// (or the input closes), and at most for MAX_LIVE_MS. Not a terminal: the report once, as without --live, so
// `--live | tee` and a script never hang.
import type { InStream, OutStream } from "../../io.ts";

export const LIVE_INTERVAL_MS = 5000;
/** A view left open in a forgotten terminal stops reading the archive after a working day. */
export const MAX_LIVE_MS = 12 * 60 * 60 * 1000;

export interface LiveOptions {
  input: InStream & { setRawMode?: (raw: boolean) => unknown; isRaw?: boolean };
  output: OutStream;
  /** the screen's text, drawn anew each time */
  render: () => string;
  intervalMs?: number;
  maxMs?: number;
}

/** Draws `render` until quit; answers when the view is closed (at once when the output is no terminal). */
export function runLive(o: LiveOptions): Promise<void> {
  if (!o.output.isTTY || !o.input.isTTY) {
    o.output.write(o.render());
    return Promise.resolve();
  }
  const interval = o.intervalMs ?? LIVE_INTERVAL_MS;
  const deadline = Date.now() + (o.maxMs ?? MAX_LIVE_MS);
  return new Promise((resolve) => {
    const wasRaw = o.input.isRaw === true;
    let timer: NodeJS.Timeout | undefined;
    const draw = () => {
      const footer = `\nRefreshed ${new Date().toISOString().slice(11, 19)} UTC, every ${interval / 1000} s; q or Ctrl-C to quit.\n`;
      o.output.write(`\x1b[H\x1b[2J${o.render()}${footer}`);
      if (Date.now() >= deadline) stop();
      else timer = setTimeout(draw, interval);
    };
    const stop = () => {
      if (timer) clearTimeout(timer);
      o.input.off("data", onData);
      o.input.off("end", stop);
      o.input.setRawMode?.(wasRaw);
      o.input.pause();
      o.output.write("\x1b[?25h\x1b[?1049l");
      resolve();
    };
    const onData = (chunk: Buffer | string) => {
      const text = chunk.toString();
      if (text.includes("q") || text.includes("Q") || text.includes("\x03") || text.includes("\x04")) stop();
    };
    o.output.write("\x1b[?1049h\x1b[?25l");
    o.input.setRawMode?.(true);
    o.input.resume();
    o.input.on("data", onData);
    o.input.on("end", stop);
    draw();
  });
}
