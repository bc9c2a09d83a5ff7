// `install --session-root DIR`: sessions hold prompts and tool output, so a
// root must be a directory (or not exist yet), must not hold the project
// itself, and must stay out of git. A root under `.tapedeck/` is covered by
// its `.gitignore` of `*`; any other root gets its own `.gitignore` of `*` at
// install, and the view warns first when git would have tracked it (a plain
// `git add -A` would otherwise commit every recorded prompt). An existing root
// must be the user's own directory, writable by nobody else (core/base/fsutil.ts's
// owner rule): every writer refuses any other, so install says so first.
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isInside, resolveSessionRoot, tapedeckDir } from "../core/archive/paths.ts";
import {
  assertOwnDir,
  ensureDir,
  FILE_MODE,
  lstatOrUndefined,
  UnsafePathError,
} from "../core/base/fsutil.ts";
import { CliError, EXIT } from "./cli-error.ts";

/** Where git stands on a path: tracked-if-added, ignored, or no repository (or no git) around it. */
export type GitView = "tracked" | "ignored" | "no-repo";

/** git's own answer (`git check-ignore`), from the nearest existing directory; no git means no repository. */
export function gitView(path: string): GitView {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  if (!lstatOrUndefined(dir)?.isDirectory()) dir = dirname(dir);
  // A file name inside the root: a root that does not exist yet is judged by the patterns that would match it.
  const probe = join(path, "events.jsonl");
  const r = spawnSync("git", ["-C", dir, "check-ignore", "-q", "--no-index", "--", probe], {
    stdio: "ignore",
    timeout: 5000,
  });
  if (r.status === 0) return "ignored";
  if (r.status === 1) return "tracked";
  return "no-repo";
}

export interface CheckedRoot {
  root: string;
  /** The root lies outside `.tapedeck/` and install writes a `.gitignore` of `*` into it. */
  needsIgnore: boolean;
  /** What git thought of it before tapedeck's `.gitignore`: "tracked" is what the view warns about. */
  git: GitView;
}

/** Validates the session root a provider will use; a usage error says what is wrong with it. */
export function checkSessionRoot(
  project: string,
  setting: string | undefined,
  provider: string,
): CheckedRoot {
  let root: string;
  try {
    root = resolveSessionRoot(project, setting, provider);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.usage);
  }
  const st = lstatOrUndefined(root);
  if (st && !st.isDirectory()) {
    throw new CliError(`session root ${root} exists and is not a directory`, EXIT.usage);
  }
  try {
    if (st) assertOwnDir(root, st);
  } catch (error) {
    if (error instanceof UnsafePathError) throw new CliError(`session root ${error.message}`, EXIT.usage);
    throw error;
  }
  if (isInside(root, project)) {
    throw new CliError(
      `session root ${root} holds the project itself; choose a directory of its own (default: .tapedeck/${provider}-sessions)`,
      EXIT.usage,
    );
  }
  if (isInside(tapedeckDir(project), root)) return { root, needsIgnore: false, git: "ignored" };
  return { root, needsIgnore: true, git: gitView(root) };
}

/** Creates the root (0700) with a `.gitignore` of `*`, so git ignores every session in it. */
export function ignoreSessionRoot(root: string): void {
  ensureDir(root, true);
  const ignore = join(root, ".gitignore");
  if (!lstatOrUndefined(ignore)) writeFileSync(ignore, "*\n", { mode: FILE_MODE, flag: "wx" });
}
