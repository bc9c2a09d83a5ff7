// What is still to send, per session and endpoint: a watermark in `.tapedeck/otel/` (0600, in 0700
// directories, never through a symlink) holding the byte offset of events.jsonl up to which every closed
// turn has been accepted by the endpoint. The backlog is always the archive past the watermark (the archive
// is the spool: nothing is copied). Before a request the range it covers is written down as in flight;
// after a 2xx the watermark moves past it. A crash between the two sends the same range again, with the
// same trace and span ids (derived from the archive's ids), so an id-keyed backend keeps one copy; a crash
// before the answer loses nothing, because the watermark had not moved.
import type { Manifest } from "../core/archive/schemas.ts";
import type { Endpoint } from "./endpoint.ts";
import { mapSession, type SessionMapping } from "./map.ts";
import { sessionUsage, usageCounters } from "./metrics.ts";
import type { ContentMode, LogRecord, MappedTurn, Span } from "./model.ts";
import { encodeLogs, encodeMetrics, encodeSpans } from "./otlp.ts";
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
  /** where content goes, if anywhere */
  content: ContentMode;
  /** the usage counters to the endpoint's /v1/metrics after each session */
  metrics?: boolean;
  /** also write the renamed usage names (OTEL_SEMCONV_STABILITY_OPT_IN dup) */
  legacyNames?: boolean;
  idleMs?: number;
  retry?: RetryPolicy;
  now?: () => number;
  maxSpansPerRound?: number;
}

export interface SessionExport {
  session_id: string;
  /** turns and spans sent by this run, those sent again included */
  turns: number;
  spans: number;
  /** of those, the turns and spans the endpoint had accepted before (--resend, or --content added) */
  resent_turns: number;
  resent_spans: number;
  requests: number;
  bytes: number;
  /** log records sent (content in the `logs` mode) */
  log_records: number;
  /** usage counter points sent (--metrics) */
  metric_points: number;
  /** closed turns past the watermark that were not sent (a failure stopped the run) */
  backlog_turns: number;
  /** the last turn is still open (the session goes on): it is sent once it closes */
  open_turn: boolean;
  error: string | null;
  skipped?: "backing off";
}

export interface ExportOptions {
  /** try now even when the last failure asked to wait */
  force?: boolean;
  /** send the turns the endpoint accepted before again, with the same ids (implies force) */
  resend?: boolean;
  /** content was asked for by hand: turns accepted without it are sent again with it */
  addContent?: boolean;
}

/** A session's result before anything is sent (or when reading it failed: with the error). */
export function emptyExport(sessionId: string, error: string | null = null): SessionExport {
  return {
    session_id: sessionId,
    turns: 0,
    spans: 0,
    resent_turns: 0,
    resent_spans: 0,
    requests: 0,
    bytes: 0,
    log_records: 0,
    metric_points: 0,
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

/** Where sending again starts: the session's start (--resend), the end of its content prefix, or nowhere. */
function resendFrom(
  ctx: ExportContext,
  w: Watermark,
  opts: ExportOptions,
): { offset: number; turns: number } | undefined {
  const from = opts.resend
    ? { offset: 0, turns: 0 }
    : opts.addContent && ctx.content !== "off"
      ? (w.content ?? { offset: 0, turns: 0 })
      : undefined;
  return from && from.offset < w.offset ? from : undefined;
}

/**
 * Exports a session: first, when asked, the turns the endpoint accepted before (same ids, so an id-keyed
 * backend keeps one copy, now with content if asked), then the closed turns past its watermark. Stops at the
 * first request that fails.
 */
export async function exportSession(
  ctx: ExportContext,
  sessionDir: string,
  manifest: Manifest,
  opts: ExportOptions = {},
): Promise<SessionExport> {
  const now = ctx.now ?? Date.now;
  const w = readWatermark(ctx.projectRoot, manifest.session_id, ctx.endpoint);
  const result = emptyExport(manifest.session_id);
  if (!opts.force && !opts.resend && w.next_attempt_at && Date.parse(w.next_attempt_at) > now()) {
    result.skipped = "backing off";
    result.error = w.last_error;
    return result;
  }
  const again = resendFrom(ctx, w, opts);
  if (again && (await resendTurns(ctx, sessionDir, manifest, w, again, result, now))) return result;
  // A long session is mapped and sent in rounds of whole turns, so its spans are never all in memory.
  for (;;) {
    const mapping = mapRound(ctx, sessionDir, manifest, w.offset, w.turns, now);
    const closed = closedTurns(mapping);
    result.open_turn = closed.length < mapping.turns.length;
    const failed = await sendTurns(ctx, manifest, w, closed, result, now);
    if (failed) return result;
    if (!mapping.more) break;
  }
  if (ctx.metrics && (w.metrics_offset !== w.offset || opts.resend) && w.offset > 0)
    await sendUsage(ctx, sessionDir, manifest, w, result, now);
  return result;
}

/**
 * The session's usage counters up to the watermark, once its turns are in: the same totals and times for
 * the same prefix, so sending them again changes nothing a backend has. A failure leaves them pending.
 */
async function sendUsage(
  ctx: ExportContext,
  sessionDir: string,
  manifest: Manifest,
  w: Watermark,
  result: SessionExport,
  now: () => number,
): Promise<void> {
  const usage = sessionUsage(sessionDir, manifest, w.offset);
  const counters = usageCounters(manifest, usage);
  if (counters.length > 0) {
    const body = encodeMetrics(
      {
        resource: { ...ctx.resource(manifest), "service.instance.id": manifest.session_id },
        scopeVersion: ctx.scopeVersion,
        startMs: usage.startMs,
        timeMs: usage.timeMs,
        counters,
      },
      ctx.endpoint.protocol,
    );
    const sent = await sendWithRetry(
      { ...ctx.endpoint, url: ctx.endpoint.metricsUrl },
      body,
      ctx.retry ?? DEFAULT_RETRY,
    );
    result.bytes += sent.bytes;
    if (!sent.ok) {
      failed(ctx, w, `metrics: ${sent.error ?? "failed"}`, sent.retryable, result, now);
      return;
    }
    w.requests += 1;
    result.requests += 1;
    result.metric_points += counters.reduce((n, c) => n + c.points.length, 0);
  }
  w.metrics_offset = w.offset;
  writeWatermark(ctx.projectRoot, ctx.endpoint, w);
}

function mapRound(
  ctx: ExportContext,
  sessionDir: string,
  manifest: Manifest,
  fromOffset: number,
  turnsBefore: number,
  now: () => number,
): SessionMapping {
  return mapSession(sessionDir, manifest, {
    fromOffset,
    turnsBefore,
    content: ctx.content,
    legacyNames: ctx.legacyNames === true,
    ...(ctx.idleMs !== undefined ? { idleMs: ctx.idleMs } : {}),
    now: now(),
    maxSpans: ctx.maxSpansPerRound ?? MAX_SPANS_PER_ROUND,
  });
}

/** Log records per request: each at most ~256 KB of content, so a request stays under a few MB. */
const MAX_LOGS_PER_REQUEST = 16;

/**
 * One batch: its spans, then (content as logs) its log records, each request retried; on failure the
 * error and the wait before the next try are written down. A batch whose logs failed is sent again whole,
 * spans included, with the same ids.
 */
async function sendBatch(
  ctx: ExportContext,
  manifest: Manifest,
  w: Watermark,
  spans: Span[],
  logs: LogRecord[],
  result: SessionExport,
  now: () => number,
): Promise<boolean> {
  const resource = ctx.resource(manifest);
  const body = encodeSpans({ resource, scopeVersion: ctx.scopeVersion, spans }, ctx.endpoint.protocol);
  if (!(await post(ctx, ctx.endpoint.url, body, w, result, now))) return false;
  for (let i = 0; i < logs.length; i += MAX_LOGS_PER_REQUEST) {
    const chunk = logs.slice(i, i + MAX_LOGS_PER_REQUEST);
    const logBody = encodeLogs(
      { resource, scopeVersion: ctx.scopeVersion, logs: chunk },
      ctx.endpoint.protocol,
    );
    if (!(await post(ctx, ctx.endpoint.logsUrl, logBody, w, result, now))) return false;
    result.log_records += chunk.length;
  }
  return true;
}

async function post(
  ctx: ExportContext,
  url: string,
  body: Uint8Array,
  w: Watermark,
  result: SessionExport,
  now: () => number,
): Promise<boolean> {
  const sent = await sendWithRetry({ ...ctx.endpoint, url }, body, ctx.retry ?? DEFAULT_RETRY);
  result.bytes += sent.bytes;
  if (sent.ok) {
    w.requests += 1;
    result.requests += 1;
    return true;
  }
  failed(ctx, w, sent.error ?? "failed", sent.retryable, result, now);
  return false;
}

function failed(
  ctx: ExportContext,
  w: Watermark,
  error: string,
  retryable: boolean,
  result: SessionExport,
  now: () => number,
): void {
  w.in_flight = null;
  w.failures += 1;
  w.last_error = error;
  w.last_error_at = new Date(now()).toISOString();
  const wait = retryable ? backoffMs(w.failures, { baseDelayMs: 30_000, maxDelayMs: 3_600_000 }) : 3_600_000;
  w.next_attempt_at = new Date(now() + wait).toISOString();
  writeWatermark(ctx.projectRoot, ctx.endpoint, w);
  result.error = w.last_error;
}

function succeeded(w: Watermark, now: () => number): void {
  w.in_flight = null;
  w.failures = 0;
  w.next_attempt_at = null;
  w.last_error = null;
  w.last_export_at = new Date(now()).toISOString();
}

/**
 * Sends again the closed turns from `from` up to the watermark, in rounds and requests as a first export
 * would; the watermark does not move (the endpoint had them), only the content prefix when they went with
 * content. Answers true when a request failed.
 */
async function resendTurns(
  ctx: ExportContext,
  sessionDir: string,
  manifest: Manifest,
  w: Watermark,
  from: { offset: number; turns: number },
  result: SessionExport,
  now: () => number,
): Promise<boolean> {
  let at = { ...from };
  while (at.offset < w.offset) {
    const mapping = mapRound(ctx, sessionDir, manifest, at.offset, at.turns, now);
    const accepted = closedTurns(mapping).filter((t) => t.endOffset <= w.offset);
    if (accepted.length === 0) return false;
    for (const batch of batches(accepted)) {
      const spans = batch.flatMap((t) => t.spans);
      const logs = batch.flatMap((t) => t.logs);
      const counted = batch.filter((t) => t.spans.length > 0).length;
      if (spans.length > 0 && !(await sendBatch(ctx, manifest, w, spans, logs, result, now))) {
        result.backlog_turns = 0;
        return true;
      }
      at = { offset: batch.at(-1)!.endOffset, turns: at.turns + counted };
      if (ctx.content !== "off") w.content = { ...at };
      succeeded(w, now);
      writeWatermark(ctx.projectRoot, ctx.endpoint, w);
      result.turns += counted;
      result.spans += spans.length;
      result.resent_turns += counted;
      result.resent_spans += spans.length;
    }
    if (!mapping.more) return false;
  }
  return false;
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
    const logs = batch.flatMap((t) => t.logs);
    const to = batch.at(-1)!.endOffset;
    const counted = batch.filter((t) => t.spans.length > 0).length;
    if (spans.length > 0) {
      w.in_flight = { from: w.offset, to, turns: counted };
      writeWatermark(ctx.projectRoot, ctx.endpoint, w);
      if (!(await sendBatch(ctx, manifest, w, spans, logs, result, now))) {
        result.backlog_turns = todo.slice(i).reduce((n, b) => n + b.length, 0);
        return true;
      }
    }
    // The content prefix follows the watermark while every turn so far went with content (or had no spans).
    const withContent =
      (w.content?.offset ?? 0) === w.offset && (ctx.content !== "off" || spans.length === 0);
    w.offset = to;
    w.turns += counted;
    w.spans += spans.length;
    if (withContent) w.content = { offset: w.offset, turns: w.turns };
    succeeded(w, now);
    writeWatermark(ctx.projectRoot, ctx.endpoint, w);
    result.turns += counted;
    result.spans += spans.length;
  }
  return false;
}
