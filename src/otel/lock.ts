// One exporter per project at a time: the hook server's background run and a `tapedeck otel export` typed
// meanwhile would otherwise both send the same turns before either moved the watermark. The lock is a file
// created exclusively (0600) holding its owner's pid; one whose owner is gone is taken over.
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ensureTapedeckDir, tapedeckDir } from "../core/archive/paths.ts";
import { ensureRealDirUnder, isErrno, readRegularFileSync, unlinkQuietly } from "../core/base/fsutil.ts";
import { processExists } from "../core/base/pids.ts";
import { OTEL_DIR } from "./watermark.ts";

export interface ExportLock {
  release(): void;
}

/** The lock, or the pid of the live process holding it. */
export function tryExportLock(projectRoot: string): ExportLock | { heldBy: number } {
  ensureTapedeckDir(projectRoot);
  const dir = join(tapedeckDir(projectRoot), OTEL_DIR);
  ensureRealDirUnder(projectRoot, dir, true);
  const path = join(dir, "export.lock");
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(
        path,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => unlinkQuietly(path) };
    } catch (error) {
      if (!isErrno(error, "EEXIST")) throw error;
    }
    let pid = 0;
    try {
      pid = Number.parseInt(readRegularFileSync(path, 64).toString("utf8"), 10);
    } catch {
      // unreadable or a planted link: treated as stale
    }
    if (pid > 0 && pid !== process.pid && processExists(pid)) return { heldBy: pid };
    unlinkQuietly(path);
  }
  return { heldBy: 0 };
}
