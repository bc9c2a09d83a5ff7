// The projects the user's session registry names (every provider session registers its project root when
// it starts: core/archive/session-registry.ts writes it): what `--all-projects` covers in list, search, view, du, prune and
// restore. Light on purpose: `list` must not load the registry's writer, which hashes ids through the
// redactor. Only the user's own entries count (a shared TAPEDECK_HOME): another user's name no project.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { lstatOrUndefined, readOwnJsonOrUndefined } from "../base/fsutil.ts";
import { tapedeckHome } from "../base/home.ts";

type Env = Record<string, string | undefined>;

/** An entry is a few hundred bytes; a planted huge file is never read whole. */
const MAX_ENTRY_BYTES = 64 * 1024;

function names(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Every absolute project root the registry names (only `provider`'s sessions when given), each once, sorted,
 * split into those still a directory and those gone.
 */
export function registeredProjects(opts: { env?: Env; provider?: string } = {}): {
  present: string[];
  missing: string[];
} {
  const registry = join(tapedeckHome(opts.env), "registry");
  const roots = new Set<string>();
  for (const provider of opts.provider ? [opts.provider] : names(registry)) {
    for (const file of names(join(registry, provider))) {
      if (!file.endsWith(".json")) continue;
      const entry = readOwnJsonOrUndefined<{ project_root?: unknown }>(
        join(registry, provider, file),
        MAX_ENTRY_BYTES,
      );
      const root = entry?.project_root;
      if (typeof root === "string" && root.startsWith("/")) roots.add(root);
    }
  }
  const present: string[] = [];
  const missing: string[] = [];
  for (const root of [...roots].sort())
    (lstatOrUndefined(root)?.isDirectory() ? present : missing).push(root);
  return { present, missing };
}
