// The `tapedeck` binary (dist/cli.js): runs the program of ./program.ts.

import { endQuietlyOnClosedPipe } from "./closed-pipe.ts";
import { main } from "./program.ts";

endQuietlyOnClosedPipe();

main(process.argv).then((code) => {
  process.exitCode = code;
});
