// recovery.json: what recovery found and did. Written by the full recovery
// scan, and updated by a writer that removes a torn final line on its own.
import { join } from "node:path";
import { nowIso, readJsonOrUndefined, writeJsonAtomicSync } from "../base/fsutil.ts";
import { SESSION_FILES } from "./paths.ts";
import type { RecoveryReport } from "./schemas.ts";

export interface TornTail {
  offset: number;
  bytes: number;
  reason: string;
}

/** Why a final line without a newline is not an event. */
export function tornReason(tail: Buffer): string {
  // A multi-byte UTF-8 sequence cut short ends in a lead or continuation byte.
  const last = tail[tail.length - 1] ?? 0;
  if (last >= 0x80) return "no newline; cut inside a UTF-8 character";
  return "no newline; not a complete JSON event";
}

export function emptyReport(): RecoveryReport {
  return {
    schema_version: 1,
    scanned_at: nowIso(),
    valid_events: 0,
    bytes_scanned: 0,
    torn_tail: null,
    malformed_lines: [],
    duplicate_sequences: [],
    non_monotonic_sequences: [],
    duplicate_event_ids: [],
    marked_incomplete: null,
  };
}

export function readReport(dir: string): RecoveryReport | undefined {
  return readJsonOrUndefined<RecoveryReport>(join(dir, SESSION_FILES.recovery));
}

export function writeReport(dir: string, report: RecoveryReport): void {
  writeJsonAtomicSync(join(dir, SESSION_FILES.recovery), report);
}

export function noteTornTail(dir: string, torn: TornTail): void {
  const report = readReport(dir) ?? emptyReport();
  report.torn_tail = torn;
  report.scanned_at = nowIso();
  writeReport(dir, report);
}
