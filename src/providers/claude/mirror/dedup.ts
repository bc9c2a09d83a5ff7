// Claude Code re-sends the whole conversation with every request; the mirror
// must write each user message once. Dedup is by POSITION among the request's
// user-role messages (a high-water count), not by content hash: a hash set
// would collapse a legitimately repeated "yes", and a single last-hash would
// re-stage the whole history. State advances only after a successful write,
// so a request that fails before its response is written re-stages the same
// messages when Claude Code retries, and nothing is lost.
//
// One extension over the seed: the last mirrored position also keeps a
// fingerprint. When the history no longer extends what was mirrored (it got
// shorter, or the message at the high-water mark changed: compaction, rewind,
// a side query sharing the session id, or state lost to a restart or LRU
// eviction while a mirror file already exists), only the request's last user
// message is staged. Re-staging everything there would duplicate the history.
import { createHash } from "node:crypto";
import { isRecord } from "../../shared.ts";

export interface DedupEntry {
  /** User-role messages already mirrored, in user-ordinal coordinates (not raw messages[] indices). */
  count: number;
  /** Fingerprint of the user message at count - 1 as mirrored; null when count is 0. */
  fp: string | null;
  /** tool_use_ids whose tool_result is already mirrored (bounded, oldest dropped first). */
  toolIds: Set<string>;
  lastActive: number;
}

/** A user-role message and the `system`-role messages that directly follow it in the request. */
export interface UserTurn {
  message: unknown;
  /** Contents of those system messages (Claude Code's per-turn context: environment, reminders). */
  system: unknown[];
}

export interface StagedUserMessage {
  /** Index among the request's user-role messages. */
  ordinal: number;
  /** The message content with already-mirrored tool_result blocks removed (not yet redacted). */
  content: unknown;
  /** Contents of the system messages that follow it. */
  system: unknown[];
}

export interface StagePlan {
  /** The request's user turns, kept to re-plan against newer state at write time. */
  turns: readonly UserTurn[];
  /** The state the plan was computed against (null: no state for this session). */
  base: { count: number; fp: string | null } | null;
  /** No in-memory state but a mirror file exists: treated as divergent. */
  coldResume: boolean;
  divergent: boolean;
  items: StagedUserMessage[];
  /** The high-water mark once these records are written. */
  newCount: number;
  newFp: string | null;
  /** tool_use_ids of the staged tool_result blocks. */
  toolIds: string[];
}

const MAX_TOOL_IDS = 10_000;
export const SWEEP_INTERVAL_MS = 60_000;

/**
 * The request's user-role messages in order, each with the system-role
 * messages that follow it. Those come from Claude Code's per-turn system
 * context (the `per-turn-control` beta); the mirror keeps them so that a
 * restored transcript gives the model the same context again.
 */
export function userTurnsOf(messages: readonly unknown[]): UserTurn[] {
  const turns: UserTurn[] = [];
  let last: UserTurn | undefined;
  for (const m of messages) {
    if (!isRecord(m)) {
      last = undefined;
      continue;
    }
    if (m.role === "user") {
      last = { message: m, system: [] };
      turns.push(last);
    } else if (m.role === "system" && last) {
      last.system.push(m.content);
    } else {
      last = undefined;
    }
  }
  return turns;
}

/**
 * Identifies a user message across requests. cache_control is left out:
 * Claude Code moves the cache breakpoint to the newest message on every
 * request, so the same message differs only in that marker.
 */
export function fingerprint(message: unknown): string {
  const content = isRecord(message) ? message.content : undefined;
  const text = JSON.stringify(content ?? null, (k, v) => (k === "cache_control" ? undefined : v));
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}

function toolResultId(block: unknown): string | undefined {
  return isRecord(block) && block.type === "tool_result" && typeof block.tool_use_id === "string"
    ? block.tool_use_id
    : undefined;
}

export function planUserMessages(
  entry: DedupEntry | undefined,
  turns: readonly UserTurn[],
  opts: { coldResume?: boolean } = {},
): StagePlan {
  const len = turns.length;
  const coldResume = entry === undefined && opts.coldResume === true;
  let start = 0;
  let divergent = coldResume;
  if (entry && !coldResume) {
    const extends_ =
      len >= entry.count && (entry.count === 0 || fingerprint(turns[entry.count - 1]?.message) === entry.fp);
    if (extends_) start = entry.count;
    else divergent = true;
  }
  if (divergent) start = Math.max(len - 1, 0);

  const known = entry?.toolIds ?? new Set<string>();
  const staged = new Set<string>();
  const items: StagedUserMessage[] = [];
  for (let k = start; k < len; k++) {
    const turn = turns[k] as UserTurn;
    const content = (turn.message as { content?: unknown }).content;
    if (!Array.isArray(content)) {
      items.push({ ordinal: k, content: content ?? "", system: turn.system });
      continue;
    }
    const kept = content.filter((block) => {
      const id = toolResultId(block);
      if (id === undefined) return true;
      if (known.has(id) || staged.has(id)) return false;
      staged.add(id);
      return true;
    });
    // A message whose every block was an already-mirrored tool result adds nothing.
    if (content.length > 0 && kept.length === 0) continue;
    items.push({ ordinal: k, content: kept, system: turn.system });
  }
  return {
    turns,
    base: entry ? { count: entry.count, fp: entry.fp } : null,
    coldResume,
    divergent,
    items,
    newCount: len,
    newFp: len > 0 ? fingerprint(turns[len - 1]?.message) : null,
    toolIds: [...staged],
  };
}

/** A plan made against state that has moved on since (another request of the session wrote first). */
export function isPlanStale(plan: StagePlan, entry: DedupEntry | undefined): boolean {
  if (plan.base === null) return entry !== undefined;
  return entry === undefined || entry.count !== plan.base.count || entry.fp !== plan.base.fp;
}

export function dedupKey(sessionId: string, agentId: string | null): string {
  return agentId === null ? sessionId : `${sessionId}\u0000${agentId}`;
}

/**
 * Dedup state per (session, agent): an LRU bounded by `maxEntries`, plus a
 * sweep (at most once a minute, run lazily from the hooks) that drops
 * entries idle for longer than the retention window.
 */
export class DedupStore {
  private readonly entries = new Map<string, DedupEntry>();
  private lastSweep = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly idleMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The entry, refreshed as most recently used. */
  get(key: string, now: number): DedupEntry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    entry.lastActive = now;
    return entry;
  }

  peek(key: string): DedupEntry | undefined {
    return this.entries.get(key);
  }

  /** Advances the state after the plan's records were written. */
  commit(key: string, plan: StagePlan, now: number): DedupEntry {
    const entry = this.get(key, now) ?? { count: 0, fp: null, toolIds: new Set<string>(), lastActive: now };
    entry.count = plan.newCount;
    entry.fp = plan.newFp;
    for (const id of plan.toolIds) entry.toolIds.add(id);
    // Sets iterate in insertion order, so the first ids are the oldest.
    for (const id of entry.toolIds) {
      if (entry.toolIds.size <= MAX_TOOL_IDS) break;
      entry.toolIds.delete(id);
    }
    this.entries.set(key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
    return entry;
  }

  /** Drops entries idle past the window; runs at most once per SWEEP_INTERVAL_MS. Returns how many went. */
  maybeSweep(now: number): number {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return 0;
    this.lastSweep = now;
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (now - entry.lastActive > this.idleMs) {
        this.entries.delete(key);
        removed++;
      }
    }
    return removed;
  }
}
