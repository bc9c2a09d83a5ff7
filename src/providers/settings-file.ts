// An agent's JSON settings file as tapedeck edits it: read whole, changed in
// memory, written back atomically. A file tapedeck cannot understand is never
// overwritten.
import { chmodSync, lstatSync, realpathSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { isInside } from "../core/archive/paths.ts";
import { ensureDir, isErrno, writeFileAtomicSync } from "../core/base/fsutil.ts";
import { readAgentFileText } from "./agent-file.ts";
import type { Settings } from "./installer.ts";
import { isRecord } from "./shared.ts";

/** The file's object; `{}` when it is missing or empty. Throws an Error whose message is for the user. */
export function readSettingsFile(path: string): Settings {
  let text: string;
  try {
    text = readAgentFileText(path);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return {};
    throw new Error(`cannot read ${path}`);
  }
  if (text.trim() === "") return {};
  try {
    const value = JSON.parse(text) as unknown;
    if (isRecord(value)) return value;
  } catch {
    // below: never overwrite a file we could not understand
  }
  throw new Error(`${path} is not a JSON object; fix it first, tapedeck will not overwrite it`);
}

export function writeSettingsFile(path: string, settings: Settings, within?: string): void {
  writeAgentFile(path, `${JSON.stringify(settings, null, 2)}\n`, within);
}

/**
 * Replaces an agent's config file atomically. A symlinked file (dotfile managers) is written at its target, so
 * the link stays; but with `within` (a project), only a target inside it: a repository cannot make tapedeck
 * write elsewhere by committing a link. An existing file keeps its mode; a new one is private (0600).
 */
export function writeAgentFile(path: string, text: string, within?: string): void {
  let target = path;
  let linked = false;
  try {
    linked = lstatSync(path).isSymbolicLink();
  } catch {
    linked = false;
  }
  if (linked) {
    try {
      target = realpathSync(path);
    } catch {
      throw new Error(`${path} is a symlink to nothing; fix it first, tapedeck will not write through it`);
    }
    if (within !== undefined && !isInside(realpathOr(within), target)) {
      throw new Error(`${path} is a symlink to outside ${within}; tapedeck will not write through it`);
    }
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

/**
 * An agent's config file that tapedeck's removal left with nothing in it: deleted, or, when it is a symlink,
 * emptied at its target (the link is the user's).
 */
export function removeAgentFile(path: string, within?: string): void {
  let linked = false;
  try {
    linked = lstatSync(path).isSymbolicLink();
  } catch {
    return;
  }
  if (linked) writeAgentFile(path, "", within);
  else rmSync(path, { force: true });
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
