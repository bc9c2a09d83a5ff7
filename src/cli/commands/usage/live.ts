// `tapedeck usage … --live`: the report drawn again every few seconds on the alternate screen until q or Ctrl-C
// (or the input closes, or a signal), and at most for MAX_LIVE_MS. Not a terminal: the report once, as without --live, so
// `--live | tee` and a script never hang.
import type { InStream, OutStream } from "../../io.ts";

export const LIVE_INTERVAL_MS = 5000;
/** A view left open in a forgotten terminal stops reading the archive after a working day. */
export const MAX_LIVE_MS = 12 * 60 * 60 * 1000;

/** The signals that end a live view, with the exit status a shell gives a process they killed (128 + n). */
const SIGNAL_EXIT = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;
type LiveSignal = keyof typeof SIGNAL_EXIT;

export interface LiveOptions {
  input: InStream & { setRawMode?: (raw: boolean) => unknown; isRaw?: boolean };
  output: OutStream;
  /** the screen's text, drawn anew each time */
  render: () => string;
  intervalMs?: number;
  maxMs?: number;
  /** where the signals come from (the process; a test's emitter) */
  signals?: Pick<NodeJS.EventEmitter, "on" | "off">;
  /** how a signal ends the process once the screen is restored */
  exit?: (code: number) => void;
}

/** Calls `end` with the exit status of the first of SIGNAL_EXIT's signals; answers the function that stops it. */
function onSignals(signals: NonNullable<LiveOptions["signals"]>, end: (code: number) => void): () => void {
  const handlers = (Object.keys(SIGNAL_EXIT) as LiveSignal[]).map((sig) => {
    const handler = () => end(SIGNAL_EXIT[sig]);
    signals.on(sig, handler);
    return () => signals.off(sig, handler);
  });
  return () => {
    for (const off of handlers) off();
  };
}

/**
 * Draws `render` until quit; answers when the view is closed (at once when the output is no terminal). However it
 * ends (q, Ctrl-C, the input closing, SIGINT, SIGTERM or SIGHUP, a render that throws), the terminal gets its
 * screen and cursor back: a view killed on the alternate screen left the shell hidden behind it, cursor off.
 */
export function runLive(o: LiveOptions): Promise<void> {
  if (!o.output.isTTY || !o.input.isTTY) {
    o.output.write(o.render());
    return Promise.resolve();
  }
  const interval = o.intervalMs ?? LIVE_INTERVAL_MS;
  const deadline = Date.now() + (o.maxMs ?? MAX_LIVE_MS);
  return new Promise((resolve, reject) => {
    const wasRaw = o.input.isRaw === true;
    let timer: NodeJS.Timeout | undefined;
    let open = true;
    const restore = () => {
      if (!open) return;
      open = false;
      if (timer) clearTimeout(timer);
      o.input.off("data", onData);
      o.input.off("end", stop);
      unlisten();
      o.input.setRawMode?.(wasRaw);
      o.input.pause();
      o.output.write("\x1b[?25h\x1b[?1049l");
    };
    const stop = () => {
      restore();
      resolve();
    };
    const draw = () => {
      let text: string;
      try {
        text = o.render();
      } catch (error) {
        restore();
        reject(error);
        return;
      }
      const footer = `\nRefreshed ${new Date().toISOString().slice(11, 19)} UTC, every ${interval / 1000} s; q or Ctrl-C to quit.\n`;
      o.output.write(`\x1b[H\x1b[2J${text}${footer}`);
      if (Date.now() >= deadline) stop();
      else timer = setTimeout(draw, interval);
    };
    const onData = (chunk: Buffer | string) => {
      const text = chunk.toString();
      if (text.includes("q") || text.includes("Q") || text.includes("\x03") || text.includes("\x04")) stop();
    };
    o.output.write("\x1b[?1049h\x1b[?25l");
    const unlisten = onSignals(o.signals ?? process, (code) => {
      restore();
      if (o.exit) o.exit(code);
      else process.exit(code);
    });
    o.input.setRawMode?.(true);
    o.input.resume();
    o.input.on("data", onData);
    o.input.on("end", stop);
    draw();
  });
}
