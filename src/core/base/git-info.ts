// Repository revision and branch read straight from .git, because spawning
// `git` would add several milliseconds to every session's first hook.
import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { readRegularFileSync } from "./fsutil.ts";

/** A FIFO planted as .git/HEAD would block the session's first hook: regular files only, bounded. */
const MAX_GIT_FILE_BYTES = 16 * 1024 * 1024;

function read(path: string): string | undefined {
  try {
    return readRegularFileSync(path, MAX_GIT_FILE_BYTES, true).toString("utf8");
  } catch {
    return undefined;
  }
}

function gitDir(projectRoot: string): string | undefined {
  const dotGit = join(projectRoot, ".git");
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
  } catch {
    return undefined;
  }
  // A worktree or submodule: `.git` is a file pointing at the real directory.
  const pointer = read(dotGit)?.match(/^gitdir:\s*(.+)\s*$/m)?.[1];
  return pointer ? resolve(projectRoot, pointer) : undefined;
}

export function gitInfo(projectRoot: string): { revision: string | null; branch: string | null } {
  const dir = gitDir(projectRoot);
  if (!dir) return { revision: null, branch: null };
  const head = read(join(dir, "HEAD"))?.trim();
  if (!head) return { revision: null, branch: null };
  if (/^[0-9a-f]{40,64}$/.test(head)) return { revision: head, branch: null };
  const ref = head.match(/^ref:\s*(refs\/\S+)$/)?.[1];
  if (!ref) return { revision: null, branch: null };
  const branch = ref.replace(/^refs\/heads\//, "");
  const commonDir = read(join(dir, "commondir"))?.trim();
  const roots = [dir, ...(commonDir ? [resolve(dir, commonDir)] : [])];
  for (const root of roots) {
    const loose = read(join(root, ref))?.trim();
    if (loose && /^[0-9a-f]{40,64}$/.test(loose)) return { revision: loose, branch };
    const packed = read(join(root, "packed-refs"));
    const line = packed?.split("\n").find((l) => l.endsWith(` ${ref}`));
    if (line) return { revision: line.split(" ")[0] ?? null, branch };
  }
  return { revision: null, branch };
}
