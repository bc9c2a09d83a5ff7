// The files a scenario's validators need that a clone at the revision lacks (an uncommitted fixture, a
// local config): copied from the project into a replay's work tree before its validators run. Only
// regular files reached without a symlink, inside the project, bounded; a file the agent wrote is kept.
import { constants, copyFileSync, lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { isInside } from "../core/archive/paths.ts";
import { ensureRealDirUnder, lstatOrUndefined } from "../core/base/fsutil.ts";

const MAX_FILE_BYTES = 16 * 1024 * 1024;

/** Notes for the result: what was not copied, and why. */
export function copyWorkspaceFiles(project: string, work: string, files: readonly string[]): string[] {
  const notes: string[] = [];
  for (const rel of files) {
    const from = join(project, rel);
    const to = join(work, rel);
    if (!isInside(project, from) || !isInside(work, to)) {
      notes.push(`workspace file ${rel}: not inside the project`);
      continue;
    }
    if (lstatOrUndefined(to)) continue;
    try {
      if (!ensureRealDirUnder(project, dirname(from), false)) throw new Error("not a directory");
      const st = lstatSync(from);
      if (!st.isFile()) throw new Error("not a regular file");
      if (st.size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
      ensureRealDirUnder(work, dirname(to), true);
      // EXCL: a file that appeared meanwhile (or a planted symlink) is not written through.
      copyFileSync(from, to, constants.COPYFILE_EXCL);
    } catch (error) {
      notes.push(
        `workspace file ${rel}: not copied (${error instanceof Error ? error.message : "unreadable"})`,
      );
    }
  }
  return notes;
}
