// Reading a file an agent owns (its settings, config.toml, auth.json, a
// repository's .git/HEAD). Such a file may legitimately be a symlink (dotfile
// managers), so the link is followed; but its target must be a regular file
// of bounded size, opened without blocking: a FIFO planted as a settings file
// hung `install`, `doctor` and the hook with a plain readFileSync.
import { MAX_SMALL_FILE_BYTES, readRegularFileSync } from "../core/base/fsutil.ts";

/**
 * The file's text. Throws the open's errno error (ENOENT for a missing file,
 * as readFileSync does) or UnsafePathError for a FIFO, device, directory or
 * oversized file.
 */
export function readAgentFileText(path: string, maxBytes: number = MAX_SMALL_FILE_BYTES): string {
  return readRegularFileSync(path, maxBytes, true).toString("utf8");
}
