// Where a session lives, derived so that no session id, symlink or relative
// path can move a write outside the session root.
import { createHash } from "node:crypto";
import { existsSync, realpathSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { ensureDir, FILE_MODE, lstatOrUndefined } from "./fsutil.ts";

export const TAPEDECK_DIR = ".tapedeck";

export class UnsafePathError extends Error {
  override name = "UnsafePathError";
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * Directory name for a session id: a safe id passes unchanged so that people
 * can find their sessions by id; anything else (separators, `..`, control
 * characters, very long ids) becomes a stable hash.
 */
export function sessionDirName(id: string): string {
  if (SAFE_ID.test(id) && !id.includes("..")) return id;
  return `h-${createHash("sha256").update(id).digest("hex").slice(0, 32)}`;
}

/** The project root with every symlink resolved; throws if it does not exist. */
export function resolveProjectRoot(dir: string): string {
  return realpathSync(resolve(dir));
}

export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

export function tapedeckDir(projectRoot: string): string {
  return join(projectRoot, TAPEDECK_DIR);
}

/** Creates `.tapedeck/` (0700) with a `.gitignore` of `*`, refusing a symlinked one. */
export function ensureTapedeckDir(projectRoot: string): string {
  const dir = tapedeckDir(projectRoot);
  const st = lstatOrUndefined(dir);
  if (st?.isSymbolicLink())
    throw new UnsafePathError(`${TAPEDECK_DIR} is a symlink; refusing to write through it`);
  if (!st) ensureDir(dir);
  const ignore = join(dir, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, "*\n", { mode: FILE_MODE, flag: "wx" });
  return dir;
}

export function defaultSessionRoot(projectRoot: string, provider: string): string {
  return join(tapedeckDir(projectRoot), `${sessionDirName(provider)}-sessions`);
}

/**
 * Resolves a configured session root (relative to the project) and refuses a
 * root that is a symlink leading elsewhere: following it would let a planted
 * link redirect every write.
 */
export function resolveSessionRoot(
  projectRoot: string,
  configured: string | undefined,
  provider: string,
): string {
  const root = configured ? resolve(projectRoot, configured) : defaultSessionRoot(projectRoot, provider);
  const st = lstatOrUndefined(root);
  if (st?.isSymbolicLink()) {
    const target = realpathSync(root);
    if (target !== root) throw new UnsafePathError("session root is a symlink; refusing to follow it");
  }
  return root;
}

/** Creates (if needed) and returns the session directory, refusing symlinks. */
export function ensureSessionDir(sessionRoot: string, dirName: string): string {
  if (dirName !== sessionDirName(dirName)) throw new UnsafePathError("unsafe session directory name");
  const rootSt = lstatOrUndefined(sessionRoot);
  if (rootSt?.isSymbolicLink()) throw new UnsafePathError("session root is a symlink; refusing to follow it");
  if (!rootSt) ensureDir(sessionRoot);
  const dir = join(sessionRoot, dirName);
  const st = lstatOrUndefined(dir);
  if (st?.isSymbolicLink())
    throw new UnsafePathError("session directory is a symlink; refusing to follow it");
  if (st && !st.isDirectory()) throw new UnsafePathError("session path exists and is not a directory");
  if (!st) ensureDir(dir);
  return dir;
}

export const SESSION_FILES = {
  manifest: "manifest.json",
  events: "events.jsonl",
  checksums: "checksums.json",
  recovery: "recovery.json",
  state: "state.json",
  ids: "ids.bin",
  lock: "lock",
  breaker: "lock.break",
  pending: "pending",
  diagnostics: "diagnostics.json",
  providerState: "provider-state.json",
} as const;
