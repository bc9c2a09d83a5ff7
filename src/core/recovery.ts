// Recovery of interrupted sessions: one ordered scan of events.jsonl that
// keeps every valid line, removes only a torn final line, reports (never
// rewrites) malformed middle lines and sequence anomalies, and rebuilds the
// advisory counters, the state file and the id table.
import { closeSync, constants, fstatSync, ftruncateSync, openSync } from "node:fs";
import { join } from "node:path";
import { IdTable, idKey } from "./dedup.ts";
import { isErrno, nowIso, readJsonOrUndefined, writeAll, writeJsonAtomicSync } from "./fsutil.ts";
import { acquireLock } from "./lock.ts";
import { SESSION_FILES } from "./paths.ts";
import { emptyReport, tornReason, writeReport } from "./recovery-report.ts";
import { parseEventLine, scanLines, sha256OfFd } from "./scan.ts";
import type { Manifest, RecoveryReport } from "./schemas.ts";
import { applyLineToState, emptyState, type SessionState } from "./store.ts";

/** An active session with no event for this long is considered abandoned. */
export const DEFAULT_IDLE_MS = 6 * 60 * 60 * 1000;

export interface RecoverOptions {
  /** Allowed to modify files (truncate a torn tail, rebuild counters, mark incomplete). */
  write: boolean;
  idleMs?: number;
  now?: number;
}

export interface ScanSummary {
  report: RecoveryReport;
  state: SessionState;
  countsByKind: Record<string, number>;
  firstTimestamp: string | null;
  lastTimestamp: string | null;
}

export interface RecoverResult extends ScanSummary {
  manifest: Manifest | undefined;
  /** Why the session was not modified, when it was not. */
  readOnlyReason: string | null;
  live: boolean;
}

function pidAlive(pid: number | null | undefined): boolean {
  if (!pid || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return isErrno(error, "EPERM");
  }
}

/** Whether an `active` session still has a writer: its agent is alive and it is not idle. */
export function sessionLiveness(
  manifest: Manifest,
  idleMs = DEFAULT_IDLE_MS,
  now = Date.now(),
): { live: boolean; reason: string | null } {
  if (manifest.status !== "active") return { live: false, reason: null };
  if (manifest.agent_pid && !pidAlive(manifest.agent_pid)) {
    return { live: false, reason: `agent process ${manifest.agent_pid} ended without a terminal event` };
  }
  const last = Date.parse(manifest.last_event_at ?? manifest.started_at);
  if (Number.isFinite(last) && now - last > idleMs) {
    return { live: false, reason: `no event for ${Math.round((now - last) / 60000)} minutes` };
  }
  return { live: true, reason: null };
}

/** Scans the whole file; pure reading. */
export function scanSession(fd: number): ScanSummary & { tail: Buffer | null; validEnd: number } {
  const report = emptyReport();
  const state = emptyState();
  const countsByKind: Record<string, number> = {};
  const sequences = new Set<number>();
  const ids = new Set<string>();
  let previous = 0;
  let lineNo = 0;
  let tail: Buffer | null = null;
  let validEnd = 0;
  let firstTimestamp: string | null = null;
  scanLines(fd, 0, (line) => {
    lineNo += 1;
    if (!line.terminated) {
      tail = Buffer.from(line.bytes);
      return;
    }
    validEnd = line.offset + line.bytes.length + 1;
    const parsed = parseEventLine(line.bytes);
    if (!parsed) {
      state.size += line.bytes.length + 1;
      report.malformed_lines.push({
        line: lineNo,
        offset: line.offset,
        bytes: line.bytes.length,
        reason: line.bytes.length === 0 ? "empty line" : "not a JSON event envelope",
      });
      return;
    }
    if (sequences.has(parsed.sequence))
      report.duplicate_sequences.push({ line: lineNo, sequence: parsed.sequence });
    else if (parsed.sequence <= previous) {
      report.non_monotonic_sequences.push({ line: lineNo, sequence: parsed.sequence, previous });
    }
    sequences.add(parsed.sequence);
    previous = Math.max(previous, parsed.sequence);
    if (ids.has(parsed.event_id)) {
      report.duplicate_event_ids.push({ line: lineNo, event_id_sha256: idKey(parsed.event_id).toString(16) });
    }
    ids.add(parsed.event_id);
    applyLineToState(state, parsed, line.bytes.length + 1);
    countsByKind[parsed.kind] = (countsByKind[parsed.kind] ?? 0) + 1;
    firstTimestamp ??= parsed.timestamp ?? null;
    report.valid_events += 1;
    return;
  });
  report.bytes_scanned = fstatSync(fd).size;
  return { report, state, countsByKind, firstTimestamp, lastTimestamp: state.last_event_at, tail, validEnd };
}

function openEvents(dir: string, write: boolean): number | undefined {
  try {
    return openSync(
      join(dir, SESSION_FILES.events),
      (write ? constants.O_RDWR | constants.O_APPEND : constants.O_RDONLY) | constants.O_NOFOLLOW,
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
  let readOnlyReason: string | null = options.write ? null : "inspection is read-only";
  const lock = readOnlyReason ? null : acquireLock(dir, { timeoutMs: 2000 });
  if (!readOnlyReason && !lock) readOnlyReason = "writer lock is held";
  const write = readOnlyReason === null;
  try {
    const fd = openEvents(dir, write);
    if (fd === undefined) {
      const report = emptyReport();
      return {
        report,
        state: emptyState(),
        countsByKind: {},
        firstTimestamp: null,
        lastTimestamp: null,
        manifest,
        readOnlyReason,
        live: liveness.live,
      };
    }
    try {
      const scan = scanSession(fd);
      const { report, state } = scan;
      if (scan.tail) {
        const tail: Buffer = scan.tail;
        const parsed = parseEventLine(tail);
        const completes = parsed !== undefined && parsed.sequence >= state.next_sequence;
        report.torn_tail = {
          offset: scan.validEnd,
          bytes: tail.length,
          reason: completes ? "complete event without its newline (newline added)" : tornReason(tail),
        };
        if (write) {
          if (completes && parsed) {
            writeAll(fd, Buffer.from("\n"));
            applyLineToState(state, parsed, tail.length + 1);
            scan.countsByKind[parsed.kind] = (scan.countsByKind[parsed.kind] ?? 0) + 1;
            report.valid_events += 1;
          } else {
            ftruncateSync(fd, scan.validEnd);
          }
        }
      }
      if (write) persistRecovery(dir, fd, scan, manifest, liveness.reason);
      return { ...scan, manifest, readOnlyReason, live: liveness.live };
    } finally {
      closeSync(fd);
    }
  } finally {
    lock?.release();
  }
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
  report.scanned_at = nowIso();
  writeReport(dir, report);
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
    const { sha256: digest, bytes: position } = sha256OfFd(fd);
    if (digest === stored.events_sha256 && position === stored.byte_count)
      return { ok: true, reason: "sha256 matches" };
    return {
      ok: false,
      reason: position === stored.byte_count ? "sha256 differs" : "events.jsonl changed size since finalize",
    };
  } finally {
    closeSync(fd);
  }
}
