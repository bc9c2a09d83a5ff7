// Is Claude Code's transcript of a recorded session still whole? Claude Code has rewritten transcripts in
// place to a metadata-only stub (anthropics/claude-code#66734, 2.1.168-2.1.170), written none for interactive
// sessions (#66486), and its cleanup deletes old ones by age. This compares what the transcript should hold
// (the archive's prompts, answers and tool calls) with what it holds, cheaply:
//   - `quickCheck` (the hook hot path, SessionStart of a resume): one lstat, and a substring count over the
//     file only when it is small (a stub is a few hundred bytes); no JSON parse, never throws.
//   - `observeTranscript` (CLI commands): a bounded line scan, JSON-parsing only the lines that name a
//     user or assistant record.
// Findings, worst first: missing, stub (no user or assistant record at all), shrunk (smaller than the
// adapter has already read of it), fewer (fewer prompts or answers than recorded, or recorded tool calls
// absent), newer (holds more than the archive knows: never restored over without --force), ok.
// Imports only node:fs and ../shared.ts (which every adapter loads already): it runs in the hook process.
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";
import { isRecord } from "../shared.ts";

export type TranscriptFinding = "missing" | "stub" | "shrunk" | "fewer" | "newer" | "ok";

/** What the archive (and the adapter's read position) says the transcript holds at least. */
export interface TranscriptExpectation {
  prompts: number;
  answers: number;
  tool_calls: number;
  /** Tool-use ids the archive recorded on the main thread (bounded list). */
  tool_use_ids: string[];
  /** Bytes of the transcript the adapter has already read (it was at least that long), when known. */
  bytes_seen?: number;
}

export interface TranscriptObservation {
  path: string;
  exists: boolean;
  /** A symlink, FIFO or directory at the transcript's name: never read. */
  unsafe?: string;
  bytes: number;
  mtime: string | null;
  lines: number;
  prompts: number;
  tool_results: number;
  /** Distinct assistant message ids (Claude writes one record per content block). */
  answers: number;
  tool_use_ids: string[];
  /** The scan covered the whole file (else the counts are lower bounds). */
  complete: boolean;
}

export interface TranscriptComparison {
  finding: TranscriptFinding;
  /** One line, for doctor and inspect. */
  detail: string;
  expected: TranscriptExpectation;
  found: TranscriptObservation;
  /** Recorded tool calls the transcript does not hold (bounded). */
  missing_tool_use_ids: string[];
}

/** CLI scans stop here: counts past it are lower bounds, and a finding from them says so. */
export const MAX_SCAN_BYTES = 64 * 1024 * 1024;
/** The hot path counts records only in a file this small; a stub is a few hundred bytes. */
export const QUICK_COUNT_BYTES = 256 * 1024;
const MAX_IDS = 2000;

function readHead(fd: number, bytes: number): Buffer {
  const buf = Buffer.alloc(bytes);
  let length = 0;
  while (length < bytes) {
    const n = readSync(fd, buf, length, bytes - length, length);
    if (n <= 0) break;
    length += n;
  }
  return buf.subarray(0, length);
}

/** Opens the transcript read-only without following a symlink or blocking on a FIFO; undefined if absent. */
function openTranscript(
  path: string,
): { fd: number; size: number; mtime: Date } | { unsafe: string } | undefined {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return undefined;
  }
  if (st.isSymbolicLink()) return { unsafe: "is a symlink" };
  if (!st.isFile()) return { unsafe: "is not a regular file" };
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  const fst = fstatSync(fd);
  if (!fst.isFile()) {
    closeSync(fd);
    return { unsafe: "is not a regular file" };
  }
  return { fd, size: fst.size, mtime: fst.mtime };
}

function emptyObservation(path: string): TranscriptObservation {
  return {
    path,
    exists: false,
    bytes: 0,
    mtime: null,
    lines: 0,
    prompts: 0,
    tool_results: 0,
    answers: 0,
    tool_use_ids: [],
    complete: true,
  };
}

interface LineCounts {
  prompts: number;
  tool_results: number;
  answers: Set<string>;
  tool_use_ids: Set<string>;
  lines: number;
}

function countRecord(line: string, c: LineCounts): void {
  c.lines++;
  // Only user and assistant records are parsed: the rest (attachments, api-request blobs) are most bytes.
  if (!line.includes('"type":"user"') && !line.includes('"type":"assistant"')) return;
  let rec: unknown;
  try {
    rec = JSON.parse(line);
  } catch {
    return;
  }
  if (!isRecord(rec) || !isRecord(rec.message) || rec.isSidechain === true) return;
  const content = rec.message.content;
  const blocks = Array.isArray(content) ? content.filter(isRecord) : [];
  if (rec.type === "user") {
    if (blocks.some((b) => b.type === "tool_result")) c.tool_results++;
    else if (rec.isMeta !== true && rec.isCompactSummary !== true) c.prompts++;
  } else if (rec.type === "assistant") {
    c.answers.add(typeof rec.message.id === "string" ? rec.message.id : String(rec.uuid));
    for (const b of blocks) {
      if (b.type === "tool_use" && typeof b.id === "string" && c.tool_use_ids.size < MAX_IDS)
        c.tool_use_ids.add(b.id);
    }
  }
}

/** The transcript's size and record counts, from a scan bounded by `maxBytes`. Never throws. */
export function observeTranscript(path: string, maxBytes = MAX_SCAN_BYTES): TranscriptObservation {
  const out = emptyObservation(path);
  let opened: ReturnType<typeof openTranscript>;
  try {
    opened = openTranscript(path);
  } catch (error) {
    return { ...out, exists: true, unsafe: (error as NodeJS.ErrnoException).code ?? "unreadable" };
  }
  if (!opened) return out;
  if ("unsafe" in opened) return { ...out, exists: true, unsafe: opened.unsafe };
  const counts: LineCounts = {
    prompts: 0,
    tool_results: 0,
    answers: new Set(),
    tool_use_ids: new Set(),
    lines: 0,
  };
  let complete = true;
  try {
    const data = readHead(opened.fd, Math.min(opened.size, maxBytes));
    complete = data.length >= opened.size;
    let start = 0;
    while (start < data.length) {
      let end = data.indexOf(10, start);
      if (end < 0) end = data.length;
      if (end > start) countRecord(data.toString("utf8", start, end), counts);
      start = end + 1;
    }
  } catch {
    complete = false;
  } finally {
    closeSync(opened.fd);
  }
  return {
    path,
    exists: true,
    bytes: opened.size,
    mtime: opened.mtime.toISOString(),
    lines: counts.lines,
    prompts: counts.prompts,
    tool_results: counts.tool_results,
    answers: counts.answers.size,
    tool_use_ids: [...counts.tool_use_ids],
    complete,
  };
}

/** Compares a transcript with what the archive recorded; the worst finding wins. */
export function compareTranscript(
  expected: TranscriptExpectation,
  found: TranscriptObservation,
): TranscriptComparison {
  const known = new Set(found.tool_use_ids);
  const missingIds = found.complete ? expected.tool_use_ids.filter((id) => !known.has(id)).slice(0, 50) : [];
  const result = (finding: TranscriptFinding, detail: string): TranscriptComparison => ({
    finding,
    detail,
    expected,
    found,
    missing_tool_use_ids: missingIds,
  });
  const recorded = `${expected.prompts} prompt(s), ${expected.answers} answer(s), ${expected.tool_calls} tool call(s) recorded`;
  if (found.unsafe) return result("missing", `the transcript ${found.unsafe}; it was not read`);
  if (!found.exists) return result("missing", `no transcript; ${recorded}`);
  const held = `it holds ${found.prompts} prompt(s), ${found.answers} assistant message(s), ${found.bytes} bytes`;
  const recordedAny = expected.prompts + expected.answers + expected.tool_calls > 0;
  if (recordedAny && found.prompts === 0 && found.answers === 0 && found.complete) {
    return result(
      "stub",
      `a metadata-only stub (${found.lines} record(s), ${found.bytes} bytes); ${recorded}`,
    );
  }
  if (expected.bytes_seen !== undefined && found.bytes < expected.bytes_seen) {
    return result(
      "shrunk",
      `${found.bytes} bytes, but ${expected.bytes_seen} were already read of it; ${held}`,
    );
  }
  const fewer =
    found.complete &&
    (found.prompts < expected.prompts || found.answers < expected.answers || missingIds.length > 0);
  if (fewer) {
    const ids = missingIds.length > 0 ? `, ${missingIds.length} recorded tool call(s) absent` : "";
    return result("fewer", `${held}${ids}; ${recorded}`);
  }
  if (found.prompts > expected.prompts || found.tool_use_ids.length > expected.tool_use_ids.length) {
    return result("newer", `${held}: more than the archive knows (${recorded})`);
  }
  return result("ok", `${held}; ${recorded}`);
}

export interface QuickCheck {
  finding: TranscriptFinding;
  bytes: number;
  /** User and assistant record lines, counted only in a small file. */
  records?: number;
}

/**
 * The hot-path check at the SessionStart of a resume: the transcript must exist, be at least as long as the
 * adapter already read of it, and (when small) hold a user or assistant record. Never throws: a failure to
 * look is "ok", since recording must never hurt the agent.
 */
export function quickCheck(path: string, bytesSeen: number, answersRecorded: number): QuickCheck {
  try {
    const opened = openTranscript(path);
    if (!opened) return { finding: "missing", bytes: 0 };
    if ("unsafe" in opened) return { finding: "missing", bytes: 0 };
    try {
      // A transcript `tapedeck restore` wrote is smaller than Claude's original (no thinking, no attachments):
      // shorter than what was read before is then the restore, not a loss.
      const shrunk = opened.size < bytesSeen && !restoredByTapedeck(opened.fd, opened.size);
      if (opened.size > QUICK_COUNT_BYTES) return { finding: shrunk ? "shrunk" : "ok", bytes: opened.size };
      // Counted in the bytes, not a decoded string: a resume of a 78 KB transcript cost 450 µs decoded.
      const data = readHead(opened.fd, opened.size);
      const records = countMatches(data, USER_NEEDLE) + countMatches(data, ASSISTANT_NEEDLE);
      if (records === 0 && (answersRecorded > 0 || bytesSeen > 0)) {
        return { finding: "stub", bytes: opened.size, records };
      }
      return { finding: shrunk ? "shrunk" : "ok", bytes: opened.size, records };
    } finally {
      closeSync(opened.fd);
    }
  } catch {
    return { finding: "ok", bytes: 0 };
  }
}

/** Restored records say where they came from (`source`); the first record is enough, within this much. */
const RESTORED_HEAD_BYTES = 64 * 1024;
const RESTORED_NEEDLE = Buffer.from('"source":"tapedeck-');

function restoredByTapedeck(fd: number, size: number): boolean {
  const head = readHead(fd, Math.min(size, RESTORED_HEAD_BYTES));
  const firstLine = head.indexOf(10);
  return head.subarray(0, firstLine < 0 ? head.length : firstLine).includes(RESTORED_NEEDLE);
}

const USER_NEEDLE = Buffer.from('"type":"user"');
const ASSISTANT_NEEDLE = Buffer.from('"type":"assistant"');

function countMatches(data: Buffer, needle: Buffer): number {
  let n = 0;
  for (let i = data.indexOf(needle); i >= 0; i = data.indexOf(needle, i + needle.length)) n++;
  return n;
}
