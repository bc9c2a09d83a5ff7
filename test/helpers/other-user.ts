// Another local user, for the tests of the owner rule. The suite runs as root (as CI does), so a directory or
// file chowned to nobody (65534) is exactly what another user would have left. Without root nothing can be
// given away: only the cases that need it do not run there (CI runs them).
import { chownSync, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

export const OTHER_UID = 65534;

/** Whether this process can give a file to another user. */
export const CAN_CHOWN = process.getuid?.() === 0;

/** Makes each path another user's, as if they had made it. */
export function giveToOtherUser(...paths: string[]): void {
  for (const path of paths) chownSync(path, OTHER_UID, OTHER_UID);
}

/** Makes `dir` and everything below it another user's. */
export function giveTreeToOtherUser(dir: string): void {
  giveToOtherUser(dir);
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (lstatSync(path).isDirectory()) giveTreeToOtherUser(path);
    else giveToOtherUser(path);
  }
}

/** Every path under `dir` with its size and mode: what a test compares to see that nothing was written. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const st = lstatSync(path);
      out[path] = `${st.isDirectory() ? "dir" : st.size} ${st.uid} ${(st.mode & 0o777).toString(8)}`;
      if (st.isDirectory()) walk(path);
    }
  };
  walk(dir);
  return out;
}
