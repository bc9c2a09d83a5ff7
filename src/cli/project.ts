// Which project a command acts on. One rule for every command, so that
// `status`, `record`, `install`, `uninstall`, `list`, `doctor`... run from
// `proj/src` all mean `proj`: `--project DIR`, exactly; else the project of
// the cwd by the rule of core/archive/project-root.ts (the nearest `.tapedeck/config.json`,
// else the git root, else the cwd).
import { resolveProjectRoot } from "../core/archive/paths.ts";
import { projectOfDir } from "../core/archive/project-root.ts";
import { CliError, EXIT } from "./cli-error.ts";

export type ProjectSource = "option" | "tapedeck" | "git" | "cwd";

export interface LocatedProject {
  root: string;
  /** How it was found: `git` means the cwd was below the root and nothing was installed above it. */
  source: ProjectSource;
  /** The real cwd the search started from. */
  cwd: string;
}

export function locateProject(dir: string | undefined, cwd: string = process.cwd()): LocatedProject {
  let start: string;
  try {
    start = resolveProjectRoot(dir ?? cwd);
  } catch {
    throw new CliError(`project directory not found: ${dir ?? cwd}`, EXIT.usage);
  }
  if (dir) return { root: start, source: "option", cwd: start };
  return { ...projectOfDir(start), cwd: start };
}

/** The project root by the rule above. */
export function projectRoot(dir: string | undefined): string {
  return locateProject(dir).root;
}
