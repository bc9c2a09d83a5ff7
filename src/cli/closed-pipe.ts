// A reader that stops early (`tapedeck list | head -1`, a pager that quits, `grep -q`) closes the pipe while a
// command still writes: the next write fails with EPIPE, which Node raises as an 'error' event on the stream
// and, unhandled, as a crash with a stack trace. One handler for the whole program, installed by the binary
// (main.ts) before any command runs:
// - stdout closed: the program ends at once, exit 0. The reader chose to stop; what it took is what it asked
//   for, the shell's `$?` of `tapedeck … | head` is head's anyway, and with `set -o pipefail` a pager that quits
//   must not fail the pipeline. Node raises the error between ticks, never inside a synchronous step: an
//   import's batch, a promotion's write or an append is whole when the program ends (and an import goes on
//   from its cursor next time).
// - stderr closed: its notes have nowhere to go; they are dropped and the command goes on, so a closed stderr
//   never costs the output on stdout nor the command's work.

interface Stream {
  on(event: "error", listener: (error: NodeJS.ErrnoException) => void): unknown;
}

/** Whether an error is the stream's reader having gone: EPIPE, or a write after the stream was torn down for it. */
function readerGone(error: NodeJS.ErrnoException): boolean {
  return error.code === "EPIPE" || error.code === "ERR_STREAM_DESTROYED";
}

export function endQuietlyOnClosedPipe(
  stdout: Stream = process.stdout,
  stderr: Stream = process.stderr,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  stdout.on("error", (error) => {
    if (readerGone(error)) exit(0);
    else throw error;
  });
  stderr.on("error", (error) => {
    if (!readerGone(error)) throw error;
  });
}
