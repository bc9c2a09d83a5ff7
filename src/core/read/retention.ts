// Which recorded sessions may go, and removing them: the one rule of `tapedeck delete`, `tapedeck prune` and
// the automatic retention of `.tapedeck/config.json`. What is never removed, whatever the selection says:
// - a session still being written: its writer lock held by a live process, or not sealed and its agent
//   process alive (an agent idle for hours still holds its session open: the manifest says "incomplete"
//   after 6 h without an event, the agent may resume), or, when no agent process is known, not sealed and
//   appended to in the last RECENT_APPEND_MS;
// - a session a replay or an experiment was made from, unless asked (the experiment's report reads it);
// - anything but a session directory directly under one of the project's session roots, reached without a
//   symlink (deleteSession checks it again at the moment of removal);
// - a session in a root outside the project's .tapedeck that was recorded for another project: the session
//   roots come from .tapedeck/config.json, which a cloned repository writes, and a planted
//   `"session_root": "../other/.tapedeck/claude-sessions"` with a retention block had the hook server remove
//   another project's recordings (a shared root configured on purpose holds other projects' sessions too);
// - the promoted memory (.tapedeck/memory.sqlite): items outlive their sessions by design.
import { randomBytes } from "node:crypto";
import { lstatSync, readdirSync, realpathSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { type RetentionConfig, readConfig } from "../archive/config.ts";
import { parseAge } from "../base/age.ts";
import {
  ensureOwnDirUnder,
  lstatOrUndefined,
  nowIso,
  readJsonOrUndefined,
  readRegularFileSync,
  unlinkQuietly,
  writeJsonAtomicSync,
} from "../base/fsutil.ts";
import { deleteSession, listSessions, type SessionRef } from "./sessions.ts";

export { parseAge } from "../base/age.ts";

import { acquireLock } from "../archive/lock.ts";
import { isInside, SESSION_FILES, tapedeckDir } from "../archive/paths.ts";
import type { Manifest } from "../archive/schemas.ts";
import { forgetSession } from "../archive/session-registry.ts";
import { writeTombstone } from "../archive/tombstone.ts";
import { processExists } from "../base/pids.ts";

/** A hook's appends come seconds apart within a turn; a session written this recently is someone's. */
export const RECENT_APPEND_MS = 10 * 60 * 1000;
/** The automatic retention runs at most this often per project. */
export const AUTO_INTERVAL_MS = 24 * 60 * 60 * 1000;
export const STATE_FILE = "retention-state.json";

export type SessionStatusFilter = "incomplete" | "complete";

export interface Selection {
  /** Only sessions whose last event is older than this. */
  olderThanMs?: number;
  /** The N newest sessions (after the provider and status filters) are kept. */
  keepLast?: number;
  provider?: string;
  status?: SessionStatusFilter;
  /** Only these sessions (archive ids), for `delete a b c`. */
  ids?: readonly string[];
  /** The sessions to choose from, when the caller resolved them itself (a replay's or run's session among them). */
  refs?: readonly SessionRef[];
  includeReferenced?: boolean;
  now?: number;
}

export interface Candidate {
  ref: SessionRef;
  bytes: number;
  /** Entries in its pending/ spool when the plan was made: one more since means a hook wrote to it. */
  pending?: number;
}

export interface Protected {
  ref: SessionRef;
  reason: string;
}

export interface Plan {
  remove: Candidate[];
  kept: Protected[];
  bytes: number;
}

/**
 * Apparent size of a tree as `du -b` counts it: every entry's own lstat size, directories included, a
 * hard-linked file once, a symlink as the link itself (never followed).
 */
export function treeBytes(path: string, seen: Set<string> = new Set()): number {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return 0;
  }
  const key = `${st.dev}:${st.ino}`;
  if (seen.has(key)) return 0;
  seen.add(key);
  let total = st.size;
  if (!st.isDirectory()) return total;
  let names: string[] = [];
  try {
    names = readdirSync(path);
  } catch {
    return total;
  }
  for (const name of names) total += treeBytes(join(path, name), seen);
  return total;
}

function lastActivity(ref: SessionRef): number {
  const m = ref.manifest;
  const t = Date.parse(m.last_event_at ?? m.ended_at ?? m.started_at);
  return Number.isFinite(t) ? t : 0;
}

/** Why a session counts as being written now, or null. `lockIsOurs`: the caller holds the writer lock. */
export function activeReason(ref: SessionRef, now = Date.now(), lockIsOurs = false): string | null {
  const lock = join(ref.dir, SESSION_FILES.lock);
  if (!lockIsOurs && lstatOrUndefined(lock)?.isFile()) {
    let pid = Number.NaN;
    try {
      pid = Number.parseInt(readRegularFileSync(lock, 256).toString("utf8").split(" ")[0] ?? "", 10);
    } catch {
      // unreadable: judged by the other signs
    }
    if (processExists(pid)) return "its writer lock is held";
  }
  const m = ref.manifest;
  // A sealed session written a minute ago (its SessionEnd) is finished: deleting it at once is a normal request.
  if (m.status === "complete") return null;
  if (m.agent_pid) {
    // The agent's process answers best; a `codex exec` that ended without a terminal event is not writing.
    return processExists(m.agent_pid) ? `not sealed and its agent (pid ${m.agent_pid}) is alive` : null;
  }
  for (const name of [SESSION_FILES.events, SESSION_FILES.manifest]) {
    const st = lstatOrUndefined(join(ref.dir, name));
    if (st && now - Number(st.mtimeMs) < RECENT_APPEND_MS)
      return "not sealed, no agent known, and appended to in the last 10 minutes";
  }
  return null;
}

/** Archive ids of the sessions a replay or experiment of this project was made from. */
export function referencedSessions(projectRoot: string, sessions: readonly SessionRef[]): Set<string> {
  const out = new Set<string>();
  for (const s of sessions) if (s.manifest.replay_of_session_id) out.add(s.manifest.replay_of_session_id);
  const base = join(tapedeckDir(projectRoot), "experiments");
  let names: string[] = [];
  try {
    names = readdirSync(base);
  } catch {
    return out;
  }
  for (const name of names) {
    const record = readJsonOrUndefined<{ baseline?: { session_id?: unknown } }>(
      join(base, name, "experiment.json"),
      4 * 1024 * 1024,
    );
    const id = record?.baseline?.session_id;
    if (typeof id === "string") out.add(id);
  }
  return out;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Why a session outside the project's .tapedeck is not this project's to remove, or null. */
export function foreignReason(projectRoot: string, ref: SessionRef): string | null {
  if (isInside(tapedeckDir(projectRoot), ref.dir)) return null;
  const own = ref.manifest.project_root;
  if (typeof own === "string" && realOrSelf(own) === realOrSelf(projectRoot)) return null;
  return "recorded for another project, in a session root outside this project's .tapedeck";
}

function matchesFilters(ref: SessionRef, sel: Selection): boolean {
  const m = ref.manifest;
  if (sel.provider && m.provider !== sel.provider) return false;
  if (sel.status === "complete" && m.status !== "complete") return false;
  if (sel.status === "incomplete" && m.status === "complete") return false;
  if (sel.ids && !sel.ids.includes(m.session_id)) return false;
  return true;
}

/** What a selection would remove, and what it matched but keeps (with the reason). Reads only. */
export function planRemoval(projectRoot: string, sel: Selection): Plan {
  const now = sel.now ?? Date.now();
  const own = listSessions(projectRoot);
  const all = sel.refs ?? own;
  const referenced = sel.includeReferenced
    ? new Set<string>()
    : referencedSessions(projectRoot, sel.refs ? [...own, ...sel.refs] : own);
  // Newest first (listSessions' order): the first keepLast of the filtered ones stay.
  const matching = all.filter((r) => matchesFilters(r, sel));
  const remove: Candidate[] = [];
  const kept: Protected[] = [];
  matching.forEach((ref, i) => {
    if (sel.keepLast !== undefined && i < sel.keepLast) return;
    if (sel.olderThanMs !== undefined && now - lastActivity(ref) < sel.olderThanMs) return;
    const active = activeReason(ref, now) ?? foreignReason(projectRoot, ref);
    if (active) kept.push({ ref, reason: active });
    else if (referenced.has(ref.manifest.session_id)) {
      kept.push({ ref, reason: "a replay or experiment was made from it (--include-referenced removes it)" });
    } else remove.push({ ref, bytes: treeBytes(ref.dir), pending: pendingEntries(ref.dir) });
  });
  return { remove, kept, bytes: remove.reduce((n, c) => n + c.bytes, 0) };
}

export interface Removal {
  removed: Candidate[];
  /** Sessions that became active since the preview, or could not be removed: kept, with the reason. */
  failed: Protected[];
  bytes: number;
}

function pendingEntries(dir: string): number {
  try {
    return readdirSync(join(dir, SESSION_FILES.pending)).length;
  } catch {
    return 0;
  }
}

const WOKE = "written to since the preview";

/**
 * Takes one session out of its root under its writer lock. Between a last check and an rm a hook could
 * append (the append is lost with the directory) or, finding the lock busy, spool into pending/ (lost too).
 * So: the lock first (a writer mid-append keeps it), the check again under it, the directory renamed to a
 * name no hook looks up, then the spool counted once more; a session a hook spooled into meanwhile goes back.
 * Answers why it was kept, or null once it is gone.
 */
function removeOne(c: Candidate, now: number, force: boolean): string | null {
  const st = lstatOrUndefined(c.ref.dir);
  // Never a lock file created through a symlink, never a rename outside the root.
  if (!st || st.isSymbolicLink() || !st.isDirectory() || dirname(c.ref.dir) !== c.ref.root)
    return "not a session directory";
  const lock = acquireLock(c.ref.dir, { timeoutMs: 0 });
  if (!lock && !force) return "its writer lock is held";
  const before = c.pending ?? pendingEntries(c.ref.dir);
  const trash = join(c.ref.root, `.removing-${randomBytes(6).toString("hex")}`);
  try {
    const active = force ? null : activeReason(c.ref, now, true);
    if (active) return active;
    if (pendingEntries(c.ref.dir) > before) return WOKE;
    renameSync(c.ref.dir, trash);
  } finally {
    // After the rename the lock file is in trash (release finds nothing where it was): removed by hand.
    lock?.release();
  }
  if (lock) unlinkQuietly(join(trash, SESSION_FILES.lock));
  if (pendingEntries(trash) > before) {
    try {
      renameSync(trash, c.ref.dir);
    } catch {
      // A hook made a new session of that name meanwhile: this one stays, listed under its temporary name.
    }
    return WOKE;
  }
  deleteSession({ ...c.ref, dir: trash });
  return null;
}

/**
 * What a removal leaves so that `tapedeck import` does not bring the session back from the agent's files
 * (core/archive/tombstone.ts): its id and source, redacted as the manifest holds them.
 */
function leaveTombstone(projectRoot: string, manifest: Manifest, by: "delete" | "prune"): void {
  if (!manifest.provider_session_id) return;
  try {
    writeTombstone(projectRoot, {
      provider: manifest.provider,
      provider_session_id: manifest.provider_session_id,
      identity_source: manifest.identity_source ?? null,
      source: manifest.import?.source.path ?? null,
      by,
    });
  } catch {
    // Without it, a later import brings the session back; the removal itself is done.
  }
}

/** Removes a plan's sessions, checking each again just before: a session that woke up since the preview stays. */
export function removeSessions(
  projectRoot: string,
  plan: Plan,
  opts: { now?: number; force?: boolean; by?: "delete" | "prune" } = {},
): Removal {
  const removed: Candidate[] = [];
  const failed: Protected[] = [];
  for (const c of plan.remove) {
    // --force overrides "being written", never "another project's".
    const foreign = foreignReason(projectRoot, c.ref);
    if (foreign) {
      failed.push({ ref: c.ref, reason: foreign });
      continue;
    }
    try {
      const kept = removeOne(c, opts.now ?? Date.now(), opts.force === true);
      if (kept) {
        failed.push({ ref: c.ref, reason: kept });
        continue;
      }
      removed.push(c);
    } catch (error) {
      failed.push({ ref: c.ref, reason: (error as NodeJS.ErrnoException).code ?? "not removable" });
      continue;
    }
    // The registry would otherwise keep pointing the API proxy at a session that is gone.
    const { provider, provider_session_id } = c.ref.manifest;
    try {
      if (provider_session_id) forgetSession(provider, provider_session_id, projectRoot);
    } catch {
      // a stale registry entry only makes the proxy find nothing
    }
    leaveTombstone(projectRoot, c.ref.manifest, opts.by ?? "delete");
  }
  return { removed, failed, bytes: removed.reduce((n, c) => n + c.bytes, 0) };
}

export type { RetentionConfig };

/** The selection of a config's retention block, or undefined when it selects nothing (no age, no count). */
export function selectionOf(config: RetentionConfig | undefined): Selection | undefined {
  if (!config) return undefined;
  const olderThanMs = config.older_than === undefined ? undefined : parseAge(config.older_than);
  const keepLast =
    Number.isInteger(config.keep_last) && (config.keep_last as number) >= 0 ? config.keep_last : undefined;
  if (olderThanMs === undefined && keepLast === undefined) return undefined;
  const status = config.status === "complete" || config.status === "incomplete" ? config.status : undefined;
  return { olderThanMs, keepLast, status };
}

function retentionBlock(projectRoot: string): RetentionConfig | undefined {
  const value: unknown = readConfig(projectRoot)?.retention;
  return value && typeof value === "object" && !Array.isArray(value) ? (value as RetentionConfig) : undefined;
}

/** Whether the project's automatic retention should run now: configured, and not run in the last day. */
export function retentionDue(projectRoot: string, now = Date.now()): boolean {
  if (!selectionOf(retentionBlock(projectRoot))) return false;
  const state = readJsonOrUndefined<{ last_run_at?: unknown }>(join(tapedeckDir(projectRoot), STATE_FILE));
  const last = typeof state?.last_run_at === "string" ? Date.parse(state.last_run_at) : Number.NaN;
  return !Number.isFinite(last) || now - last >= AUTO_INTERVAL_MS || last > now;
}

export interface AutoResult {
  ran: boolean;
  removed: number;
  bytes: number;
  kept: number;
}

/**
 * The configured retention, when due: the stamp is written first, so a run that fails (or two servers racing)
 * still waits a day before the next try. Only counts are returned: the caller logs them, never an id or path.
 */
export function applyRetention(projectRoot: string, now = Date.now()): AutoResult {
  const sel = selectionOf(retentionBlock(projectRoot));
  if (!sel || !retentionDue(projectRoot, now)) return { ran: false, removed: 0, bytes: 0, kept: 0 };
  // Never through a symlinked .tapedeck (listSessions finds no session there either).
  if (!realTapedeckDir(projectRoot)) return { ran: false, removed: 0, bytes: 0, kept: 0 };
  writeJsonAtomicSync(join(tapedeckDir(projectRoot), STATE_FILE), { last_run_at: nowIso() });
  const plan = planRemoval(projectRoot, { ...sel, now });
  const result = removeSessions(projectRoot, plan, { now, by: "prune" });
  return {
    ran: true,
    removed: result.removed.length,
    bytes: result.bytes,
    kept: plan.kept.length + result.failed.length,
  };
}

function realTapedeckDir(projectRoot: string): boolean {
  try {
    return ensureOwnDirUnder(projectRoot, tapedeckDir(projectRoot), false);
  } catch {
    return false;
  }
}
