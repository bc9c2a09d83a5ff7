// The viewer's data: what the page asks the local server for. It reads the archive only (manifests, events
// by byte offset, the stored checksums and recovery report) and the derived search index; no path ever
// comes from a request: a session is named by its position in the list this process built.
import { closeSync, fstatSync } from "node:fs";
import { join } from "node:path";
import { readConfig } from "../core/archive/config.ts";
import { openForScan, scanLines } from "../core/archive/line-scan.ts";
import { SESSION_FILES } from "../core/archive/paths.ts";
import { recoverSession } from "../core/archive/recovery.ts";
import { readRange } from "../core/base/byte-range.ts";
import { readJsonOrUndefined } from "../core/base/fsutil.ts";
import { type ScopedSession, sessionsInScope } from "../core/read/session-scope.ts";
import type { SessionRef } from "../core/read/sessions.ts";
import { totalTokens } from "../core/read/usage-facts.ts";
import { type ExperimentRecord, listExperiments } from "../experiment/record.ts";
import { buildReport, type ExperimentReport } from "../experiment/report.ts";
import { parseQuery, QueryError } from "../memory/index/query.ts";
import { searchProject } from "../memory/index/search.ts";
import { subagentToolsOf } from "../providers/catalog.ts";
import { usageFactsOf } from "../providers/usage-facts.ts";
import type { ScenarioResult } from "../scenario/schema.ts";
import { priceTable } from "../usage/pricing.ts";
import { UsageQueryError } from "../usage/query-error.ts";
import {
  readTimelinePage,
  type SessionSummaryLine,
  summarizeManifest,
  type TimelinePage,
} from "./timeline.ts";
import { type UsagePageReport, usageForPage } from "./usage-api.ts";

/** Events per page the page may ask for: a page of 256 KB events stays a few MB at most. */
export const MAX_PAGE_EVENTS = 2000;
/** Bytes of events.jsonl per raw chunk (the page hashes the file chunk by chunk). */
export const RAW_CHUNK_BYTES = 4 * 1024 * 1024;
const SEARCH_LIMIT = 50;

/** A listed session: the manifest's summary `list` shows (session-summary.ts), its tokens as one count. */
export interface SessionListItem extends Omit<SessionSummaryLine, "failure" | "tokens"> {
  key: string;
  project: string;
  provider_session_id: string | null;
  tokens: number | null;
  run_type: string;
  arm: string | null;
  experiment_id: string | null;
  replay_of_session_id: string | null;
  redactions: number;
  /** "run": a replay's or experiment run's session (it has a baseline). */
  origin: "recorded" | "run";
  /** The baseline's key, when the baseline is in the list. */
  baseline_key: string | null;
  /** The keys of the listed sessions replayed from this one. */
  replay_keys: string[];
}

export interface Integrity {
  manifest: Record<string, unknown>;
  /** checksums.json as stored (a finished session has one); the page hashes the file and compares */
  checksums: Record<string, unknown> | null;
  /** recovery.json as stored: what an earlier recovery found and did */
  recovery: Record<string, unknown> | null;
  /** a read-only scan of the whole file now */
  scan: {
    valid_events: number;
    bytes_scanned: number;
    malformed_lines: number;
    torn_tail: unknown;
    duplicate_sequences: number;
    non_monotonic_sequences: number;
    redaction_count: number;
    truncation_count: number;
    dropped_count: number;
    duplicate_count: number;
    counts_by_kind: Record<string, number>;
    usage: Record<string, unknown>;
  };
  size: number;
}

export interface ExperimentListItem {
  key: string;
  experiment_id: string;
  kind: string;
  created_at: string;
  provider: string;
  arms: string[];
  runs: number;
  prompt_count: number;
}

/** One experiment as the page shows it: the report's figures (src/experiment/report.ts) and each run's turns. */
export interface ExperimentView {
  item: ExperimentListItem;
  report: ExperimentReport;
  /** the baseline session's key in the session list, when it is one of the listed sessions */
  baseline_key: string | null;
  runs: Array<{
    run_id: string;
    arm: string;
    repetition: number;
    status: string;
    error: string | null;
    turns: Array<{
      index: number;
      ok: boolean;
      exit_code: number | null;
      duration_ms: number;
      answer: string | null;
    }>;
  }>;
}

/** Characters of each turn's answer the A/B view shows. */
const ANSWER_CHARS = 600;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class ViewerData {
  private refs: ScopedSession[] = [];
  private exps: Array<{ dir: string; record: ExperimentRecord }> = [];

  constructor(
    private readonly projects: readonly string[],
    private readonly results: readonly ScenarioResult[] = [],
  ) {}

  /** The scenario results named on the command line, each sample linked to its session when it is listed. */
  scenarioResults(): Array<ScenarioResult & { key: string; session_keys: Array<string | null> }> {
    if (this.refs.length === 0) this.sessions();
    const keyOf = (id: string | null) => {
      const i =
        id === null
          ? -1
          : this.refs.findIndex((r) => r.manifest.session_id === id || r.manifest.provider_session_id === id);
      return i >= 0 ? String(i) : null;
    };
    return this.results.map((r, i) => ({
      ...r,
      key: String(i),
      session_keys: r.samples.map((s) =>
        keyOf(s.run_session_id ?? (s.against === "recorded" ? r.source_session_id : null)),
      ),
    }));
  }

  /**
   * Rebuilt on every list request, so a session recorded while the viewer runs shows up: each project's
   * recordings and the sessions of its replays and experiment runs, each linked to its baseline.
   */
  sessions(): SessionListItem[] {
    const seen = new Set<string>();
    this.refs = this.projects
      .flatMap((p) => sessionsInScope({ project: p }))
      .filter((r) => !seen.has(r.dir) && seen.add(r.dir));
    // Recordings first, newest first, then the runs: a recording keeps its key (#s=0 is the newest one) however
    // many replays are made of it; the page shows each run under its baseline.
    const rank = (r: ScopedSession) => (r.origin === "run" ? 1 : 0);
    this.refs.sort(
      (a, b) => rank(a) - rank(b) || (b.manifest.started_at ?? "").localeCompare(a.manifest.started_at ?? ""),
    );
    const items = this.refs.map((ref, i) => listItem(ref, i));
    const byId = new Map<string, SessionListItem>();
    for (const item of items) if (item.origin === "recorded") byId.set(item.session_id, item);
    for (const item of items) {
      const baseline = item.replay_of_session_id ? byId.get(item.replay_of_session_id) : undefined;
      if (!baseline) continue;
      item.baseline_key = baseline.key;
      baseline.replay_keys.push(item.key);
    }
    return items;
  }

  /** The key of the listed session in this directory, for a link that opens it (`tapedeck view SESSION`). */
  keyOf(dir: string): string | null {
    if (this.refs.length === 0) this.sessions();
    const i = this.refs.findIndex((r) => r.dir === dir);
    return i >= 0 ? String(i) : null;
  }

  /** A usage report over the viewer's projects (usage-api.ts). */
  usage(params: URLSearchParams): UsagePageReport {
    try {
      return usageForPage(this.projects, params);
    } catch (error) {
      if (error instanceof UsageQueryError) throw new ApiError(400, error.message);
      throw error;
    }
  }

  session(key: string): ScopedSession {
    if (this.refs.length === 0) this.sessions();
    const i = /^\d{1,7}$/.test(key) ? Number(key) : -1;
    const ref = this.refs[i];
    if (!ref) throw new ApiError(404, "no such session");
    return ref;
  }

  page(key: string, fromOffset: number, limit: number): TimelinePage & { size: number } {
    const ref = this.session(key);
    const page = readTimelinePage(ref.dir, {
      fromOffset,
      limit: Math.min(Math.max(1, limit), MAX_PAGE_EVENTS),
      // A project's own price overrides (config `pricing`), as `show` uses them; a run's are its baseline's.
      prices: priceTable(readConfig(ref.project)?.pricing),
      subagentTools: subagentToolsOf(ref.manifest.provider),
      facts: usageFactsOf(ref.manifest.provider),
    });
    return { ...page, size: eventsSize(ref.dir) };
  }

  /** A chunk of events.jsonl exactly as stored (already redacted): the page verifies the checksum itself. */
  raw(key: string, offset: number): Buffer {
    const ref = this.session(key);
    const fd = openForScan(join(ref.dir, SESSION_FILES.events));
    try {
      const size = fstatSync(fd).size;
      const start = Math.min(Math.max(0, offset), size);
      return readRange(fd, start, start + Math.min(RAW_CHUNK_BYTES, size - start));
    } finally {
      closeSync(fd);
    }
  }

  /** The byte offset of the first line whose sequence is at least `sequence`: a deep link reads from there. */
  locate(key: string, sequence: number): number {
    const ref = this.session(key);
    const fd = openForScan(join(ref.dir, SESSION_FILES.events));
    try {
      return locateSequence(fd, sequence);
    } finally {
      closeSync(fd);
    }
  }

  integrity(key: string): Integrity {
    const ref = this.session(key);
    return integrityOf(ref);
  }

  experiments(): ExperimentListItem[] {
    this.exps = this.projects.flatMap((p) => listExperiments(p));
    return this.exps.map(({ record }, i) => experimentItem(record, i));
  }

  experiment(key: string): ExperimentView {
    if (this.exps.length === 0) this.experiments();
    const i = /^\d{1,7}$/.test(key) ? Number(key) : -1;
    const found = this.exps[i];
    if (!found) throw new ApiError(404, "no such experiment");
    if (this.refs.length === 0) this.sessions();
    const { record } = found;
    const baseline = this.refs.findIndex((r) => r.manifest.session_id === record.baseline.session_id);
    return {
      item: experimentItem(record, i),
      report: buildReport(record),
      baseline_key: baseline >= 0 ? String(baseline) : null,
      runs: record.runs.map((r) => ({
        run_id: r.run_id,
        arm: r.arm,
        repetition: r.repetition,
        status: r.status,
        error: r.error ?? null,
        turns: r.turns.map((t) => ({
          index: t.index,
          ok: t.ok,
          exit_code: t.exit_code,
          duration_ms: t.duration_ms,
          answer: t.answer === undefined ? null : t.answer.slice(0, ANSWER_CHARS),
        })),
      })),
    };
  }

  search(text: string): { hits: Array<Record<string, unknown>>; stale: boolean } {
    if (this.refs.length === 0) this.sessions();
    let query: ReturnType<typeof parseQuery>;
    try {
      query = parseQuery(text);
    } catch (error) {
      // The query's own problem, in the parser's words: the page shows it under the search box.
      if (error instanceof QueryError) throw new ApiError(400, error.message);
      throw error;
    }
    const hits: Array<Record<string, unknown>> = [];
    let stale = false;
    for (const project of this.projects) {
      const found = searchProject(project, query, {}, SEARCH_LIMIT);
      stale ||= found.stale;
      for (const h of found.hits) {
        const key = this.refs.findIndex(
          (r) => r.project === project && r.manifest.session_id === h.session_id,
        );
        hits.push({ ...h, key: key >= 0 ? String(key) : null });
      }
    }
    hits.sort((a, b) => Number(b.score) - Number(a.score));
    return { hits: hits.slice(0, SEARCH_LIMIT), stale };
  }
}

/** The first complete line starting at or after `from`, with its sequence (null when it is not an event). */
function lineAfter(fd: number, from: number): { offset: number; sequence: number | null } | null {
  let found: { offset: number; sequence: number | null } | null = null;
  let first = true;
  scanLines(fd, Math.max(0, from - 1), (line) => {
    // Reading from one byte before: a line that starts exactly at `from` follows a newline we skip.
    if (first && from > 0) {
      first = false;
      return true;
    }
    first = false;
    if (!line.terminated) return false;
    const m = /^\{"schema_version":\d+,"sequence":(\d{1,15}),/.exec(
      line.bytes.subarray(0, 64).toString("latin1"),
    );
    found = { offset: line.offset, sequence: m ? Number(m[1]) : null };
    return false;
  });
  return found;
}

/**
 * Sequences grow with the file (the store appends them in order), so a binary search over byte offsets
 * finds a deep link's event in a few dozen small reads instead of reading every page before it.
 */
export function locateSequence(fd: number, sequence: number): number {
  let lo = 0;
  let hi = fstatSync(fd).size;
  while (hi - lo > 64 * 1024) {
    const mid = Math.floor((lo + hi) / 2);
    const line = lineAfter(fd, mid);
    if (!line || line.offset >= hi) hi = mid;
    else if (line.sequence !== null && line.sequence < sequence) lo = line.offset;
    else hi = mid;
  }
  // lo is a line start (0 or a line found above); walk the last stretch line by line.
  let at = lo;
  scanLines(fd, lo, (line) => {
    if (!line.terminated) return false;
    const m = /"sequence":(\d{1,15})/.exec(line.bytes.subarray(0, 64).toString("latin1"));
    at = line.offset;
    return !(m && Number(m[1]) >= sequence);
  });
  return at;
}

function experimentItem(record: ExperimentRecord, index: number): ExperimentListItem {
  return {
    key: String(index),
    experiment_id: record.experiment_id,
    kind: record.kind,
    created_at: record.created_at,
    provider: record.provider,
    arms: record.arms.map((a) => a.name),
    runs: record.runs.length,
    prompt_count: record.prompt_count,
  };
}

function eventsSize(dir: string): number {
  try {
    const fd = openForScan(join(dir, SESSION_FILES.events));
    try {
      return fstatSync(fd).size;
    } finally {
      closeSync(fd);
    }
  } catch {
    return 0;
  }
}

export function listItem(
  ref: SessionRef & Partial<Pick<ScopedSession, "origin" | "project">>,
  index: number,
): SessionListItem {
  const m = ref.manifest;
  const sum = summarizeManifest(m as unknown as Record<string, unknown>);
  const t = sum.tokens;
  return {
    key: String(index),
    // A run's manifest names its work tree (gone once the run ends): the project is its baseline's.
    project: ref.project ?? m.project_root,
    session_id: m.session_id,
    provider_session_id: m.provider_session_id,
    provider: m.provider,
    title: sum.title,
    status: sum.failed ? "failed" : String(m.status),
    failed: sum.failed,
    started_at: m.started_at,
    ended_at: sum.ended_at,
    turns: sum.turns,
    tool_calls: sum.tool_calls,
    tool_errors: sum.tool_errors,
    events: sum.events,
    bytes: sum.bytes,
    // Codex and Gemini report input with the cache reads in it: counted once, as `list` counts them.
    tokens: t ? totalTokens(usageFactsOf(m.provider), t) : null,
    run_type: m.run_type,
    arm: m.arm ?? null,
    experiment_id: m.experiment_id ?? null,
    replay_of_session_id: m.replay_of_session_id ?? null,
    redactions: m.redaction_count,
    origin: ref.origin ?? (m.replay_of_session_id ? "run" : "recorded"),
    baseline_key: null,
    replay_keys: [],
  };
}

/** The integrity data of one session: nothing is written (recovery runs read-only). */
export function integrityOf(ref: SessionRef): Integrity {
  const r = recoverSession(ref.dir, { write: false });
  return {
    manifest: (r.manifest ?? ref.manifest) as unknown as Record<string, unknown>,
    checksums: readJsonOrUndefined<Record<string, unknown>>(join(ref.dir, SESSION_FILES.checksums)) ?? null,
    recovery: readJsonOrUndefined<Record<string, unknown>>(join(ref.dir, SESSION_FILES.recovery)) ?? null,
    scan: {
      valid_events: r.report.valid_events,
      bytes_scanned: r.report.bytes_scanned,
      malformed_lines: r.report.malformed_lines.length,
      torn_tail: r.report.torn_tail,
      duplicate_sequences: r.report.duplicate_sequences.length,
      non_monotonic_sequences: r.report.non_monotonic_sequences.length,
      redaction_count: r.state.redaction_count,
      truncation_count: r.state.truncation_count,
      dropped_count: r.state.dropped_count,
      duplicate_count: r.state.duplicate_count,
      counts_by_kind: r.countsByKind,
      usage: r.usage as unknown as Record<string, unknown>,
    },
    size: eventsSize(ref.dir),
  };
}
