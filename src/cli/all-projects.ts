// The projects this user's tapedeck has recorded, for --all-projects: the session registry (one entry per
// provider session, naming its project root) is the only list there is; a project since moved or removed is
// skipped, and so is one without a real .tapedeck directory.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { lstatOrUndefined, readJsonOrUndefined } from "../core/fsutil.ts";
import { tapedeckDir } from "../core/paths.ts";
import { tapedeckHome } from "../core/registry.ts";

function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

export function knownProjects(): string[] {
  const base = join(tapedeckHome(), "registry");
  const out = new Set<string>();
  for (const provider of names(base)) {
    for (const file of names(join(base, provider))) {
      const entry = readJsonOrUndefined<{ project_root?: unknown }>(join(base, provider, file), 64 * 1024);
      const root = entry?.project_root;
      if (typeof root === "string" && lstatOrUndefined(tapedeckDir(root))?.isDirectory()) out.add(root);
    }
  }
  return [...out].sort();
}
