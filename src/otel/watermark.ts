// The per-session, per-endpoint export watermark in `.tapedeck/otel/` (0600 files in 0700 directories,
// never through a symlink), and the backlog status and doctor show from it. Light on purpose: no OTLP code.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { ensureTapedeckDir, tapedeckDir } from "../core/archive/paths.ts";
import type { Manifest } from "../core/archive/schemas.ts";
import { ensureRealDirUnder, readJsonOrUndefined, writeJsonAtomicSync } from "../core/base/fsutil.ts";
import type { Endpoint } from "./endpoint.ts";

export const OTEL_DIR = "otel";

export interface Watermark {
  schema_version: 1;
  session_id: string;
  /** origin and path of the endpoint (no header, no query string) */
  endpoint: string;
  /** events.jsonl bytes whose closed turns the endpoint has accepted */
  offset: number;
  turns: number;
  spans: number;
  /**
   * The prefix of `offset` whose turns went out with content (prompts, answers, tool input and output):
   * an export with --content sends the turns past it again, with their content and the same ids. Absent
   * in a file written before it was kept: nothing is known to have gone with content.
   */
  content?: { offset: number; turns: number };
  requests: number;
  /** the offset whose usage counters the endpoint accepted (--metrics): sent again once it moves */
  metrics_offset?: number;
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
  ) {
    const c = found.content;
    const valid =
      c &&
      Number.isInteger(c.offset) &&
      Number.isInteger(c.turns) &&
      c.offset >= 0 &&
      c.offset <= found.offset;
    return { ...found, content: valid ? c : { offset: 0, turns: 0 } };
  }
  return {
    schema_version: 1,
    session_id: sessionId,
    endpoint: endpointKey(endpoint),
    offset: 0,
    turns: 0,
    spans: 0,
    content: { offset: 0, turns: 0 },
    requests: 0,
    last_export_at: null,
    in_flight: null,
    failures: 0,
    next_attempt_at: null,
    last_error: null,
    last_error_at: null,
  };
}

export function writeWatermark(projectRoot: string, endpoint: Pick<Endpoint, "url">, w: Watermark): void {
  ensureTapedeckDir(projectRoot);
  ensureRealDirUnder(projectRoot, stateDir(projectRoot), true);
  writeJsonAtomicSync(statePath(projectRoot, w.session_id, endpoint), w, true);
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
