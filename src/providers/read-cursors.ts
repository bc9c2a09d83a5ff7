// How far the adapters that read an agent's own files between hooks (Claude's transcripts, Codex's rollouts)
// have read each one: a cursor per file in the adapter's state, the most recently read last. Hot path: only
// types from the core.
import type { NormalizedEvent, NormalizeResult } from "../core/archive/event.ts";
import { setOwn } from "../core/base/json.ts";
import { firstReadOffset } from "./shared.ts";

export interface ReadCursor {
  offset: number;
  /** The ids of the last records read, to recognise one read again. */
  seen: string[];
  /** Set where reading starts in a recording period: the first read drops records stamped before it began. */
  fresh?: boolean;
}

/** Enough to recognise a record whose parts straddle two reads, or one read again from offset 0 after a restart. */
const SEEN_IDS_KEPT = 64;
/** Subagents' files are read once, at their SubagentStop; old cursors can go. */
const CURSORS_KEPT = 32;

/**
 * On a session's first enriched hook (no state yet, and an event to record), the cursor of the session's own
 * file starts where the recording period does (firstReadOffset), marked fresh. Whether it did.
 */
export function startCursor(
  cursors: Record<string, ReadCursor>,
  result: NormalizeResult,
  path: string | null | undefined,
  hasState: boolean,
): boolean {
  if (hasState || !path || result.events.length === 0) return false;
  setOwn(cursors, path, { offset: firstReadOffset(result, path), seen: [], fresh: true });
  return true;
}

/**
 * Reads `path` on from its cursor (from offset 0 when it has none yet) and puts the cursor the read ends at
 * last in the table, where the most recently read belong: `next`, to which the caller adds its own fields (all
 * optional beyond ReadCursor's). The usage records read are remembered in `seen` by their `idKey`;
 * `periodStart` is `since` for a fresh cursor.
 */
export function readFrom<
  C extends ReadCursor,
  K extends string,
  R extends { offset: number; usages: ReadonlyArray<Record<K, string>> },
>(
  cursors: Record<string, C>,
  path: string,
  read: (path: string, cursor: C) => R,
  idKey: K,
  since: string | undefined,
): { read: R; next: C; periodStart: string | undefined } {
  // Own entries only: a path is the payload's, and one spelled `constructor` found Object's function.
  const cursor =
    (Object.hasOwn(cursors, path) ? cursors[path] : undefined) ??
    ({ offset: 0, seen: [] } as ReadCursor as C);
  const result = read(path, cursor);
  const seen = [...cursor.seen, ...result.usages.map((usage) => usage[idKey])].slice(-SEEN_IDS_KEPT);
  const next = { offset: result.offset, seen } as ReadCursor as C;
  delete cursors[path];
  setOwn(cursors, path, next);
  return { read: result, next, periodStart: cursor.fresh ? since : undefined };
}

/**
 * What an enrich step hands back: nothing when no file was read (the state stays as it was), else its events
 * and the cursors, those read least recently past CURSORS_KEPT dropped.
 */
export function afterReads(read: boolean, events: NormalizedEvent[], cursors: Record<string, ReadCursor>) {
  if (!read) return undefined;
  const keys = Object.keys(cursors);
  for (const key of keys.slice(0, Math.max(0, keys.length - CURSORS_KEPT))) delete cursors[key];
  return { events, state: { cursors } as Record<string, unknown> };
}
