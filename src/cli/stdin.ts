// What a command reads on its standard input: the run's stdin (./io.ts), never fd 0 itself. A read of fd 0
// (readFileSync(0), the hook's readStdinSync) takes the process's own input whatever stream the command was
// handed, so a command run in process read its caller's stdin, or waited on it.
import { io } from "./io.ts";

export interface Input {
  data: Buffer;
  /** More than the limit came: it was read to the end and dropped, so the writer never blocks on us. */
  overflow: boolean;
}

/**
 * The run's stdin to its end, up to `limit` bytes; nothing from a terminal. Given a deadline, a stdin that stays
 * open is given up on after it with what came, as the hook's own reader gives up on a silent one.
 */
export function readInput(limit = Number.POSITIVE_INFINITY, deadlineMs?: number): Promise<Input> {
  const stdin = io().stdin;
  if (stdin.isTTY) return Promise.resolve({ data: Buffer.alloc(0), overflow: false });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let overflow = false;
    const done = () => {
      clearTimeout(timer);
      stdin.off("data", onData).off("end", done).off("error", onError);
      stdin.pause();
      resolve({ data: overflow ? Buffer.alloc(0) : Buffer.concat(chunks, kept), overflow });
    };
    const onData = (chunk: Buffer | string) => {
      const b = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      if (overflow || kept + b.length > limit) {
        overflow = true;
        return;
      }
      chunks.push(b);
      kept += b.length;
    };
    const onError = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    const timer = deadlineMs === undefined ? undefined : setTimeout(done, deadlineMs);
    timer?.unref();
    stdin.on("data", onData).once("end", done).once("error", onError);
  });
}

/** The run's stdin to its end as UTF-8 text. */
export async function readInputText(): Promise<string> {
  return (await readInput()).data.toString("utf8");
}
