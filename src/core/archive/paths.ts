// Where a session lives, derived so that no session id, symlink or relative
// path can move a write outside the session root.
import { createHash } from "node:crypto";
import { realpathSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import {
  assertOwnDir,
  assertOwnFile,
  ensureDir,
  ensureOwnDirUnder,
  ensureRealDirUnder,
  FILE_MODE,
  lstatOrUndefined,
  UnsafePathError,
} from "../base/fsutil.ts";

export { UnsafePathError };

export const TAPEDECK_DIR = ".tapedeck";

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

/**
 * Creates `.tapedeck/` (0700) with a `.gitignore` of `*`, refusing a symlinked one, one in a project another
 * user owns, and one that is not the user's private directory (fsutil's owner rule).
 */
export function ensureTapedeckDir(projectRoot: string): string {
  const dir = tapedeckDir(projectRoot);
  ensureOwnDirUnder(projectRoot, dir, true);
  writeGitignore(dir);
  return dir;
}

function writeGitignore(dir: string): void {
  const ignore = join(dir, ".gitignore");
  // lstat, not exists: a dangling symlink planted as .gitignore must not make every hook fail with EEXIST.
  if (!lstatOrUndefined(ignore)) {
    try {
      writeFileSync(ignore, "*\n", { mode: FILE_MODE, flag: "wx" });
    } catch {
      // a concurrent writer created it first
    }
  }
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

/**
 * Creates (if needed) and returns the session directory, refusing symlinks
 * and directories that are not the user's own (fsutil's owner rule). Given
 * the project root, a session root inside the project is checked component by
 * component from the project down (a symlinked `.tapedeck` included), so every
 * caller (hook, proxy feed, CLI) obeys the same rule; a session root elsewhere
 * must itself be the user's private directory.
 */
export function ensureSessionDir(sessionRoot: string, dirName: string, projectRoot?: string): string {
  if (dirName !== sessionDirName(dirName)) throw new UnsafePathError("unsafe session directory name");
  const dir = join(sessionRoot, dirName);
  if (projectRoot !== undefined && isInside(projectRoot, sessionRoot)) {
    // One lstat per component on the hot path; a .tapedeck created here gets its .gitignore at once.
    // So does a session root of its own (outside .tapedeck) recreated after the user removed it: sessions hold
    // prompts, and a plain `git add -A` must not commit them.
    const tapedeck = tapedeckDir(projectRoot);
    const ownRoot = !isInside(tapedeck, sessionRoot);
    ensureRealDirUnder(projectRoot, dir, true, (created) => {
      if (created === tapedeck || (ownRoot && created === sessionRoot)) writeGitignore(created);
    });
    return dir;
  }
  const rootSt = lstatOrUndefined(sessionRoot);
  if (rootSt?.isSymbolicLink()) throw new UnsafePathError("session root is a symlink; refusing to follow it");
  if (!rootSt) {
    ensureDir(sessionRoot, true);
    writeGitignore(sessionRoot);
  } else {
    if (!rootSt.isDirectory()) throw new UnsafePathError(`${sessionRoot} is not a directory`);
    assertOwnDir(sessionRoot, rootSt);
  }
  ensureRealDirUnder(sessionRoot, dir, true);
  return dir;
}

/**
 * Why a writer could not write a session into `sessionDir` (without one, into `sessionRoot`): an
 * UnsafePathError (a symlink, another user's project or directory, a directory others can write, an
 * events.jsonl that is not the user's private file), or undefined. Creates and opens nothing: `tapedeck import`
 * plans with it, so that such a project is reported up front instead of failing halfway, and `doctor` says it.
 * Advisory: the writer checks again on what it opens.
 */
export function sessionWriteProblem(
  projectRoot: string,
  sessionRoot: string,
  sessionDir?: string,
): UnsafePathError | undefined {
  try {
    const inside = isInside(projectRoot, sessionRoot);
    if (!inside) {
      const st = lstatOrUndefined(sessionRoot);
      if (!st) return undefined;
      if (st.isSymbolicLink()) return new UnsafePathError("session root is a symlink; refusing to follow it");
      if (!st.isDirectory()) return new UnsafePathError(`${sessionRoot} is not a directory`);
      assertOwnDir(sessionRoot, st);
    }
    const found = ensureOwnDirUnder(inside ? projectRoot : sessionRoot, sessionDir ?? sessionRoot, false);
    if (!found || sessionDir === undefined) return undefined;
    const events = join(sessionDir, SESSION_FILES.events);
    const st = lstatOrUndefined(events);
    if (st && !st.isFile()) return new UnsafePathError(`${events} is not a regular file`);
    if (st) assertOwnFile(events, st);
    return undefined;
  } catch (error) {
    if (error instanceof UnsafePathError) return error;
    throw error;
  }
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
  // `tapedeck import`: how far each of the agent's files was read (src/import/cursor.ts).
  importCursor: "import-cursor.json",
} as const;
