// An agent's JSON settings file as tapedeck edits it: read whole, changed in
// memory, written back atomically. A file tapedeck cannot understand is never
// overwritten.
import { chmodSync, lstatSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { ensureDir, isErrno, writeFileAtomicSync } from "../core/fsutil.ts";
import type { Settings } from "./installer.ts";

/** The file's object; `{}` when it is missing or empty. Throws an Error whose message is for the user. */
export function readSettingsFile(path: string): Settings {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (isErrno(error, "ENOENT")) return {};
    throw new Error(`cannot read ${path}`);
  }
  if (text.trim() === "") return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Settings;
  } catch {
    // below: never overwrite a file we could not understand
  }
  throw new Error(`${path} is not a JSON object; fix it first, tapedeck will not overwrite it`);
}

export function writeSettingsFile(path: string, settings: Settings): void {
  writeAgentFile(path, `${JSON.stringify(settings, null, 2)}\n`);
}

/**
 * Replaces an agent's config file atomically. A symlinked file (dotfile managers) is written at its target,
 * so the link stays; an existing file keeps its mode; a new one is private (0600).
 */
export function writeAgentFile(path: string, text: string): void {
  let target = path;
  try {
    if (lstatSync(path).isSymbolicLink()) target = realpathSync(path);
  } catch {
    // missing, or a dangling link: written as a new file at the path
  }
  let mode: number | undefined;
  try {
    mode = statSync(target).mode & 0o777;
  } catch {
    mode = undefined;
  }
  ensureDir(dirname(target));
  writeFileAtomicSync(target, text);
  if (mode !== undefined && mode !== 0o600) chmodSync(target, mode);
}

/** Removes an agent's config file that tapedeck's removal left empty (never through a symlink). */
export function removeAgentFile(path: string): void {
  try {
    if (lstatSync(path).isSymbolicLink()) return;
  } catch {
    return;
  }
  rmSync(path, { force: true });
}
