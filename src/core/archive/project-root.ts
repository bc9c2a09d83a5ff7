// Which project a directory belongs to, by the one rule of the CLI (src/cli/project.ts) and of `tapedeck
// import --all-projects`, which finds the project of each session from the cwd the agent recorded:
//   1. the nearest directory at or above it holding `.tapedeck/config.json` (a corrupt one counts: it is
//      reported, never silently skipped);
//   2. else the git root (the nearest `.git`, a directory or a worktree's file);
//   3. else the directory itself.
// Only `.tapedeck/config.json` marks a project: `~/.tapedeck` (the per-user registry) has none, so a home
// directory is never taken for a project by accident.
import { join } from "node:path";
import { lstatOrUndefined } from "../base/fsutil.ts";
import { TAPEDECK_DIR } from "./paths.ts";

export type ProjectSource = "tapedeck" | "git" | "cwd";

/** Deep enough for any real tree; a bound keeps a pathological loop from spinning. */
const MAX_DEPTH = 256;

function ancestors(start: string): string[] {
  const out: string[] = [];
  let dir = start;
  for (let i = 0; i < MAX_DEPTH; i += 1) {
    out.push(dir);
    const parent = join(dir, "..");
    if (parent === dir) break;
    dir = parent;
  }
  return out;
}

function holdsConfig(dir: string): boolean {
  return lstatOrUndefined(join(dir, TAPEDECK_DIR, "config.json")) !== undefined;
}

function holdsGit(dir: string): boolean {
  return lstatOrUndefined(join(dir, ".git")) !== undefined;
}

/** The project of `start`, an existing directory with every symlink already resolved. */
export function projectOfDir(start: string): { root: string; source: ProjectSource } {
  const chain = ancestors(start);
  const installed = chain.find(holdsConfig);
  if (installed) return { root: installed, source: "tapedeck" };
  const git = chain.find(holdsGit);
  if (git) return { root: git, source: "git" };
  return { root: start, source: "cwd" };
}
