// The archive feed: exact token usage of every model response, as the API
// reported it, appended to the calling session's archive as a turn_usage event
// (source `proxy`). It writes only for a project whose recording is on for
// that provider. Which calls count, whose session they are and where the
// usage sits is each provider's reader (src/providers/*/api-usage.ts).
//
// The event id is `turn_usage:<message or response id>`, the id the hook path
// gives usage it reads from the agent's own transcript, so a response is
// counted once whichever recorder sees it first; the proxy also sees calls no
// transcript keeps (Claude's /compact summary).
import { findProjectRoot, readConfig } from "../../core/archive/config.ts";
import type { NormalizedEvent } from "../../core/archive/event.ts";
import { resolveProjectRoot } from "../../core/archive/paths.ts";
import { lookupSession } from "../../core/archive/session-registry.ts";
import { sessionSpecFor } from "../../core/archive/session-spec.ts";
import { recordEvents } from "../../core/archive/session-store.ts";
import type { ProxyContext, ProxyExtension } from "../../core/ports/proxy-extension.ts";
import type {
  ApiCallIdentity,
  ApiUsageAccumulator,
  ApiUsageReader,
  ApiUsageResult,
} from "../../providers/api-usage.ts";
import { CATALOG } from "../../providers/catalog.ts";
import { derivedId } from "../../providers/shared.ts";

/** Every provider's reader (providers/catalog.ts), in catalog order: the first that identifies a call reads it. */
export const API_USAGE_READERS: readonly ApiUsageReader[] = Object.values(CATALOG).flatMap((entry) =>
  entry.apiUsage ? [entry.apiUsage] : [],
);

interface FeedState {
  reader: ApiUsageReader;
  call: ApiCallIdentity;
  accumulator: ApiUsageAccumulator;
}

const KEY = "archive-feed";

function findProject(ctx: ProxyContext, reader: ApiUsageReader, sessionId: string): string | undefined {
  const registered = lookupSession(reader.provider, sessionId);
  if (registered) return registered.project_root;
  const dir = reader.workingDirectory(ctx);
  if (!dir) return undefined;
  try {
    return findProjectRoot(resolveProjectRoot(dir));
  } catch {
    return undefined;
  }
}

function requestId(ctx: ProxyContext): string | undefined {
  for (const name of ["request-id", "x-request-id"]) {
    const v = ctx.responseHeaders?.[name];
    const s = Array.isArray(v) ? v[0] : v;
    if (s && s.length <= 256) return s;
  }
  return undefined;
}

function record(ctx: ProxyContext, state: FeedState, result: ApiUsageResult): void {
  const { reader, call } = state;
  const project = findProject(ctx, reader, call.sessionId);
  if (!project) return;
  const config = readConfig(project);
  const provider = config?.providers[reader.provider];
  if (!config || provider?.recording !== "on") return;
  const payload = { ...result.payload };
  const rid = requestId(ctx);
  if (rid) payload.request_id = rid;
  const event: NormalizedEvent = {
    kind: "turn_usage",
    event_id: derivedId("turn_usage", result.responseId),
    agent_id: call.agentId,
    payload,
    usage: result.usage,
  };
  if (call.turnId) event.turn_id = call.turnId;
  const identity = {
    provider: reader.provider,
    provider_session_id: call.sessionId,
    session_id: `${reader.provider}:${call.sessionId}`,
    identity_source: "provider" as const,
  };
  const session = { provider: reader.provider, identity, capabilities: reader.capabilities, agentPid: null };
  recordEvents(sessionSpecFor(project, config, session), [event]);
}

/** What the readers read, when each one says: content deltas are then never parsed for the feed. */
function streamEventsOf(readers: readonly ApiUsageReader[]): string[] | undefined {
  const all = new Set<string>();
  for (const reader of readers) {
    if (!reader.streamEvents) return undefined;
    for (const name of reader.streamEvents) all.add(name);
  }
  return [...all];
}

export function createArchiveFeed(readers: readonly ApiUsageReader[] = API_USAGE_READERS): ProxyExtension {
  const streamEvents = streamEventsOf(readers);
  return {
    name: KEY,
    order: 800,
    ...(streamEvents ? { streamEvents } : {}),
    onRequest(ctx) {
      for (const reader of readers) {
        const call = reader.identify(ctx);
        if (!call) continue;
        ctx.meta[KEY] = { reader, call, accumulator: reader.accumulator() } satisfies FeedState;
        return;
      }
    },
    onStreamEvent(ctx, event) {
      const state = ctx.meta[KEY] as FeedState | undefined;
      if (!state || event.json === undefined) return;
      const result = state.accumulator.event(event.json);
      if (result) record(ctx, state, result);
    },
    onResponse(ctx, body) {
      const state = ctx.meta[KEY] as FeedState | undefined;
      if (!state || (ctx.status ?? 0) >= 400) return;
      let json: unknown;
      try {
        json = JSON.parse(body.toString("utf8"));
      } catch {
        return;
      }
      const result = state.accumulator.body(json);
      if (result) record(ctx, state, result);
    },
  };
}
