// What is still to send, per session and endpoint: a watermark in `.tapedeck/otel/` (0600, in 0700
// directories, never through a symlink) holding the byte offset of events.jsonl up to which every closed
// turn has been accepted by the endpoint. The backlog is always the archive past the watermark (the archive
// is the spool: nothing is copied). Before a request the range it covers is written down as in flight;
// after a 2xx the watermark moves past it. A crash between the two sends the same range again, with the
// same trace and span ids (derived from the archive's ids), so an id-keyed backend keeps one copy; a crash
// before the answer loses nothing, because the watermark had not moved.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { ensureRealDirUnder, readJsonOrUndefined, writeJsonAtomicSync } from "../core/fsutil.ts";
import { ensureTapedeckDir, tapedeckDir } from "../core/paths.ts";
import type { Manifest } from "../core/schemas.ts";
import type { Endpoint } from "./endpoint.ts";
import { mapSession, type SessionMapping } from "./map.ts";
import type { MappedTurn, Span } from "./model.ts";
import { encodeSpans } from "./otlp.ts";
import { backoffMs, DEFAULT_RETRY, type RetryPolicy, sendWithRetry } from "./send.ts";

export const OTEL_DIR = "otel";
/** Spans per request: far under a collector's default 4 MiB body limit for spans without content. */
export const MAX_SPANS_PER_REQUEST = 512;

export interface Watermark {
  schema_version: 1;
  session_id: string;
  /** origin and path of the endpoint (no header, no query string) */
  endpoint: string;
  /** events.jsonl bytes whose closed turns the endpoint has accepted */
  offset: number;
  turns: number;
  spans: number;
  requests: number;
  last_export_at: string | null;
  /** the range of the request being sent; a leftover means the last run died before the answer */
  in_flight: { from: number; to: number; turns: number } | null;
  failures: number;
  next_attempt_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
}

function endpointKey(e: Pick<Endpoint, "url">): string {
  const u = new URL(e.url);
  return `${u.origin}${u.pathname}`;
}

function stateDir(projectRoot: string): string {
  return join(tapedeckDir(projectRoot), OTEL_DIR);
}

function statePath(projectRoot: string, sessionId: string, endpoint: Pick<Endpoint, "url">): string {
  const key = createHash("sha256").update(sessionId).update("\0").update(endpointKey(endpoint)).digest("hex");
  return join(stateDir(projectRoot), `${key.slice(0, 40)}.json`);
}

export function readWatermark(
  projectRoot: string,
  sessionId: string,
  endpoint: Pick<Endpoint, "url">,
): Watermark {
  const found = readJsonOrUndefined<Watermark>(statePath(projectRoot, sessionId, endpoint), 64 * 1024);
  if (
    found?.schema_version === 1 &&
    found.session_id === sessionId &&
    Number.isInteger(found.offset) &&
    found.offset >= 0
  )
    return found;
  return {
    schema_version: 1,
    session_id: sessionId,
    endpoint: endpointKey(endpoint),
    offset: 0,
    turns: 0,
    spans: 0,
    requests: 0,
    last_export_at: null,
    in_flight: null,
    failures: 0,
    next_attempt_at: null,
    last_error: null,
    last_error_at: null,
  };
}

function writeWatermark(projectRoot: string, endpoint: Pick<Endpoint, "url">, w: Watermark): void {
  ensureTapedeckDir(projectRoot);
  ensureRealDirUnder(projectRoot, stateDir(projectRoot), true);
  writeJsonAtomicSync(statePath(projectRoot, w.session_id, endpoint), w, true);
}

export interface ExportContext {
  projectRoot: string;
  endpoint: Endpoint;
  resource: (m: Manifest) => Record<string, string | number | boolean | string[]>;
  scopeVersion: string;
  content: boolean;
  idleMs?: number;
  retry?: RetryPolicy;
  now?: () => number;
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
  const result: SessionExport = {
    session_id: manifest.session_id,
    turns: 0,
    spans: 0,
    requests: 0,
    bytes: 0,
    backlog_turns: 0,
    open_turn: false,
    error: null,
  };
  if (!opts.force && w.next_attempt_at && Date.parse(w.next_attempt_at) > now()) {
    result.skipped = "backing off";
    result.error = w.last_error;
    return result;
  }
  const mapping = mapSession(sessionDir, manifest, {
    fromOffset: w.offset,
    turnsBefore: w.turns,
    content: ctx.content,
    ...(ctx.idleMs !== undefined ? { idleMs: ctx.idleMs } : {}),
    now: now(),
  });
  const closed = closedTurns(mapping);
  result.open_turn = closed.length < mapping.turns.length;
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
        return result;
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
  return result;
}

export interface Backlog {
  sessions: number;
  /** sessions with closed turns not yet accepted */
  pending_sessions: number;
  exported_spans: number;
  last_export_at: string | null;
  last_error: string | null;
  last_error_at: string | null;
}

/**
 * What status and doctor show: per session, whether the archive has grown past its watermark (a cheap size
 * check, no mapping), and the latest error.
 */
export function backlog(
  projectRoot: string,
  endpoint: Pick<Endpoint, "url">,
  sessions: Array<{ manifest: Manifest }>,
): Backlog {
  const out: Backlog = {
    sessions: sessions.length,
    pending_sessions: 0,
    exported_spans: 0,
    last_export_at: null,
    last_error: null,
    last_error_at: null,
  };
  for (const { manifest } of sessions) {
    const w = readWatermark(projectRoot, manifest.session_id, endpoint);
    out.exported_spans += w.spans;
    if (manifest.byte_count > w.offset) out.pending_sessions += 1;
    if (w.last_export_at && (!out.last_export_at || w.last_export_at > out.last_export_at))
      out.last_export_at = w.last_export_at;
    if (w.last_error && w.last_error_at && (!out.last_error_at || w.last_error_at > out.last_error_at)) {
      out.last_error = w.last_error;
      out.last_error_at = w.last_error_at;
    }
  }
  return out;
}
