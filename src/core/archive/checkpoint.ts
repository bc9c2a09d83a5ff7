// scan-checkpoint.json: the scan's accumulators at the end of a validated
// prefix of events.jsonl, so that inspect scans only what was appended since.
// A sealed 200 MB session took 0.8 s to inspect (every line parsed, then the
// whole file hashed) and never changes: with the checkpoint it takes what
// reading two small files takes.
//
// The checkpoint is a cache, never the truth: it is used only when the file
// still holds the same bytes at the prefix's end (size at least the offset,
// and the SHA-256 of the last BOUNDARY_BYTES before the offset unchanged),
// and `repair` never uses it. A file truncated, rewritten or replaced fails
// that test and is scanned in full. The seal memo (a whole-file hash that
// matched checksums.json) is trusted only while the file's identity, size,
// mtime and ctime are all unchanged: any write moves ctime, which no user
// can set back.
//
// Written like every tapedeck file: 0600, to a temp file then renamed, never
// through a symlink. Failing to write it only costs the next scan its time.
import { createHash } from "node:crypto";
import { fstatSync } from "node:fs";
import { join } from "node:path";
import { readRange } from "../base/byte-range.ts";
import { readJsonOrUndefined, writeFileAtomicSync } from "../base/fsutil.ts";
import { isRecord } from "../base/json.ts";
import type { ScanSnapshot } from "./session-scan.ts";

export const CHECKPOINT_FILE = "scan-checkpoint.json";
/** Enough to cover the last event or two: an append-only writer never touches them again. */
export const BOUNDARY_BYTES = 4096;
/**
 * Below this a full scan costs a few milliseconds (about 2 ms per MB measured),
 * less than reading and writing a checkpoint: small sessions get none.
 */
export const CHECKPOINT_MIN_BYTES = 1024 * 1024;
/**
 * A checkpoint holds every event id (about 25 bytes each): this bound is some
 * two million events, far past a real session, and bounds what a planted
 * file costs. A longer session gets no checkpoint and is scanned in full.
 */
const MAX_CHECKPOINT_BYTES = 64 * 1024 * 1024;

export interface FileIdentity {
  dev: string;
  ino: string;
  size: number;
  mtime_ns: string;
  ctime_ns: string;
}

export interface SealMemo extends FileIdentity {
  /** the whole file's SHA-256, equal to checksums.json's when it was computed */
  sha256: string;
}

export interface Checkpoint {
  version: 1;
  boundary_sha256: string;
  scan: ScanSnapshot;
  seal?: SealMemo;
}

export function fileIdentity(fd: number): FileIdentity {
  const st = fstatSync(fd, { bigint: true });
  return {
    dev: String(st.dev),
    ino: String(st.ino),
    size: Number(st.size),
    mtime_ns: String(st.mtimeNs),
    ctime_ns: String(st.ctimeNs),
  };
}

export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.size === b.size &&
    a.mtime_ns === b.mtime_ns &&
    a.ctime_ns === b.ctime_ns
  );
}

/** SHA-256 of the BOUNDARY_BYTES before `offset` (fewer at the start of the file); undefined past EOF. */
function boundaryHash(fd: number, offset: number): string | undefined {
  const start = Math.max(0, offset - BOUNDARY_BYTES);
  const buf = readRange(fd, start, offset);
  if (buf.length < offset - start) return undefined;
  // A prefix ends just past a newline: anything else was not written by a checkpointing scan.
  if (offset > 0 && buf[buf.length - 1] !== 10) return undefined;
  return createHash("sha256").update(buf).digest("hex");
}

const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const isNumber = (v: unknown): boolean => typeof v === "number";
const isNumberMap = (v: unknown): boolean => isRecord(v) && Object.values(v).every(isNumber);
const isRecordArray = (v: unknown): boolean => Array.isArray(v) && v.every(isRecord);

/**
 * The shape the scanner restores from, checked field by field: the file is
 * ours, but whatever sits in a session directory is read as untrusted, so a
 * damaged one costs a full scan, never a crash or a counter of the wrong type.
 */
function wellFormed(c: unknown): c is Checkpoint {
  if (!isRecord(c) || c.version !== 1 || typeof c.boundary_sha256 !== "string" || !isRecord(c.scan))
    return false;
  const s = c.scan;
  const report = s.report;
  const state = s.state;
  const usage = s.usage;
  return (
    isCount(s.offset) &&
    isCount(s.line_no) &&
    isNumber(s.previous) &&
    isRecord(report) &&
    isCount(report.valid_events) &&
    isRecordArray(report.malformed_lines) &&
    isRecordArray(report.duplicate_sequences) &&
    isRecordArray(report.non_monotonic_sequences) &&
    isRecordArray(report.duplicate_event_ids) &&
    isRecord(state) &&
    state.version === 1 &&
    ["size", "next_sequence", "event_count", "redaction_count", "truncation_count", "epoch"].every((k) =>
      isNumber(state[k]),
    ) &&
    isNumberMap(state.counts) &&
    typeof state.ended === "boolean" &&
    isNumberMap(s.counts_by_kind) &&
    isRecord(usage) &&
    TOKEN_FIELDS.every((k) => isNumber(usage[k])) &&
    Array.isArray(usage.sources) &&
    usage.sources.every((x) => typeof x === "string") &&
    Array.isArray(s.sequences) &&
    s.sequences.every((r) => Array.isArray(r) && r.length === 2 && isNumber(r[0]) && isNumber(r[1])) &&
    typeof s.event_ids === "string"
  );
}

// The reasoning sum is among them: a checkpoint written before it was kept costs one full scan, never an undercount.
const TOKEN_FIELDS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
  "reasoning_output_tokens",
];

/** The session's checkpoint when it still describes a prefix of the file behind `fd`; undefined otherwise. */
export function readCheckpoint(dir: string, fd: number): Checkpoint | undefined {
  const c = readJsonOrUndefined<unknown>(join(dir, CHECKPOINT_FILE), MAX_CHECKPOINT_BYTES);
  if (!wellFormed(c)) return undefined;
  if (c.scan.offset > fstatSync(fd).size) return undefined;
  if (boundaryHash(fd, c.scan.offset) !== c.boundary_sha256) return undefined;
  return c;
}

/** Stores a checkpoint at `snapshot.offset`; quietly does nothing when it cannot (a read-only archive). */
export function writeCheckpoint(dir: string, fd: number, snapshot: ScanSnapshot, seal?: SealMemo): boolean {
  const boundary = boundaryHash(fd, snapshot.offset);
  if (boundary === undefined) return false;
  const checkpoint: Checkpoint = { version: 1, boundary_sha256: boundary, scan: snapshot };
  if (seal) checkpoint.seal = seal;
  try {
    // Compact: it holds every event id, and nobody reads it but the scan.
    const text = JSON.stringify(checkpoint);
    if (text.length > MAX_CHECKPOINT_BYTES) return false;
    writeFileAtomicSync(join(dir, CHECKPOINT_FILE), text);
    return true;
  } catch {
    return false;
  }
}

/**
 * File times tick coarsely (a jiffy, up to 10 ms, on Linux): a write in the
 * same tick as the hash could leave ctime unchanged. A file whose last change
 * is older than this cannot share a tick with any later write.
 */
const SEAL_QUIET_MS = 100;

/** Adds a verified whole-file hash to the checkpoint that describes this very file. */
export function rememberSeal(dir: string, fd: number, seal: SealMemo): void {
  if (Date.now() - Number(BigInt(seal.ctime_ns) / 1_000_000n) < SEAL_QUIET_MS) return;
  const c = readCheckpoint(dir, fd);
  if (!c || c.scan.offset !== seal.size) return;
  if (c.seal && sameFile(c.seal, seal) && c.seal.sha256 === seal.sha256) return;
  writeCheckpoint(dir, fd, c.scan, seal);
}

/** The remembered whole-file hash, if the file has not been touched since it was computed. */
export function rememberedSeal(dir: string, fd: number): string | undefined {
  const c = readJsonOrUndefined<unknown>(join(dir, CHECKPOINT_FILE), MAX_CHECKPOINT_BYTES);
  if (!wellFormed(c) || !isRecord(c.seal) || typeof c.seal.sha256 !== "string") return undefined;
  return sameFile(c.seal, fileIdentity(fd)) ? c.seal.sha256 : undefined;
}

/**
 * A reader's own tally at the end of a validated prefix (the transcript check's counts), in its own file
 * beside the scan's checkpoint and trusted by the same boundary test. Folded into the recovery scan instead,
 * the tally's byte searches cost every full scan a third more (measured on 200 MB: 318 → 471 ms); kept apart,
 * a sealed session's second reader reads only the boundary.
 */
export interface PrefixMemo<T> {
  offset: number;
  data: T;
}

/** The memo in `file` when it still describes a prefix of the file behind `fd` and `isData` accepts it. */
export function readPrefixMemo<T>(
  dir: string,
  file: string,
  fd: number,
  isData: (v: unknown) => v is T,
): PrefixMemo<T> | undefined {
  const m = readJsonOrUndefined<unknown>(join(dir, file), MAX_CHECKPOINT_BYTES);
  if (!isRecord(m) || m.version !== 1 || !isCount(m.offset) || typeof m.boundary_sha256 !== "string")
    return undefined;
  const offset = m.offset as number;
  if (!isData(m.data) || offset > fstatSync(fd).size) return undefined;
  if (boundaryHash(fd, offset) !== m.boundary_sha256) return undefined;
  return { offset, data: m.data };
}

/** Stores a memo at `offset` (just past a newline); quietly does nothing when it cannot. */
export function writePrefixMemo(dir: string, file: string, fd: number, memo: PrefixMemo<unknown>): boolean {
  const boundary = boundaryHash(fd, memo.offset);
  if (boundary === undefined) return false;
  try {
    const text = JSON.stringify({
      version: 1,
      offset: memo.offset,
      boundary_sha256: boundary,
      data: memo.data,
    });
    if (text.length > MAX_CHECKPOINT_BYTES) return false;
    writeFileAtomicSync(join(dir, file), text);
    return true;
  } catch {
    return false;
  }
}
