// A run's own copy of the project and its own config root, under the experiment root only. The project is
// a shared clone at the baseline's revision, not a `git worktree`: a worktree registers itself in the
// user's .git/worktrees (a write outside the experiment root, left behind by a crashed run); a clone with
// --shared borrows the user's objects read-only and writes nothing outside its own directory.
import { execFileSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, lstatSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureDir, unlinkQuietly } from "../core/base/fsutil.ts";

export class IsolationError extends Error {
  override name = "IsolationError";
}

export interface WorkTree {
  dir: string;
  /** "clone" at `revision`, or "copy" of the project as it is (no git, or no recorded revision). */
  kind: "clone" | "copy";
  revision: string | null;
  /** Things a reader of the results must know (a copy, a dirty tree). */
  notes: string[];
}

function git(args: string[], cwd: string): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    // The user's hooks and templates have no say in a clone made for an experiment.
    env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_TEMPLATE_DIR: "" },
  }).trim();
}

function isGitRepo(dir: string): boolean {
  try {
    return git(["rev-parse", "--is-inside-work-tree"], dir) === "true";
  } catch {
    return false;
  }
}

/** Paths never copied into a run: the recordings, dependencies and git's own data. */
const NOT_COPIED = new Set([".git", ".tapedeck", "node_modules"]);

/** Refuses, before anything is created, a recorded revision the repository no longer has. */
export function checkRevision(project: string, revision: string | null): void {
  if (!revision || !isGitRepo(project)) return;
  try {
    git(["cat-file", "-e", `${revision}^{commit}`], project);
  } catch {
    throw new IsolationError(`revision ${revision} of the baseline is no longer in the repository`);
  }
}

export function createWorkTree(project: string, revision: string | null, dest: string): WorkTree {
  const notes: string[] = [];
  if (revision && isGitRepo(project)) {
    checkRevision(project, revision);
    try {
      if (git(["status", "--porcelain", "--untracked-files=no"], project) !== "")
        notes.push(
          "the project has uncommitted changes; the replay runs at the recorded revision without them",
        );
    } catch {
      // status is only a note
    }
    git(["clone", "--quiet", "--shared", "--no-checkout", "--no-hardlinks", project, dest], project);
    git(["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", revision], dest);
    return { dir: dest, kind: "clone", revision, notes };
  }
  notes.push(
    revision
      ? "the project is not a git repository any more: the replay runs on a copy of its current files"
      : "the baseline has no repository revision: the replay runs on a copy of the project's current files",
  );
  // Entry by entry: the default experiment root is under the project's .tapedeck, and copying a directory
  // into itself is refused outright (EINVAL), filter or not.
  ensureDir(dest);
  for (const name of readdirSync(project)) {
    if (NOT_COPIED.has(name)) continue;
    cpSync(join(project, name), join(dest, name), { recursive: true, verbatimSymlinks: true });
  }
  return { dir: dest, kind: "copy", revision: null, notes };
}

/**
 * An --experiment-root outside the project, made private before anything goes in: the work trees are clones
 * and copies of the project (0644 files as git and cp leave them) and each run's config root holds credentials
 * for a while. An empty directory that already existed (a `mkdir` under the usual umask, 0755) let every local
 * user read the copies; one owned by another user (a name planted under /tmp) let them swap `runs/` for a
 * symlink to a directory of theirs; a symlink sent everything wherever it pointed.
 */
export function ensurePrivateRoot(root: string): void {
  ensureDir(root);
  const st = lstatSync(root);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new IsolationError(
      `--experiment-root ${root} is a symlink or not a directory: give a real directory`,
    );
  }
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new IsolationError(
      `--experiment-root ${root} belongs to another user: give a directory of your own`,
    );
  }
  if ((st.mode & 0o077) !== 0) chmodSync(root, 0o700);
}

/** Removes the run's work tree and config root; the run's record and its archive stay. */
export function removeRunScratch(paths: { work: string; home: string }): void {
  for (const dir of [paths.work, paths.home]) rmSync(dir, { recursive: true, force: true });
}

/** Credentials copied into a run's config root and not yet removed: what a signal handler must remove. */
const liveSecrets = new Set<string>();

export function trackSecrets(files: readonly string[]): void {
  for (const f of files) liveSecrets.add(f);
}

/** Credentials copied for the run go whatever else is kept. */
export function removeSecrets(files: readonly string[]): void {
  for (const f of files) {
    if (existsSync(f)) unlinkQuietly(f);
    liveSecrets.delete(f);
  }
}

/** Every run's copied credentials, at once and synchronously: the process may be gone the next moment. */
export function removeLiveSecrets(): void {
  removeSecrets([...liveSecrets]);
}

/** The run's directories under its real path: claude keys trust and transcripts by the cwd's realpath (macOS /var). */
export function runDirs(runDir: string): { work: string; home: string; sessions: string } {
  ensureDir(runDir);
  const real = realpathSync(runDir);
  return { work: join(real, "work"), home: join(real, "home"), sessions: join(real, "sessions") };
}
