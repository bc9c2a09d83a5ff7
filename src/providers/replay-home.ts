// Copying what a CLI needs from the user's config root into a run's own, safely: regular files only (a
// symlink or FIFO planted there is skipped, never followed), bounded, written 0600 through fsutil.
import { join } from "node:path";
import { ensureDir, readRegularFileSync, writeFileAtomicSync } from "../core/base/fsutil.ts";

const MAX_COPIED_BYTES = 8 * 1024 * 1024;

/** The file's bytes, or undefined when it is absent, not a regular file or too large. */
export function readUserFile(path: string): Buffer | undefined {
  try {
    return readRegularFileSync(path, MAX_COPIED_BYTES);
  } catch {
    return undefined;
  }
}

/** Copies `name` from `fromDir` to `toDir` (0600); answers the destination when there was a file. */
export function copyUserFile(fromDir: string, toDir: string, name: string): string | undefined {
  const data = readUserFile(join(fromDir, name));
  if (data === undefined) return undefined;
  ensureDir(toDir);
  const dest = join(toDir, name);
  writeFileAtomicSync(dest, data);
  return dest;
}

export function readUserJson(path: string): Record<string, unknown> | undefined {
  const data = readUserFile(path);
  if (!data) return undefined;
  try {
    const value = JSON.parse(data.toString("utf8")) as unknown;
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function writeRunJson(path: string, value: unknown): void {
  writeFileAtomicSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** A JSON object field, or a fresh one. */
export function objectField(record: Record<string, unknown>, key: string): Record<string, unknown> {
  const value = record[key];
  if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  const fresh: Record<string, unknown> = {};
  record[key] = fresh;
  return fresh;
}

export function parseJsonOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A finite non-negative number, else undefined. */
export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
