// A recorded session as OpenTelemetry traces: one trace per turn (see turn-spans.ts for the spans of one).
// Events are folded in archive order from a byte offset (the export watermark) by the core turn model, the
// one `show` and the viewer use, and each turn is handed out with the byte range it came from and whether it
// is closed: a turn closes when the model starts the next one (at the next prompt, or a session start after
// it), when a session_end follows it, or when the session is over (finished, or idle past the limit). Only
// closed turns are exported, so an exported turn never grows afterwards; a session_end therefore ends the
// model's turn too, and what follows it (a resume) starts afresh.

import type { Manifest } from "../core/archive/schemas.ts";
import { readJsonOrUndefined } from "../core/base/fsutil.ts";
import type { Placement, TurnEvent } from "../core/read/timeline/nodes.ts";
import { TurnModel } from "../core/read/timeline/turns.ts";
import { subagentToolsOf } from "../providers/catalog.ts";
import type { Attributes, ContentMode, MappedTurn } from "./model.ts";
import { type ArchiveEvent, readArchive } from "./read.ts";
import { ATTR } from "./semconv.ts";
import { type SessionFacts, TurnMapper } from "./turn-spans.ts";

export interface MapOptions {
  /** byte offset to start at: 0 or a turn boundary a previous export ended at */
  fromOffset?: number;
  /** turns already exported before fromOffset (numbers the turns) */
  turnsBefore?: number;
  /**
   * prompts, answers, tool input and output (the redacted archive's text): as span attributes (`true` or
   * "attributes") or as operation-details log records ("logs"); none when absent, false or "off"
   */
  content?: boolean | ContentMode;
  /** also write the usage names the conventions renamed (the `dup` stability mode) */
  legacyNames?: boolean;
  /** an active session whose last event is older than this is treated as over (default 30 minutes) */
  idleMs?: number;
  now?: number;
  /** stop after the closed turn that reaches this many spans (a long session is exported in rounds) */
  maxSpans?: number;
}

export interface SessionMapping {
  sessionId: string;
  provider: string;
  turns: MappedTurn[];
  /** just past the last complete line read */
  endOffset: number;
  /** the read stopped at maxSpans: more turns follow the last one */
  more: boolean;
}

export const DEFAULT_IDLE_MS = 30 * 60 * 1000;
const MAX_MANIFEST_BYTES = 1024 * 1024;

export function readManifest(sessionDir: string): Manifest | undefined {
  const m = readJsonOrUndefined<Manifest>(`${sessionDir}/manifest.json`, MAX_MANIFEST_BYTES);
  return m && m.schema_version === 1 && typeof m.session_id === "string" ? m : undefined;
}

/** Attributes every span of the session carries: who it is, and for a replay or experiment run, its arm. */
export function sessionAttributes(m: Manifest): Attributes {
  const conversationId = m.provider_session_id ?? m.session_id;
  const out: Attributes = {
    [ATTR.conversationId]: conversationId,
    [ATTR.sessionId]: conversationId,
    "tapedeck.session.id": m.session_id,
    "tapedeck.provider": m.provider,
    "tapedeck.run.type": m.run_type ?? "recorded",
  };
  if (m.replay_of_session_id) {
    out[ATTR.sessionPreviousId] = m.replay_of_session_id;
    out["tapedeck.baseline.session.id"] = m.replay_of_session_id;
  }
  if (m.arm) out["tapedeck.arm.name"] = m.arm;
  if (m.experiment_id) out["tapedeck.experiment.id"] = m.experiment_id;
  if (m.native_memory) out["tapedeck.arm.native_memory"] = m.native_memory;
  if (m.retrieval) out["tapedeck.arm.retrieval"] = m.retrieval;
  return out;
}

/** Resource attributes of a session: the service and the repository revision it ran on. */
export function sessionResource(
  m: Manifest,
  extra: { serviceVersion: string; repositoryUrl?: string | null },
): Attributes {
  const out: Attributes = { "service.name": "tapedeck", "service.version": extra.serviceVersion };
  if (m.repository_revision) out["vcs.ref.head.revision"] = m.repository_revision;
  if (m.repository_branch) out["vcs.ref.head.name"] = m.repository_branch;
  if (extra.repositoryUrl) out["vcs.repository.url.full"] = extra.repositoryUrl;
  return out;
}

interface Group {
  first: ArchiveEvent;
  prompt?: ArchiveEvent;
  events: Array<{ e: ArchiveEvent; placed: Placement }>;
}

function turnEvent(e: ArchiveEvent): TurnEvent {
  return {
    sequence: e.sequence,
    kind: e.kind,
    ...(e.turnId ? { turn_id: e.turnId } : {}),
    ...(e.agentId ? { agent_id: e.agentId } : {}),
    payload: e.payload,
    ...(e.usage ? { usage: e.usage } : {}),
  };
}
const CONTENT_KINDS = new Set([
  "user_prompt",
  "tool_call",
  "tool_result",
  "tool_error",
  "turn_usage",
  "subagent_start",
  "assistant_message",
]);

/** Maps a session's turns from `fromOffset`. */
export function mapSession(sessionDir: string, manifest: Manifest, options: MapOptions = {}): SessionMapping {
  const facts: SessionFacts = {
    sessionId: manifest.session_id,
    provider: manifest.provider,
    conversationId: manifest.provider_session_id ?? manifest.session_id,
    common: sessionAttributes(manifest),
  };
  const turns: MappedTurn[] = [];
  const model = new TurnModel({ subagentTools: subagentToolsOf(manifest.provider) });
  let index = options.turnsBefore ?? 0;
  let group: Group | undefined;
  let spanCount = 0;
  let more = false;
  const full = () => options.maxSpans !== undefined && spanCount >= options.maxSpans;

  const flush = (endOffset: number, closed: boolean) => {
    if (!group) return;
    const g = group;
    group = undefined;
    if (!g.events.some(({ e }) => CONTENT_KINDS.has(e.kind))) {
      // Starts and ends with nothing between (a resume that was closed at once): no trace, only the range.
      turns.push({
        traceId: "",
        firstOffset: g.first.offset,
        endOffset,
        closed,
        spans: [],
        logs: [],
        usage: [],
      });
      return;
    }
    index += 1;
    const mapper = new TurnMapper(facts, g.first, g.prompt, {
      content: contentMode(options.content),
      legacyNames: options.legacyNames === true,
      index,
    });
    for (const { e, placed } of g.events) mapper.add(e, placed);
    const spans = mapper.finish();
    spanCount += spans.length;
    turns.push({
      traceId: mapper.id,
      firstOffset: g.first.offset,
      endOffset,
      closed,
      spans,
      logs: mapper.logRecords,
      usage: mapper.usageByModel,
    });
  };

  const endOffset = readArchive(sessionDir, options.fromOffset ?? 0, (e) => {
    const te = turnEvent(e);
    if (group && model.startsTurn(te)) {
      flush(e.offset, true);
      // Stopped before this event: the next round starts at it.
      if (full()) {
        more = true;
        return false;
      }
    }
    const placed = model.add(te);
    group ??= { first: e, events: [] };
    group.events.push({ e, placed });
    if (placed.role === "prompt" && placed.main) group.prompt ??= e;
    if (e.kind === "session_end" && !e.agentId) {
      model.finish();
      flush(e.end, true);
      if (full()) {
        more = true;
        return false;
      }
    }
    return true;
  });
  if (group && !more) flush(endOffset, sessionOver(manifest, options));
  return {
    sessionId: manifest.session_id,
    provider: manifest.provider,
    turns,
    endOffset,
    more,
  };
}

export function contentMode(c: boolean | ContentMode | undefined): ContentMode {
  if (c === true) return "attributes";
  return c === "attributes" || c === "logs" ? c : "off";
}

/** Finished, or active with nothing recorded for longer than the idle limit. */
export function sessionOver(m: Manifest, options: Pick<MapOptions, "idleMs" | "now"> = {}): boolean {
  if (m.status !== "active") return true;
  const last = Date.parse(m.last_event_at ?? m.started_at);
  const now = options.now ?? Date.now();
  return Number.isFinite(last) && now - last > (options.idleMs ?? DEFAULT_IDLE_MS);
}

/** Resource attributes the user adds (OTEL_RESOURCE_ATTRIBUTES, otel.resource_attributes): bounded. */
const MAX_USER_RESOURCE = 32;
const RESOURCE_KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,127}$/;

/**
 * What the user asked to stamp on every resource: `user.id` (to join Claude Code's own events by user, which
 * tapedeck never adds by itself), `deployment.environment`, a team. The environment's `k=v,k2=v2` list
 * (percent-encoded, as the spec writes it), then the config's object; tapedeck's own keys win over both.
 */
export function userResource(
  envText: string | undefined,
  config: Record<string, unknown> | undefined,
): Attributes {
  const out: Attributes = {};
  const put = (k: string, v: unknown) => {
    if (Object.keys(out).length >= MAX_USER_RESOURCE || !RESOURCE_KEY.test(k)) return;
    if (typeof v === "string" && v !== "") out[k] = v.slice(0, 256);
    else if (typeof v === "number" && Number.isFinite(v)) out[k] = v;
    else if (typeof v === "boolean") out[k] = v;
  };
  for (const part of (envText ?? "").split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // not percent-encoded: kept as written
    }
    put(part.slice(0, eq).trim(), value);
  }
  if (config && typeof config === "object" && !Array.isArray(config))
    for (const [k, v] of Object.entries(config)) put(k, v);
  return out;
}
