// The session root a provider records into: a real, writable directory (or one that can be created), not a
// symlink, the user's own (core/base/fsutil.ts's owner rule: every writer refuses another user's), not tracked by
// git.
import { accessSync, constants, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ProviderConfig } from "../../../core/archive/config.ts";
import {
  isInside,
  resolveSessionRoot,
  sessionWriteProblem,
  TAPEDECK_DIR,
  tapedeckDir,
} from "../../../core/archive/paths.ts";
import { lstatOrUndefined } from "../../../core/base/fsutil.ts";
import { gitView } from "../../session-root.ts";
import { check, type DoctorCheck, shown } from "./check.ts";

export function checkSessionRoot(project: string, provider: string, entry: ProviderConfig): DoctorCheck {
  const td = lstatOrUndefined(tapedeckDir(project));
  if (td?.isSymbolicLink()) {
    return check(
      "session root",
      "fail",
      `${TAPEDECK_DIR} is a symlink: tapedeck refuses to write through it`,
      [`Replace ${tapedeckDir(project)} with a real directory`],
    );
  }
  let root: string;
  try {
    root = resolveSessionRoot(project, entry.session_root, provider);
  } catch (error) {
    return check("session root", "fail", (error as Error).message, [
      "Point session_root in .tapedeck/config.json at a real directory, or remove the symlink",
    ]);
  }
  const name = shown(project, root);
  const st = lstatOrUndefined(root);
  if (st?.isSymbolicLink()) {
    return check("session root", "fail", `${name} is a symlink: the recorder refuses to follow it`, [
      `Replace ${root} with a real directory`,
    ]);
  }
  if (st && !st.isDirectory()) {
    return check("session root", "fail", `${name} is not a directory: nothing can be recorded`, [
      `Move ${root} away; tapedeck recreates the directory at the next session`,
    ]);
  }
  const foreign = sessionWriteProblem(project, root);
  if (foreign) {
    return check("session root", "fail", foreign.message, [
      "Record in a project and session root of your own (chmod go-w a directory of yours that others can write)",
    ]);
  }
  // A missing root is created at the first event: then its nearest existing parent must be writable.
  let probe = root;
  while (!existsSync(probe) && dirname(probe) !== probe) probe = dirname(probe);
  try {
    accessSync(probe, constants.W_OK | constants.X_OK);
  } catch {
    return check("session root", "fail", `${shown(project, probe)} is not writable`, [
      `Make ${probe} writable for ${process.env.USER ?? "this user"}`,
    ]);
  }
  // Sessions hold prompts and tool output: a root git would track is one `git add -A` from a commit.
  if (!isInside(tapedeckDir(project), root) && gitView(root) === "tracked") {
    return check(
      "session root",
      "warn",
      `${name} is not ignored by git: a commit could take every recorded prompt`,
      [`printf '*\\n' > ${join(root, ".gitignore")}   (what install writes there)`],
    );
  }
  return check(
    "session root",
    "ok",
    st ? `${name} (writable)` : `${name} (created at the first session)`,
    undefined,
    {
      path: root,
    },
  );
}
