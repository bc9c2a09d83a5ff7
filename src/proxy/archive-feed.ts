// The archive feed: exact token usage of every assistant message, as the
// API reported it, appended to the session's archive as a turn_usage event
// (source `proxy`). It writes only for a project whose recording is on.
//
// The event id is `turn_usage:<message id>`, the same id the hook path gives
// usage it reads from Claude's transcript, so a message is counted once
// whichever recorder sees it first; the proxy also sees requests no
// transcript keeps (the /compact summary).
import { effectiveLimits, findProjectRoot, readConfig } from "../core/config.ts";
import type { NormalizedEvent } from "../core/event.ts";
import { resolveProjectRoot, resolveSessionRoot } from "../core/paths.ts";
import { lookupSession } from "../core/registry.ts";
import type { Usage } from "../core/schemas.ts";
import { recordEvents } from "../core/store.ts";
import { CLAUDE_CAPABILITIES } from "../providers/claude/normalize.ts";
import type { ProxyContext, ProxyExtension, StreamEvent } from "./types.ts";

interface FeedState {
  sessionId: string;
  agentId: string | undefined;
  messageId?: string;
  model?: string;
  usage: Record<string, number>;
}

const KEY = "archive-feed";

function header(ctx: ProxyContext, name: string): string | undefined {
  const v = ctx.headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return s && s.length <= 256 ? s : undefined;
}

/** Claude puts the project in its environment block: "Primary working directory: /path". */
export function primaryWorkingDirectory(rawBody: Buffer): string | undefined {
  const text = rawBody.toString("utf8");
  const m = /Primary working directory: ((?:[^"\\]|\\[^n])+?)(?:\\n|")/.exec(text);
  if (!m?.[1]) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}

function mergeUsage(into: Record<string, number>, from: unknown): void {
  if (!from || typeof from !== "object") return;
  for (const [k, v] of Object.entries(from as Record<string, unknown>)) {
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) into[k] = v;
  }
}

function toUsage(state: FeedState): Usage {
  const u = state.usage;
  const usage: Usage = { source: "proxy" };
  if (state.model) usage.model = state.model;
  if (state.messageId) usage.message_id = state.messageId;
  for (const k of [
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
  ] as const) {
    if (u[k] !== undefined) usage[k] = Math.floor(u[k]!);
  }
  return usage;
}

function findProject(ctx: ProxyContext, sessionId: string): string | undefined {
  const registered = lookupSession("claude", sessionId);
  if (registered) return registered.project_root;
  const dir = primaryWorkingDirectory(ctx.rawBody);
  if (!dir) return undefined;
  try {
    return findProjectRoot(resolveProjectRoot(dir));
  } catch {
    return undefined;
  }
}

function record(ctx: ProxyContext, state: FeedState): void {
  if (!state.messageId) return;
  const project = findProject(ctx, state.sessionId);
  if (!project) return;
  const config = readConfig(project);
  const provider = config?.providers.claude;
  if (!config || provider?.recording !== "on") return;
  const event: NormalizedEvent = {
    kind: "turn_usage",
    event_id: `turn_usage:${state.messageId}`,
    agent_id: state.agentId,
    payload: {
      message_id: state.messageId,
      model: state.model,
      request_id: (ctx.responseHeaders?.["request-id"] as string | undefined) ?? undefined,
    },
    usage: toUsage(state),
  };
  recordEvents(
    {
      projectRoot: project,
      sessionRoot: resolveSessionRoot(project, provider.session_root, "claude"),
      identity: {
        provider: "claude",
        provider_session_id: state.sessionId,
        session_id: `claude:${state.sessionId}`,
        identity_source: "provider",
      },
      mode: provider.mode ?? "capture-only",
      capabilities: CLAUDE_CAPABILITIES,
      agentPid: null,
      limits: effectiveLimits(config),
      lockTimeoutMs: config.lock_timeout_ms,
    },
    [event],
  );
}

function isMessagesCall(ctx: ProxyContext): boolean {
  return ctx.method === "POST" && /^\/v1\/messages(\?|$)/.test(ctx.url);
}

export function createArchiveFeed(): ProxyExtension {
  return {
    name: KEY,
    order: 800,
    onRequest(ctx) {
      if (!isMessagesCall(ctx)) return;
      const sessionId = header(ctx, "x-claude-code-session-id");
      if (!sessionId) return;
      ctx.meta[KEY] = {
        sessionId,
        agentId: header(ctx, "x-claude-code-agent-id"),
        usage: {},
      } satisfies FeedState;
    },
    onStreamEvent(ctx, event: StreamEvent) {
      const state = ctx.meta[KEY] as FeedState | undefined;
      if (!state || !event.json || typeof event.json !== "object") return;
      const data = event.json as {
        type?: string;
        message?: { id?: string; model?: string; usage?: unknown };
        usage?: unknown;
      };
      if (data.type === "message_start") {
        state.messageId = data.message?.id;
        state.model = data.message?.model;
        mergeUsage(state.usage, data.message?.usage);
      } else if (data.type === "message_delta") {
        mergeUsage(state.usage, data.usage);
      } else if (data.type === "message_stop") {
        record(ctx, state);
      }
    },
    onResponse(ctx, body) {
      const state = ctx.meta[KEY] as FeedState | undefined;
      if (!state || (ctx.status ?? 0) >= 400) return;
      let json: { id?: string; model?: string; usage?: unknown } | undefined;
      try {
        json = JSON.parse(body.toString("utf8"));
      } catch {
        return;
      }
      state.messageId = json?.id;
      state.model = json?.model;
      mergeUsage(state.usage, json?.usage);
      record(ctx, state);
    },
  };
}
