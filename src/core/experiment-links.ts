// Where a project's replays and experiment runs keep their sessions. An experiment lives under
// `.tapedeck/experiments/<id>/` unless `--experiment-root` put it elsewhere; then a link file
// `.tapedeck/experiments/<id>.link.json` names its root, so that the project still finds it (list, show,
// the viewer). Each run's sessions are in `<experiment root>/runs/<run id>/sessions/`: the layout, not a
// path read from experiment.json, says where, so a planted record cannot point a listing (or a delete)
// at another directory.
import { type Dirent, readdirSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ensureDir, lstatOrUndefined, readJsonOrUndefined, writeJsonAtomicSync } from "./fsutil.ts";
import { tapedeckDir } from "./paths.ts";
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
  ensureDir(base);
  writeJsonAtomicSync(join(base, `${experimentId}${LINK_SUFFIX}`), { experiment_id: experimentId, root });
}

/**
 * A linked experiment root, when it is one of this project's: an absolute path to a real directory (not a
 * symlink) whose experiment.json has the same id and names this project as its baseline's. A link planted in a
 * cloned repository pointing at another project's experiments therefore leads nowhere.
 */
function linkedRoot(projectRoot: string, file: string): string | undefined {
  const link = readJsonOrUndefined<{ experiment_id?: unknown; root?: unknown }>(file, MAX_LINK_BYTES);
  const root = link?.root;
  if (typeof root !== "string" || !isAbsolute(root)) return undefined;
  if (!lstatOrUndefined(root)?.isDirectory()) return undefined;
  const record = readJsonOrUndefined<{ experiment_id?: unknown; baseline?: { project_root?: unknown } }>(
    join(root, "experiment.json"),
    MAX_RECORD_BYTES,
  );
  if (record?.experiment_id !== link?.experiment_id) return undefined;
  return record?.baseline?.project_root === projectRoot ? root : undefined;
}

/** Every experiment root of a project: those under .tapedeck/experiments and those its link files name. */
export function experimentRoots(projectRoot: string): string[] {
  const base = experimentsBase(projectRoot);
  if (!isRealDir(projectRoot, base)) return [];
  const roots: string[] = [];
  for (const entry of entries(base)) {
    if (entry.isDirectory()) roots.push(join(base, entry.name));
    else if (entry.isFile() && entry.name.endsWith(LINK_SUFFIX)) {
      const root = linkedRoot(projectRoot, join(base, entry.name));
      if (root) roots.push(root);
    }
  }
  return roots;
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
      // Under .tapedeck every component must be a real directory; elsewhere the sessions directory itself.
      const ok = inside
        ? isRealDir(projectRoot, sessions)
        : lstatOrUndefined(sessions)?.isDirectory() === true;
      if (ok) out.push(sessions);
    }
  }
  return out;
}
