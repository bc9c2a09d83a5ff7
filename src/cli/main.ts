// The `tapedeck` binary (dist/cli.js): runs the program of ./program.ts.

import { EXIT } from "./cli-error.ts";
import { endQuietlyOnClosedPipe } from "./closed-pipe.ts";
import { main } from "./program.ts";

endQuietlyOnClosedPipe();

main(process.argv).then((code) => {
  // A command that runs another program (`run`) sets that program's exit code itself.
  if (code !== EXIT.ok || process.exitCode === undefined) process.exitCode = code;
});
