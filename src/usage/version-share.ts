// The cache-read share of input per agent, project and CLI version, and the signal no other tool gives: the newest
// version of an agent whose share fell by more than half on the same project (a prompt-cache regression in the
// CLI: the same work now pays full input price). From the cache's cells, which carry the version the records
// named; usage that named none is left out.
import type { ProjectSession } from "./cache.ts";
import { NCELL, NCELL_WIDTH } from "./normalize.ts";
import { cacheReadShare } from "./rows.ts";

/** Below this many responses a version's share is shown but never flagged: a few turns say little. */
export const MIN_RESPONSES = 5;

export interface VersionShare {
  provider: string;
  project: string;
  agent_version: string;
  /** the first response seen of this version on this project */
  first_seen: string;
  responses: number;
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** cache reads over all input */
  cache_read_share: number | null;
}

export interface ShareDrop {
  provider: string;
  project: string;
  from: VersionShare;
  to: VersionShare;
}

export interface VersionShares {
  shares: VersionShare[];
  /** per provider and project, the newest version when its share is less than half the version's before it */
  drops: ShareDrop[];
}

export function versionShares(sessions: readonly ProjectSession[]): VersionShares {
  const by = new Map<string, VersionShare & { first: number }>();
  for (const s of sessions) {
    const u = s.usage;
    const cells = u.cells;
    for (let i = 0; i < cells.length; i += NCELL_WIDTH) {
      const version = u.versions[cells[i + NCELL.version]!] ?? "";
      if (version === "") continue;
      const key = `${u.provider}\0${s.project}\0${version}`;
      let v = by.get(key);
      if (!v) {
        v = {
          provider: u.provider,
          project: s.project,
          agent_version: version,
          first_seen: "",
          first: Number.POSITIVE_INFINITY,
          responses: 0,
          input_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_share: null,
        };
        by.set(key, v);
      }
      v.first = Math.min(v.first, cells[i + NCELL.slot]! * u.slot_ms + cells[i + NCELL.first]!);
      v.responses += cells[i + NCELL.responses]!;
      v.input_tokens += cells[i + NCELL.input]!;
      v.cache_read_input_tokens += cells[i + NCELL.cache_read]!;
      v.cache_creation_input_tokens += cells[i + NCELL.cache_creation]!;
    }
  }
  const shares: VersionShare[] = [...by.values()]
    .sort(
      (a, b) =>
        a.provider.localeCompare(b.provider) || a.project.localeCompare(b.project) || a.first - b.first,
    )
    .map(({ first, ...v }) => ({
      ...v,
      first_seen: new Date(first).toISOString(),
      cache_read_share: cacheReadShare(v),
    }));
  return { shares, drops: dropsOf(shares) };
}

/**
 * Per provider and project, the newest version (by first seen) against the one before it, of those with enough
 * responses to say something: a regression a later version repaired is history, not a warning.
 */
function dropsOf(shares: readonly VersionShare[]): ShareDrop[] {
  // `shares` is in first-seen order within each provider and project: the last two kept are the newest pair.
  const pairs = new Map<string, { from?: VersionShare; to: VersionShare }>();
  for (const v of shares) {
    if (v.responses < MIN_RESPONSES || v.cache_read_share === null) continue;
    const key = `${v.provider}\0${v.project}`;
    pairs.set(key, { from: pairs.get(key)?.to, to: v });
  }
  const drops: ShareDrop[] = [];
  for (const { from, to } of pairs.values()) {
    if (from && to.cache_read_share! < from.cache_read_share! / 2)
      drops.push({ provider: to.provider, project: to.project, from, to });
  }
  return drops;
}

const percent = (n: number | null) => (n === null ? "—" : `${Math.round(n * 100)}%`);

/** One line per drop, for the report's notes and the doctor. */
export function dropText(d: ShareDrop, agent: string, where?: string): string {
  return (
    `${agent} ${d.to.agent_version}${where ? ` in ${where}` : ""}: cache reads ${percent(d.to.cache_read_share)} of input, ` +
    `down from ${percent(d.from.cache_read_share)} with ${d.from.agent_version} (more than half): the same work pays ` +
    "more input at full price"
  );
}

export { percent as shareText };
