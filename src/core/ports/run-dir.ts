// The directory of a run file (a server's "how to reach me" under the user's tapedeck home): the hook server's
// and the viewer's. Refused when it is a symlink or another user's: whoever owns it could replace what is
// announced there and steer a client to their own port.
import { join } from "node:path";
import { ensureDir, lstatOrUndefined } from "../base/fsutil.ts";

/** Creates the run directory (0700) of a run file, refusing a symlinked one. */
export function ensureRunDir(path: string): string {
  const dir = join(path, "..");
  const st = lstatOrUndefined(dir);
  if (st?.isSymbolicLink()) throw new Error("the run directory is a symlink");
  // Another user's directory (a shared TAPEDECK_HOME).
  if (st && typeof process.getuid === "function" && st.uid !== process.getuid()) {
    throw new Error("the run directory belongs to another user");
  }
  if (!st) ensureDir(dir);
  return dir;
}
