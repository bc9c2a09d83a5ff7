// How much disk a project's tapedeck data takes, by kind (archive, spool, index, memory, experiments, other),
// by provider and by session. Every figure is an apparent size as `du -b` counts it (retention.ts treeBytes),
// and the kinds add up to the whole: each file is counted once, in the first kind that reaches it, and what
// no kind claims (config, diagnostics, the directories themselves) is "other".
import { readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { isInside, SESSION_FILES, tapedeckDir } from "../archive/paths.ts";
import { lstatOrUndefined, readJsonOrUndefined } from "../base/fsutil.ts";
import { treeBytes } from "./retention.ts";
import { sessionRoots } from "./sessions.ts";

/** Where `doctor` warns unless `retention.warn_bytes` says otherwise (the value `config` shows as the default). */
export const DEFAULT_WARN_BYTES = 2 * 1024 ** 3;

export type UsageKind = "archive" | "spool" | "index" | "memory" | "experiments" | "other";

export interface SessionUsage {
  session_id: string;
  provider: string;
  bytes: number;
  spool_bytes: number;
  path: string;
}

export interface ProjectUsage {
  project: string;
  total_bytes: number;
  kinds: Record<UsageKind, number>;
  providers: Array<{ provider: string; bytes: number }>;
  /** Largest first. */
  sessions: SessionUsage[];
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** SQLite keeps a store in up to three files: the database, its WAL and its shared-memory index. */
function storeBytes(base: string, name: string, seen: Set<string>): number {
  return ["", "-wal", "-shm", "-journal"].reduce((n, s) => n + treeBytes(join(base, `${name}${s}`), seen), 0);
}

function providerOfRoot(root: string): string {
  const name = basename(root);
  return name.endsWith("-sessions") ? name.slice(0, -"-sessions".length) : name;
}

/**
 * The sessions of a root. In a root of the project's .tapedeck every directory counts (a session without its
 * manifest still takes the space); in a root configured elsewhere only a directory with a tapedeck manifest:
 * the config is a file a cloned repository writes, and `"session_root": "/"` walked the whole disk, every
 * top-level directory reported as a session.
 */
function sessionsOf(root: string, seen: Set<string>, ownRoot: boolean): SessionUsage[] {
  const out: SessionUsage[] = [];
  for (const name of entries(root)) {
    const dir = join(root, name);
    // A symlink is never a session; du counts the link itself, and so does "other".
    if (!lstatOrUndefined(dir)?.isDirectory()) continue;
    const manifest = readJsonOrUndefined<{
      session_id?: unknown;
      provider?: unknown;
      schema_version?: unknown;
    }>(join(dir, SESSION_FILES.manifest), 1024 * 1024);
    if (!ownRoot && manifest?.schema_version !== 1) continue;
    const spool = treeBytes(join(dir, SESSION_FILES.pending), seen);
    const rest = treeBytes(dir, seen);
    out.push({
      session_id: typeof manifest?.session_id === "string" ? manifest.session_id : name,
      provider: typeof manifest?.provider === "string" ? manifest.provider : providerOfRoot(root),
      bytes: rest + spool,
      spool_bytes: spool,
      path: dir,
    });
  }
  return out;
}

export function projectUsage(projectRoot: string): ProjectUsage {
  const base = tapedeckDir(projectRoot);
  const seen = new Set<string>();
  const kinds: Record<UsageKind, number> = {
    archive: 0,
    spool: 0,
    index: 0,
    memory: 0,
    experiments: 0,
    other: 0,
  };
  const sessions: SessionUsage[] = [];
  let outside = 0;
  // A symlinked .tapedeck holds nothing of this project's (sessionRoots refuses it too): counted as the link.
  const real = lstatOrUndefined(base)?.isDirectory() === true;
  if (real) {
    kinds.index = storeBytes(base, "index.sqlite", seen);
    kinds.memory = storeBytes(base, "memory.sqlite", seen);
    kinds.experiments = treeBytes(join(base, "experiments"), seen);
  }
  for (const root of real ? sessionRoots(projectRoot) : []) {
    const own = isInside(base, root);
    const found = sessionsOf(root, seen, own);
    sessions.push(...found);
    for (const s of found) {
      kinds.archive += s.bytes - s.spool_bytes;
      kinds.spool += s.spool_bytes;
    }
    // A root configured outside .tapedeck: its own directory entry too (what else it holds is not tapedeck's).
    if (!own) outside += Number(lstatOrUndefined(root)?.size ?? 0);
  }
  kinds.other = treeBytes(base, seen) + outside;
  const byProvider = new Map<string, number>();
  for (const s of sessions) byProvider.set(s.provider, (byProvider.get(s.provider) ?? 0) + s.bytes);
  return {
    project: projectRoot,
    total_bytes: Object.values(kinds).reduce((a, b) => a + b, 0),
    kinds,
    providers: [...byProvider]
      .map(([provider, bytes]) => ({ provider, bytes }))
      .sort((a, b) => b.bytes - a.bytes),
    sessions: sessions.sort((a, b) => b.bytes - a.bytes),
  };
}
