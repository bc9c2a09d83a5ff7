// The projects this user's tapedeck has recorded, for --all-projects of du and prune: those of the session
// registry (core/read/registry-projects.ts) still holding a real .tapedeck directory; one since moved or removed,
// or whose .tapedeck is a link, is skipped.

import { tapedeckDir } from "../core/archive/paths.ts";
import { lstatOrUndefined } from "../core/base/fsutil.ts";
import { registeredProjects } from "../core/read/registry-projects.ts";

export function knownProjects(): string[] {
  return registeredProjects().present.filter((root) => lstatOrUndefined(tapedeckDir(root))?.isDirectory());
}
