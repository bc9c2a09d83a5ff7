import { MAX_HOOK_INPUT_BYTES } from "./recorder.ts";

/**
 * Reads stdin to EOF, keeping at most the hook input limit (the rest is read
 * and discarded so the agent never blocks writing to us), and gives up after
 * a deadline in case the agent never closes the pipe.
 */
export function readStdinBounded(
  limit = MAX_HOOK_INPUT_BYTES,
  deadlineMs = 10_000,
): Promise<{ data: Buffer; overflow: boolean }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let overflow = false;
    const finish = () => {
      clearTimeout(timer);
      process.stdin.removeAllListeners();
      process.stdin.pause();
      resolve({ data: overflow ? Buffer.alloc(0) : Buffer.concat(chunks, kept), overflow });
    };
    const timer = setTimeout(finish, deadlineMs);
    timer.unref();
    process.stdin.on("data", (chunk: Buffer) => {
      if (kept + chunk.length > limit) {
        overflow = true;
        return;
      }
      chunks.push(chunk);
      kept += chunk.length;
    });
    process.stdin.on("end", finish);
    process.stdin.on("error", finish);
  });
}
