// Where a project's replays and experiment runs keep their sessions. An experiment lives under
// `.tapedeck/experiments/<id>/` unless `--experiment-root` put it elsewhere; then a link file
// `.tapedeck/experiments/<id>.link.json` names its root, so that the project still finds it (list, show,
// the viewer). Each run's sessions are in `<experiment root>/runs/<run id>/sessions/`: the layout, not a
// path read from experiment.json, says where, so a planted record cannot point a listing (or a delete)
// at another directory. A linked root, everything on the way down to its sessions, its experiment.json and the
// link itself must be the user's own (core/base/fsutil.ts's owner rule): a link into another user's directory would
// list their sessions as the user's runs, and an id they reuse made `show` ambiguous. Such a link is ignored,
// and `doctor` names it (ignoredExperimentLinks).
import { type Dirent, readdirSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { tapedeckDir } from "../archive/paths.ts";
import {
  assertOwnDir,
  ensureOwnDirUnder,
  lstatOrUndefined,
  readOwnJsonOrUndefined,
  UnsafePathError,
  writeJsonAtomicSync,
} from "../base/fsutil.ts";
import { isRealDir } from "./session-list.ts";

export const EXPERIMENTS_DIR = "experiments";
const LINK_SUFFIX = ".link.json";
/** A link or an experiment.json read only to check its project: a planted huge file is never read whole. */
const MAX_LINK_BYTES = 64 * 1024;
const MAX_RECORD_BYTES = 16 * 1024 * 1024;

export function experimentsBase(projectRoot: string): string {
  return join(tapedeckDir(projectRoot), EXPERIMENTS_DIR);
}

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Records where an experiment made outside the project's .tapedeck lives (0600, never through a link). */
export function writeExperimentLink(projectRoot: string, experimentId: string, root: string): void {
  const base = experimentsBase(projectRoot);
  ensureOwnDirUnder(projectRoot, base, true);
  writeJsonAtomicSync(join(base, `${experimentId}${LINK_SUFFIX}`), { experiment_id: experimentId, root });
}

/** What a link file leads to: this project's experiment root, a root refused by the owner rule, or nothing. */
type Linked = { root: string } | { refused: UnsafePathError } | undefined;

/**
 * A linked experiment root, when it is one of this project's: an absolute path to a real directory (not a
 * symlink) of the user's whose experiment.json has the same id and names this project as its baseline's. A link
 * planted in a cloned repository pointing at another project's experiments therefore leads nowhere; one into
 * another user's directory is refused.
 */
function linkedRoot(projectRoot: string, file: string): Linked {
  const link = readOwnJsonOrUndefined<{ experiment_id?: unknown; root?: unknown }>(file, MAX_LINK_BYTES);
  const root = link?.root;
  if (typeof root !== "string" || !isAbsolute(root)) return undefined;
  const st = lstatOrUndefined(root);
  if (!st?.isDirectory()) return undefined;
  try {
    assertOwnDir(root, st);
  } catch (error) {
    if (error instanceof UnsafePathError) return { refused: error };
    throw error;
  }
  const record = readOwnJsonOrUndefined<{ experiment_id?: unknown; baseline?: { project_root?: unknown } }>(
    join(root, "experiment.json"),
    MAX_RECORD_BYTES,
  );
  if (record?.experiment_id !== link?.experiment_id) return undefined;
  return record?.baseline?.project_root === projectRoot ? { root } : undefined;
}

function linkFiles(projectRoot: string): string[] {
  const base = experimentsBase(projectRoot);
  if (!isRealDir(projectRoot, base)) return [];
  return entries(base)
    .filter((e) => e.isFile() && e.name.endsWith(LINK_SUFFIX))
    .map((e) => join(base, e.name));
}

/** Every experiment root of a project: those under .tapedeck/experiments and those its link files name. */
export function experimentRoots(projectRoot: string): string[] {
  const base = experimentsBase(projectRoot);
  if (!isRealDir(projectRoot, base)) return [];
  const roots: string[] = [];
  for (const entry of entries(base)) {
    if (entry.isDirectory()) roots.push(join(base, entry.name));
    else if (entry.isFile() && entry.name.endsWith(LINK_SUFFIX)) {
      const linked = linkedRoot(projectRoot, join(base, entry.name));
      if (linked && "root" in linked) roots.push(linked.root);
    }
  }
  return roots;
}

/** The project's link files that lead into a directory the owner rule refuses, and why: what doctor reports. */
export function ignoredExperimentLinks(projectRoot: string): { file: string; reason: string }[] {
  const out: { file: string; reason: string }[] = [];
  for (const file of linkFiles(projectRoot)) {
    const linked = linkedRoot(projectRoot, file);
    if (linked && "refused" in linked) out.push({ file, reason: linked.refused.message });
  }
  return out;
}

/** The session roots of every run of the project's experiments and replays. */
export function runSessionRoots(projectRoot: string): string[] {
  const out: string[] = [];
  for (const root of experimentRoots(projectRoot)) {
    const runs = join(root, "runs");
    const inside = root.startsWith(`${tapedeckDir(projectRoot)}/`);
    for (const run of entries(runs)) {
      if (!run.isDirectory()) continue;
      const sessions = join(runs, run.name, "sessions");
      // Under .tapedeck every component must be a real directory; elsewhere every one below the (checked) root
      // must also be the user's own, so that no other user could have put a session there.
      const ok = inside ? isRealDir(projectRoot, sessions) : isOwnDirUnder(root, sessions);
      if (ok) out.push(sessions);
    }
  }
  return out;
}

function isOwnDirUnder(base: string, dir: string): boolean {
  try {
    return ensureOwnDirUnder(base, dir, false);
  } catch {
    return false;
  }
}
