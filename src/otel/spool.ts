// What is still to send, per session and endpoint: a watermark in `.tapedeck/otel/` (0600, in 0700
// directories, never through a symlink) holding the byte offset of events.jsonl up to which every closed
// turn has been accepted by the endpoint. The backlog is always the archive past the watermark (the archive
// is the spool: nothing is copied). Before a request the range it covers is written down as in flight;
// after a 2xx the watermark moves past it. A crash between the two sends the same range again, with the
// same trace and span ids (derived from the archive's ids), so an id-keyed backend keeps one copy; a crash
// before the answer loses nothing, because the watermark had not moved.
import type { Manifest } from "../core/schemas.ts";
import type { Endpoint } from "./endpoint.ts";
import { mapSession, type SessionMapping } from "./map.ts";
import type { MappedTurn, Span } from "./model.ts";
import { encodeSpans } from "./otlp.ts";
import { backoffMs, DEFAULT_RETRY, type RetryPolicy, sendWithRetry } from "./send.ts";
import { readWatermark, type Watermark, writeWatermark } from "./watermark.ts";

/** Spans per request: far under a collector's default 4 MiB body limit for spans without content. */
export const MAX_SPANS_PER_REQUEST = 512;
/** Spans mapped per round of a long session's export. */
export const MAX_SPANS_PER_ROUND = 8192;

export interface ExportContext {
  projectRoot: string;
  endpoint: Endpoint;
  resource: (m: Manifest) => Record<string, string | number | boolean | string[]>;
  scopeVersion: string;
  content: boolean;
  idleMs?: number;
  retry?: RetryPolicy;
  now?: () => number;
  maxSpansPerRound?: number;
}

export interface SessionExport {
  session_id: string;
  turns: number;
  spans: number;
  requests: number;
  bytes: number;
  /** closed turns past the watermark that were not sent (a failure stopped the run) */
  backlog_turns: number;
  /** the last turn is still open (the session goes on): it is sent once it closes */
  open_turn: boolean;
  error: string | null;
  skipped?: "backing off";
}

/** A session's result before anything is sent (or when reading it failed: with the error). */
export function emptyExport(sessionId: string, error: string | null = null): SessionExport {
  return {
    session_id: sessionId,
    turns: 0,
    spans: 0,
    requests: 0,
    bytes: 0,
    backlog_turns: 0,
    open_turn: false,
    error,
  };
}

/** Requests of whole turns, each at most MAX_SPANS_PER_REQUEST spans (a larger turn goes alone). */
function batches(turns: MappedTurn[]): MappedTurn[][] {
  const out: MappedTurn[][] = [];
  let current: MappedTurn[] = [];
  let size = 0;
  for (const t of turns) {
    if (current.length > 0 && size + t.spans.length > MAX_SPANS_PER_REQUEST) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(t);
    size += t.spans.length;
  }
  if (current.length > 0) out.push(current);
  return out;
}

export function closedTurns(mapping: SessionMapping): MappedTurn[] {
  const out: MappedTurn[] = [];
  for (const t of mapping.turns) {
    if (!t.closed) break;
    out.push(t);
  }
  return out;
}

/** Exports a session's closed turns past its watermark; stops at the first request that fails. */
export async function exportSession(
  ctx: ExportContext,
  sessionDir: string,
  manifest: Manifest,
  opts: { force?: boolean } = {},
): Promise<SessionExport> {
  const now = ctx.now ?? Date.now;
  const w = readWatermark(ctx.projectRoot, manifest.session_id, ctx.endpoint);
  const result = emptyExport(manifest.session_id);
  if (!opts.force && w.next_attempt_at && Date.parse(w.next_attempt_at) > now()) {
    result.skipped = "backing off";
    result.error = w.last_error;
    return result;
  }
  // A long session is mapped and sent in rounds of whole turns, so its spans are never all in memory.
  for (;;) {
    const mapping = mapSession(sessionDir, manifest, {
      fromOffset: w.offset,
      turnsBefore: w.turns,
      content: ctx.content,
      ...(ctx.idleMs !== undefined ? { idleMs: ctx.idleMs } : {}),
      now: now(),
      maxSpans: ctx.maxSpansPerRound ?? MAX_SPANS_PER_ROUND,
    });
    const closed = closedTurns(mapping);
    result.open_turn = closed.length < mapping.turns.length;
    const failed = await sendTurns(ctx, manifest, w, closed, result, now);
    if (failed || !mapping.more) return result;
  }
}

/** Sends closed turns in requests, moving the watermark after each; answers true when one failed. */
async function sendTurns(
  ctx: ExportContext,
  manifest: Manifest,
  w: Watermark,
  closed: MappedTurn[],
  result: SessionExport,
  now: () => number,
): Promise<boolean> {
  const todo = batches(closed);
  for (let i = 0; i < todo.length; i += 1) {
    const batch = todo[i]!;
    const spans: Span[] = batch.flatMap((t) => t.spans);
    const to = batch.at(-1)!.endOffset;
    const counted = batch.filter((t) => t.spans.length > 0).length;
    if (spans.length > 0) {
      w.in_flight = { from: w.offset, to, turns: counted };
      writeWatermark(ctx.projectRoot, ctx.endpoint, w);
      const body = encodeSpans(
        { resource: ctx.resource(manifest), scopeVersion: ctx.scopeVersion, spans },
        ctx.endpoint.protocol,
      );
      const sent = await sendWithRetry(ctx.endpoint, body, ctx.retry ?? DEFAULT_RETRY);
      result.bytes += sent.bytes;
      if (!sent.ok) {
        w.in_flight = null;
        w.failures += 1;
        w.last_error = sent.error ?? "failed";
        w.last_error_at = new Date(now()).toISOString();
        const wait = sent.retryable
          ? backoffMs(w.failures, { baseDelayMs: 30_000, maxDelayMs: 3_600_000 })
          : 3_600_000;
        w.next_attempt_at = new Date(now() + wait).toISOString();
        writeWatermark(ctx.projectRoot, ctx.endpoint, w);
        result.error = w.last_error;
        result.backlog_turns = todo.slice(i).reduce((n, b) => n + b.length, 0);
        return true;
      }
      w.requests += 1;
      result.requests += 1;
    }
    w.offset = to;
    w.turns += counted;
    w.spans += spans.length;
    w.in_flight = null;
    w.failures = 0;
    w.next_attempt_at = null;
    w.last_error = null;
    w.last_export_at = new Date(now()).toISOString();
    writeWatermark(ctx.projectRoot, ctx.endpoint, w);
    result.turns += counted;
    result.spans += spans.length;
  }
  return false;
}
