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
import { fstatSync, readSync } from "node:fs";
import { join } from "node:path";
import { readJsonOrUndefined, writeFileAtomicSync } from "./fsutil.ts";
import type { ScanSnapshot } from "./session-scan.ts";

export const CHECKPOINT_FILE = "scan-checkpoint.json";
/** Enough to cover the last event or two: an append-only writer never touches them again. */
export const BOUNDARY_BYTES = 4096;
/**
 * Below this a full scan costs a few milliseconds (about 2 ms per MB measured),
 * less than reading and writing a checkpoint: small sessions get none.
 */
export const CHECKPOINT_MIN_BYTES = 1024 * 1024;
/** A checkpoint holds every event id; far above one of a real session, it bounds what a planted one costs. */
const MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024;

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
  const buf = Buffer.allocUnsafe(offset - start);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, start + got);
    if (n <= 0) return undefined;
    got += n;
  }
  // A prefix ends just past a newline: anything else was not written by a checkpointing scan.
  if (offset > 0 && buf[buf.length - 1] !== 10) return undefined;
  return createHash("sha256").update(buf).digest("hex");
}

function wellFormed(c: Checkpoint | undefined): c is Checkpoint {
  const s = c?.scan;
  return (
    c?.version === 1 &&
    typeof c.boundary_sha256 === "string" &&
    typeof s === "object" &&
    s !== null &&
    Number.isSafeInteger(s.offset) &&
    s.offset >= 0 &&
    Array.isArray(s.sequences) &&
    Array.isArray(s.event_ids) &&
    typeof s.report === "object" &&
    s.report !== null &&
    typeof s.state === "object" &&
    s.state !== null &&
    typeof s.usage === "object" &&
    s.usage !== null
  );
}

/** The session's checkpoint when it still describes a prefix of the file behind `fd`; undefined otherwise. */
export function readCheckpoint(dir: string, fd: number): Checkpoint | undefined {
  const c = readJsonOrUndefined<Checkpoint>(join(dir, CHECKPOINT_FILE), MAX_CHECKPOINT_BYTES);
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
    writeFileAtomicSync(join(dir, CHECKPOINT_FILE), JSON.stringify(checkpoint));
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
  const c = readJsonOrUndefined<Checkpoint>(join(dir, CHECKPOINT_FILE), MAX_CHECKPOINT_BYTES);
  if (!wellFormed(c) || !c.seal) return undefined;
  return sameFile(c.seal, fileIdentity(fd)) ? c.seal.sha256 : undefined;
}
