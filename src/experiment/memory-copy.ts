// A retrieval arm's own memory store: a copy of the project's `.tapedeck/memory.sqlite` (and its WAL, which
// may hold the latest promotions) taken by reading the files only. Opening the user's store, even read-only,
// may create its -shm file: a write outside the experiment root. SQLite replays the copied WAL on first open.
import { chmodSync, copyFileSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { tapedeckDir } from "../core/archive/paths.ts";
import { FILE_MODE } from "../core/base/fsutil.ts";
import { copyUserFile } from "../providers/replay-home.ts";

const STORE = "memory.sqlite";

function regularFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** Answers whether there was a store to copy. */
export function copyMemoryStore(project: string, work: string): boolean {
  const from = tapedeckDir(project);
  const to = tapedeckDir(work);
  if (!regularFile(join(from, STORE))) return false;
  for (const name of [STORE, `${STORE}-wal`]) {
    // lstat first: a symlink planted in place of the store is not followed into someone else's file.
    if (!regularFile(join(from, name))) continue;
    copyFileSync(join(from, name), join(to, name));
    chmodSync(join(to, name), FILE_MODE);
  }
  return true;
}

/**
 * The key that proves a memory file is this user's (memory/store/origin.ts: an HMAC under a key in the user's
 * tapedeck home): the copied store is checked under the run's HOME, so the run's tapedeck home needs the same
 * key, or retrieval would refuse the copy as foreign. Copied 0600 and removed with the credentials; the
 * user's tapedeck home itself is never the run's (its registry would take the replays' writes).
 */
export function copyMemoryKey(
  userEnv: Record<string, string | undefined>,
  runHome: string,
): string | undefined {
  const userHome = userEnv.TAPEDECK_HOME || (userEnv.HOME ? join(userEnv.HOME, ".tapedeck") : undefined);
  if (!userHome) return undefined;
  return copyUserFile(userHome, join(runHome, ".tapedeck"), "memory.key");
}
