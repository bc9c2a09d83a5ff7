// Which project a command acts on. One rule for every command, so that
// `status`, `record`, `install`, `uninstall`, `list`, `doctor`... run from
// `proj/src` all mean `proj`:
//   1. `--project DIR`, exactly;
//   2. else the nearest directory at or above the cwd holding `.tapedeck/config.json`
//      (a corrupt one counts: it is reported, never silently skipped);
//   3. else the git root (the nearest `.git`, a directory or a worktree's file);
//   4. else the cwd.
// Only `.tapedeck/config.json` marks a project: `~/.tapedeck` (the per-user registry)
// has none, so a home directory is never taken for a project by accident.
import { join } from "node:path";
import { lstatOrUndefined } from "../core/fsutil.ts";
import { resolveProjectRoot, TAPEDECK_DIR } from "../core/paths.ts";
import { CliError, EXIT } from "./errors.ts";

export type ProjectSource = "option" | "tapedeck" | "git" | "cwd";

export interface LocatedProject {
  root: string;
  /** How it was found: `git` means the cwd was below the root and nothing was installed above it. */
  source: ProjectSource;
  /** The real cwd the search started from. */
  cwd: string;
}

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

export function locateProject(dir: string | undefined, cwd: string = process.cwd()): LocatedProject {
  let start: string;
  try {
    start = resolveProjectRoot(dir ?? cwd);
  } catch {
    throw new CliError(`project directory not found: ${dir ?? cwd}`, EXIT.usage);
  }
  if (dir) return { root: start, source: "option", cwd: start };
  const chain = ancestors(start);
  const installed = chain.find(holdsConfig);
  if (installed) return { root: installed, source: "tapedeck", cwd: start };
  const git = chain.find(holdsGit);
  if (git) return { root: git, source: "git", cwd: start };
  return { root: start, source: "cwd", cwd: start };
}

/** The project root by the rule above. */
export function projectRoot(dir: string | undefined): string {
  return locateProject(dir).root;
}
