// What a scenario needs from a recorded session, read from its archive only (never the provider's
// transcript), in one streamed pass, opened read-only: the main agent's prompts and answers in a sequence
// range, the usage and injected context in it, and a hash of the file up to the range's last line (a
// later append leaves that prefix, and so the hash, as it was).

import { createHash } from "node:crypto";
import { closeSync, fstatSync } from "node:fs";
import { join } from "node:path";
import { openForScan } from "../core/archive/line-scan.ts";
import { SESSION_FILES } from "../core/archive/paths.ts";
import { readLines } from "../core/base/bounded-lines.ts";
import { hashPrefix } from "../core/base/byte-range.ts";
import { CLOSE_TAG, MARKER_NAME } from "../core/ports/memory-marker.ts";

export interface SeqRange {
  from: number;
  to: number;
}

export interface SourceTurn {
  sequence: number;
  timestamp: string;
  prompt: string;
}

export interface SourceReading {
  prompts: SourceTurn[];
  /** The main agent's last answer in the range, as recorded (so redacted). */
  finalAnswer: string | null;
  firstTimestamp: string | null;
  lastTimestamp: string | null;
  firstSequence: number | null;
  lastSequence: number | null;
  usage: {
    input_tokens: number;
    output_tokens: number;
    cache_read: number;
    cache_creation: number;
    seen: boolean;
  };
  costUsd: number | null;
  injectedBytes: number;
  prefixSha256: string;
  prefixBytes: number;
  skippedLines: number;
}

const OPEN = `<${MARKER_NAME}`;

/** Bytes of tapedeck's memory blocks in a text: what retrieval put in front of the agent. */
export function injectedBytesOf(text: string): number {
  let total = 0;
  let at = text.indexOf(OPEN);
  while (at >= 0) {
    const end = text.indexOf(CLOSE_TAG, at);
    const stop = end < 0 ? text.length : end + CLOSE_TAG.length;
    total += Buffer.byteLength(text.slice(at, stop));
    at = text.indexOf(OPEN, stop);
  }
  return total;
}

function answerOf(payload: Record<string, unknown>): string | null {
  const t = payload.text ?? payload.last_assistant_message;
  return typeof t === "string" ? t : null;
}

/** Injected bytes in every string of a payload (a marker can sit in a prompt or in added context). */
function injectedIn(value: unknown, depth: number): number {
  if (typeof value === "string") return injectedBytesOf(value);
  if (depth > 32 || value === null || typeof value !== "object") return 0;
  let total = 0;
  for (const v of Object.values(value)) total += injectedIn(v, depth + 1);
  return total;
}

const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);

interface Line {
  sequence?: unknown;
  timestamp?: unknown;
  kind?: unknown;
  agent_id?: unknown;
  payload?: Record<string, unknown>;
  usage?: Record<string, unknown>;
}

function emptyReading(): SourceReading {
  return {
    prompts: [],
    finalAnswer: null,
    firstTimestamp: null,
    lastTimestamp: null,
    firstSequence: null,
    lastSequence: null,
    usage: { input_tokens: 0, output_tokens: 0, cache_read: 0, cache_creation: 0, seen: false },
    costUsd: null,
    injectedBytes: 0,
    prefixSha256: "",
    prefixBytes: 0,
    skippedLines: 0,
  };
}

function fold(r: SourceReading, e: Line, raw: string): void {
  const seq = e.sequence as number;
  const ts = typeof e.timestamp === "string" ? e.timestamp : null;
  r.firstSequence ??= seq;
  r.lastSequence = seq;
  if (ts) {
    r.firstTimestamp ??= ts;
    r.lastTimestamp = ts;
  }
  if (raw.includes(OPEN)) r.injectedBytes += injectedIn(e.payload, 0);
  const main = e.agent_id === undefined || e.agent_id === null;
  const p = e.payload ?? {};
  if (e.kind === "user_prompt" && main && typeof p.prompt === "string" && p.prompt.trim() !== "") {
    r.prompts.push({ sequence: seq, timestamp: ts ?? "", prompt: p.prompt });
  } else if (e.kind === "assistant_message" && main) {
    r.finalAnswer = answerOf(p) ?? r.finalAnswer;
  } else if (e.kind === "turn_usage" && e.usage) {
    r.usage.seen = true;
    r.usage.input_tokens += num(e.usage.input_tokens);
    r.usage.output_tokens += num(e.usage.output_tokens);
    r.usage.cache_read += num(e.usage.cache_read_input_tokens);
    r.usage.cache_creation += num(e.usage.cache_creation_input_tokens);
    const cost = e.usage.cost_usd ?? p.cost_usd ?? p.total_cost_usd;
    if (typeof cost === "number" && Number.isFinite(cost)) r.costUsd = (r.costUsd ?? 0) + cost;
  }
}

/** Reads a session's archive directory; throws when events.jsonl cannot be opened. */
export function readSource(dir: string, range?: SeqRange): SourceReading {
  const path = join(dir, SESSION_FILES.events);
  const r = emptyReading();
  const fd = openForScan(path);
  let end = 0;
  try {
    // Bounded: core's scanLines holds the longest line whole, and a damaged or planted archive's 1 GB line
    // would have been held (and its buffer doubled) just to be skipped.
    for (const line of readLines(fd, 0, fstatSync(fd).size)) {
      if (!line.bytes) {
        r.skippedLines += 1;
        continue;
      }
      const raw = line.bytes.toString("utf8");
      let e: Line;
      try {
        e = JSON.parse(raw) as Line;
      } catch {
        r.skippedLines += 1;
        continue;
      }
      if (typeof e?.sequence !== "number") {
        r.skippedLines += 1;
        continue;
      }
      if (range && (e.sequence < range.from || e.sequence > range.to)) continue;
      fold(r, e, raw);
      end = line.end;
    }
    const hashed = sha256Prefix(fd, end);
    r.prefixSha256 = hashed;
    r.prefixBytes = end;
  } finally {
    closeSync(fd);
  }
  return r;
}

function sha256Prefix(fd: number, end: number): string {
  const hash = createHash("sha256");
  hashPrefix(fd, end, hash);
  return hash.digest("hex");
}

/** sha256 of the first `bytes` of events.jsonl, or null when the file is shorter or unreadable. */
export function prefixHash(dir: string, bytes: number): string | null {
  let fd: number;
  try {
    fd = openForScan(join(dir, SESSION_FILES.events));
  } catch {
    return null;
  }
  try {
    if (fstatSync(fd).size < bytes) return null;
    return sha256Prefix(fd, bytes);
  } finally {
    closeSync(fd);
  }
}
