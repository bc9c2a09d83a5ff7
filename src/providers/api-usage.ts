// What the proxy's archive feed needs from a provider to turn one model API
// call into exact usage: which calls are the provider's and whose session they
// belong to (from the request), and the usage of the response (from its
// stream or body). The feed itself knows no provider.
import type { Usage } from "../core/schemas.ts";

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

/**
 * Finds `<open>…<close>` inside the JSON text of a request body and decodes the JSON string escapes of what is
 * between (the body is not parsed: it can be megabytes, and only this one string is wanted).
 */
export function taggedBodyText(rawBody: Buffer, pattern: RegExp): string | undefined {
  const m = pattern.exec(rawBody.toString("utf8"));
  if (!m?.[1]) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}
