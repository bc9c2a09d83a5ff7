// An agent's JSON settings file as tapedeck edits it: read whole, changed in
// memory, written back atomically. A file tapedeck cannot understand is never
// overwritten.
import { readFileSync } from "node:fs";
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
  ensureDir(dirname(path));
  writeFileAtomicSync(path, `${JSON.stringify(settings, null, 2)}\n`);
}
