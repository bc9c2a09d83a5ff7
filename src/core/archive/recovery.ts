// Recovery of interrupted sessions: one ordered scan of events.jsonl that
// keeps every valid line, removes only a torn final line, reports (never
// rewrites) malformed middle lines and sequence anomalies, and rebuilds the
// advisory counters, the state file and the id table. It then appends what
// waits in the spool, and re-seals a session whose bytes it changed, so that
// after a repair the status and the checksum are both true.
//
// A read-only scan (inspect) continues from the session's checkpoint of an
// already validated prefix and leaves a new one (checkpoint.ts); `repair`
// always reads everything, and refreshes the checkpoint.
import { closeSync, constants, fstatSync, ftruncateSync } from "node:fs";
import { join } from "node:path";
import {
  isErrno,
  nowIso,
  openRegularSync,
  readJsonOrUndefined,
  writeAll,
  writeJsonAtomicSync,
} from "../base/fsutil.ts";
import { addCount } from "../base/json.ts";
import {
  CHECKPOINT_MIN_BYTES,
  fileIdentity,
  readCheckpoint,
  rememberedSeal,
  rememberSeal,
  writeCheckpoint,
} from "./checkpoint.ts";
import { IdTable, idKey } from "./dedup.ts";
import { parseEventLine, scanLines, sha256OfFd } from "./line-scan.ts";
import { sessionLiveness } from "./liveness.ts";
import { acquireLock } from "./lock.ts";
import { SESSION_FILES } from "./paths.ts";
import { emptyReport, tornReason, writeReport } from "./recovery-report.ts";
import type { Checksums, Manifest, RecoveryReport } from "./schemas.ts";
import { emptyUsage, type ScanResult, type ScanSummary, SessionScanner } from "./session-scan.ts";
import { applyLineToState, drainSpoolLocked, emptyState, type SessionState } from "./session-store.ts";
import { listSpool } from "./spool.ts";

// Apart so that `list` judges a session alive without loading recovery.
export { DEFAULT_IDLE_MS, sessionLiveness } from "./liveness.ts";
export type { ScanSummary, UsageSums } from "./session-scan.ts";

export interface RecoverOptions {
  /** Allowed to modify files (truncate a torn tail, rebuild counters, mark incomplete). */
  write: boolean;
  idleMs?: number;
  now?: number;
  /** false: neither read nor leave a checkpoint (a full scan, as the benchmark measures it). */
  checkpoint?: boolean;
  /** A session shorter than this gets no checkpoint (tests lower it). */
  checkpointMinBytes?: number;
}

/** Why a recovery asked not to write left things as they are: the caller's choice, not a problem found. */
export const READ_ONLY_BY_REQUEST = "inspection is read-only";

export interface RecoverResult extends ScanSummary {
  manifest: Manifest | undefined;
  /** Why the session was not modified, when it was not. */
  readOnlyReason: string | null;
  live: boolean;
}

/** Scans the whole file; pure reading. */
export function scanSession(fd: number): ScanResult {
  return new SessionScanner().run(fd, fstatSync(fd).size);
}

interface CheckpointUse {
  /** continue from the checkpoint when it still matches the file */
  resume: boolean;
  /** leave a checkpoint at the end of the last complete line (undefined: none) */
  minBytes: number | undefined;
}

/**
 * Scans what the checkpoint does not cover, and leaves a new one when the
 * validated prefix grew. The snapshot is taken before anyone fixes the torn
 * tail or drains the spool: both only change bytes past its offset.
 */
function scanWithCheckpoint(dir: string, fd: number, use: CheckpointUse): ScanResult {
  let checkpoint = use.resume ? readCheckpoint(dir, fd) : undefined;
  let scanner = new SessionScanner(checkpoint?.scan);
  let scan: ScanResult;
  try {
    scan = scanner.run(fd, fstatSync(fd).size);
  } catch (error) {
    if (!checkpoint) throw error;
    // A checkpoint of the right shape with values no scan could have left: the full scan decides.
    checkpoint = undefined;
    scanner = new SessionScanner();
    scan = scanner.run(fd, fstatSync(fd).size);
  }
  const grew = scan.validEnd > (checkpoint?.scan.offset ?? -1);
  if (use.minBytes !== undefined && scan.validEnd >= use.minBytes && grew) {
    writeCheckpoint(dir, fd, scanner.snapshot());
  }
  return scan;
}

function openEvents(dir: string, write: boolean): number | undefined {
  try {
    return openRegularSync(
      join(dir, SESSION_FILES.events),
      write ? constants.O_RDWR | constants.O_APPEND : constants.O_RDONLY,
    );
  } catch (error) {
    if (isErrno(error, "ENOENT")) return undefined;
    throw error;
  }
}

/**
 * Recovers one session directory. With `write: false` (inspection) nothing
 * is changed. With `write: true` the work happens under the writer lock, and
 * a live session (agent alive, recently active) is never marked incomplete.
 */
export function recoverSession(dir: string, options: RecoverOptions): RecoverResult {
  const manifest = readJsonOrUndefined<Manifest>(join(dir, SESSION_FILES.manifest));
  const liveness = manifest
    ? sessionLiveness(manifest, options.idleMs, options.now)
    : { live: false, reason: null as string | null };
  // Under the writer lock nobody is mid-append, so removing a torn tail and
  // rebuilding counters is safe even while the agent runs; only marking the
  // session incomplete waits until its agent is gone.
  let readOnlyReason: string | null = options.write ? null : READ_ONLY_BY_REQUEST;
  const lock = readOnlyReason ? null : acquireLock(dir, { timeoutMs: 2000 });
  if (!readOnlyReason && !lock) readOnlyReason = "writer lock is held";
  const write = readOnlyReason === null;
  const minBytes = options.checkpointMinBytes ?? CHECKPOINT_MIN_BYTES;
  const use: CheckpointUse =
    options.checkpoint === false ? { resume: false, minBytes: undefined } : { resume: !write, minBytes };
  try {
    // Read again under the lock: a writer may have changed it meanwhile (the mark of the hooks' first append
    // to an imported session, store.ts), and what recovery writes back must keep that.
    const current = lock
      ? (readJsonOrUndefined<Manifest>(join(dir, SESSION_FILES.manifest)) ?? manifest)
      : manifest;
    const result = recoverLocked(dir, current, write, liveness.reason, use);
    return { ...result, readOnlyReason, live: liveness.live };
  } finally {
    lock?.release();
  }
}

type LockedResult = Omit<RecoverResult, "readOnlyReason" | "live">;

function recoverLocked(
  dir: string,
  manifest: Manifest | undefined,
  write: boolean,
  deadReason: string | null,
  use: CheckpointUse,
): LockedResult {
  const fd = openEvents(dir, write);
  if (fd === undefined) {
    return {
      report: emptyReport(),
      state: emptyState(),
      countsByKind: {},
      firstTimestamp: null,
      lastTimestamp: null,
      usage: emptyUsage(),
      manifest,
    };
  }
  try {
    const scan = scanWithCheckpoint(dir, fd, use);
    fixTornTail(fd, scan, write);
    if (!write) return { ...scan, manifest };
    const sealedBefore = readJsonOrUndefined<Checksums>(join(dir, SESSION_FILES.checksums));
    persistRecovery(dir, fd, scan, manifest, deadReason);
    const drained = manifest ? drainSpool(dir, manifest) : 0;
    // The spool's events are in the file now: summarize what is really there.
    const final = drained > 0 ? { ...scanSession(fd), report: scan.report } : scan;
    const finalManifest = readJsonOrUndefined<Manifest>(join(dir, SESSION_FILES.manifest)) ?? manifest;
    if (finalManifest) sealTruthfully(dir, fd, final.state, finalManifest, sealedBefore, scan.report);
    if (drained > 0) scan.report.spool_drained = drained;
    scan.report.scanned_at = nowIso();
    writeReport(dir, scan.report);
    return { ...final, report: scan.report, manifest: finalManifest };
  } finally {
    closeSync(fd);
  }
}

/** Records (and, when writing, removes) a final line without its newline; a complete event keeps its line. */
function fixTornTail(fd: number, scan: ScanResult, write: boolean): void {
  if (!scan.tail) return;
  const { report, state } = scan;
  const tail: Buffer = scan.tail;
  const parsed = parseEventLine(tail);
  const completes = parsed !== undefined && parsed.sequence >= state.next_sequence;
  report.torn_tail = {
    offset: scan.validEnd,
    bytes: tail.length,
    reason: completes ? "complete event without its newline (newline added)" : tornReason(tail),
  };
  if (!write) return;
  if (completes && parsed) {
    writeAll(fd, Buffer.from("\n"));
    applyLineToState(state, parsed, tail.length + 1);
    addCount(scan.countsByKind, parsed.kind);
    report.valid_events += 1;
  } else {
    ftruncateSync(fd, scan.validEnd);
  }
}

/** Appends the spooled events (we hold the lock); a spool that is not a plain directory is left alone. */
function drainSpool(dir: string, manifest: Manifest): number {
  const listing = listSpool(dir);
  if (listing.unsafe || (listing.names.length === 0 && listing.temps.length === 0)) return 0;
  return drainSpoolLocked(dir, manifest).appended;
}

/**
 * Makes the manifest's status and the checksum tell the truth about the
 * file as repair leaves it. A session is complete exactly when its last run
 * ended with a session_end in the file: a torn session_end that repair
 * removed leaves it incomplete, a session_end appended by a writer that died
 * before sealing makes it complete. A sealed session whose bytes changed is
 * re-sealed, the old and new hashes kept in recovery.json.
 */
function sealTruthfully(
  dir: string,
  fd: number,
  state: SessionState,
  manifest: Manifest,
  sealedBefore: Checksums | undefined,
  report: RecoveryReport,
): void {
  const wasComplete = manifest.status === "complete";
  let changed = false;
  if (state.ended && manifest.status !== "complete") {
    manifest.status = "complete";
    manifest.ended_at ??= state.last_event_at;
    manifest.incomplete_reason = null;
    report.marked_incomplete = null;
    changed = true;
  } else if (!state.ended && wasComplete) {
    const reason = report.torn_tail
      ? "repair removed a torn final line: the session's end is not in the archive"
      : "the archive holds no session_end for the session's last run";
    // It was sealed, so liveness was never asked: is its agent still running (then it may still end)?
    const live = sessionLiveness({ ...manifest, status: "active" }).live;
    manifest.status = live ? "active" : "incomplete";
    manifest.incomplete_reason = manifest.status === "incomplete" ? reason : null;
    manifest.ended_at = null;
    if (manifest.status === "incomplete") report.marked_incomplete = reason;
    changed = true;
  }
  const sealed = sealedBefore?.events_sha256 !== undefined;
  if (sealed || manifest.status === "complete") {
    const identity = fileIdentity(fd);
    const { sha256, bytes } = sha256OfFd(fd);
    // The next inspect need not hash the file again while it stays untouched.
    rememberSeal(dir, fd, { ...identity, sha256 });
    if (!sealed || sealedBefore.events_sha256 !== sha256 || sealedBefore.byte_count !== bytes) {
      const checksums: Checksums = {
        schema_version: 1,
        algorithm: "sha256",
        events_sha256: sha256,
        event_count: state.event_count,
        byte_count: bytes,
        finalized_at: nowIso(),
      };
      writeJsonAtomicSync(join(dir, SESSION_FILES.checksums), checksums);
      report.resealed = {
        previous_sha256: sealedBefore?.events_sha256 ?? null,
        previous_byte_count: sealedBefore?.byte_count ?? null,
        sha256,
        byte_count: bytes,
      };
    }
  }
  if (changed) writeJsonAtomicSync(join(dir, SESSION_FILES.manifest), manifest);
}

function persistRecovery(
  dir: string,
  fd: number,
  scan: ScanSummary,
  manifest: Manifest | undefined,
  deadReason: string | null,
): void {
  const { report, state } = scan;
  state.size = fstatSync(fd).size;
  const keys: bigint[] = [];
  scanLines(fd, 0, (line) => {
    const parsed = line.terminated ? parseEventLine(line.bytes) : undefined;
    if (parsed) keys.push(idKey(parsed.event_id));
    return true;
  });
  IdTable.create(join(dir, SESSION_FILES.ids), keys).close();
  const previousState = readJsonOrUndefined<SessionState>(join(dir, SESSION_FILES.state));
  state.dropped_count = previousState?.dropped_count ?? 0;
  state.duplicate_count = previousState?.duplicate_count ?? 0;
  writeJsonAtomicSync(join(dir, SESSION_FILES.state), state);
  if (manifest) {
    manifest.event_count = state.event_count;
    manifest.byte_count = state.size;
    manifest.redaction_count = state.redaction_count;
    manifest.truncation_count = state.truncation_count;
    manifest.last_event_at = state.last_event_at;
    if (manifest.status === "active" && deadReason) {
      manifest.status = "incomplete";
      manifest.incomplete_reason = deadReason;
      report.marked_incomplete = deadReason;
    }
    writeJsonAtomicSync(join(dir, SESSION_FILES.manifest), manifest);
  }
}

/** Reads the stored checksum and compares it with the file as it is now. */
export function verifyChecksums(dir: string): { ok: boolean; reason: string } {
  const stored = readJsonOrUndefined<{ events_sha256?: string; byte_count?: number }>(
    join(dir, SESSION_FILES.checksums),
  );
  if (!stored?.events_sha256) return { ok: false, reason: "no checksums.json" };
  const fd = openEvents(dir, false);
  if (fd === undefined) return { ok: false, reason: "no events.jsonl" };
  try {
    const identity = fileIdentity(fd);
    if (identity.size !== stored.byte_count)
      return { ok: false, reason: "events.jsonl changed size since finalize" };
    if (rememberedSeal(dir, fd) === stored.events_sha256) return { ok: true, reason: "sha256 matches" };
    const { sha256: digest, bytes: position } = sha256OfFd(fd);
    if (digest === stored.events_sha256 && position === stored.byte_count) {
      rememberSeal(dir, fd, { ...identity, sha256: digest });
      return { ok: true, reason: "sha256 matches" };
    }
    return {
      ok: false,
      reason: position === stored.byte_count ? "sha256 differs" : "events.jsonl changed size since finalize",
    };
  } finally {
    closeSync(fd);
  }
}
