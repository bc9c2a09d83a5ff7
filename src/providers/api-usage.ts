// What the proxy's archive feed needs from a provider to turn one model API
// call into exact usage: which calls are the provider's and whose session they
// belong to (from the request), and the usage of the response (from its
// stream or body). The feed itself knows no provider.
import type { Usage } from "../core/archive/schemas.ts";

/** The parts of a proxied request a reader looks at. */
export interface ApiRequestView {
  method: string;
  /** Path and query as the client sent them. */
  url: string;
  /** Lower-cased names. Carries credentials: a reader never copies a header it does not understand. */
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
}

export interface ApiCallIdentity {
  /** The provider's session id (the hooks' session_id). */
  sessionId: string;
  /** Set when the call comes from a subagent, as the hooks name it. */
  agentId?: string;
  turnId?: string;
}

export interface ApiUsageResult {
  /** The provider's id of the response or message: the event id is derived from it. */
  responseId: string;
  usage: Usage;
  payload: Record<string, unknown>;
}

/** Reads one response: fed each streamed event in order, or the whole body once. */
export interface ApiUsageAccumulator {
  /** Answers the usage when this event completes the response. */
  event(json: unknown): ApiUsageResult | undefined;
  body(json: unknown): ApiUsageResult | undefined;
}

export interface ApiUsageReader {
  provider: string;
  capabilities: readonly string[];
  /** The call's session when this is a model call of this provider, else undefined. */
  identify(req: ApiRequestView): ApiCallIdentity | undefined;
  /** The directory the agent says it works in, when the request body says it. */
  workingDirectory(req: ApiRequestView): string | undefined;
  accumulator(): ApiUsageAccumulator;
  /** The SSE event types its accumulator reads (the proxy skips the others); absent: all. */
  streamEvents?: readonly string[];
}

/** A header's single value, when it is short enough to be an id. */
export function shortHeader(req: ApiRequestView, name: string, max = 256): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.length <= max ? s : undefined;
}

/** Non-negative finite numbers only, floored: a count from the wire is not trusted to be one. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

/** Bytes the tagged-text scan examined, summed over calls: lets a test check the work is linear in the body. */
export const taggedScanStats = { examined: 0 };

// A value longer than this is not the one wanted (PATH_MAX is 4096), and bounds the bytes one start can cost.
const MAX_TAGGED_VALUE_BYTES = 4096;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LETTER_N = 0x6e;

/**
 * Where the JSON string text starting at `from` ends: at a closing quote or a `\n` escape, pairing the other
 * escapes (`\"` is part of the value). Scans at most `limit` bytes; -1 when no end is in them.
 */
function valueEnd(raw: Buffer, from: number, limit: number): { end: number; scanned: number } {
  const stop = Math.min(raw.length, from + limit);
  let i = from;
  while (i < stop) {
    const c = raw[i]!;
    if (c === QUOTE) return { end: i, scanned: i + 1 };
    if (c === BACKSLASH) {
      if (i + 1 >= raw.length) break;
      if (raw[i + 1] === LETTER_N) return { end: i, scanned: i + 2 };
      i += 2;
    } else i += 1;
  }
  return { end: -1, scanned: i };
}

/**
 * Finds `<open>value` in the JSON text of a request body, the value ending at a closing quote or `\n`, and
 * decodes its JSON string escapes (the body is not parsed: it can be megabytes, and only this one string is
 * wanted). The first occurrence with a value of 1 to 4096 bytes wins.
 *
 * Linear in the body, whatever it holds: one pass of indexOf for `open`, and the end of a value is looked for
 * at most once per byte. A regular expression with a lazy value scanned to the body's end from every
 * occurrence: a 400 KB body repeating the phrase took 13 s. `open` must end in a character that is not a
 * backslash, so that a scan from an earlier occurrence passes a later one on an escape boundary and the end
 * it found is that later one's end too.
 */
export function taggedBodyText(rawBody: Buffer, open: string): string | undefined {
  const needle = Buffer.from(open, "utf8");
  let at = 0;
  // The scan so far: from `scanFrom` (a value start) up to `scannedTo`, ending at `end` (-1: not yet).
  let scannedTo = -1;
  let end = -1;
  while (at <= rawBody.length - needle.length) {
    const hit = rawBody.indexOf(needle, at);
    taggedScanStats.examined += (hit < 0 ? rawBody.length : hit + needle.length) - at;
    if (hit < 0) return undefined;
    const start = hit + needle.length;
    at = start;
    if (end < 0 || start >= end) {
      // Resume where an unfinished earlier scan stopped when this start lies within it; else start over.
      const from = end < 0 && start <= scannedTo ? scannedTo : start;
      const r = valueEnd(rawBody, from, start + MAX_TAGGED_VALUE_BYTES + 2 - from);
      taggedScanStats.examined += r.scanned - from;
      scannedTo = r.scanned;
      end = r.end;
    }
    if (end < 0 || end - start < 1 || end - start > MAX_TAGGED_VALUE_BYTES) continue;
    try {
      return JSON.parse(`"${rawBody.toString("utf8", start, end)}"`) as string;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
