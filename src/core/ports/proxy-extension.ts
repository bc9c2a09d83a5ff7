// The proxy's extension contract. The server forwards bytes first; extensions
// observe copies afterwards and can never delay, alter or break the response.
// A port of the core's, like the provider port (./provider.ts): the proxy (src/proxy/) hosts extensions, a
// provider's folder may offer one (Claude's mirror), and neither knows the other.
import type { RedactionRules } from "@tapedeck/redact/types";

/** The header that carries the proxy's secret when the secret path segment cannot (an agent that keeps its
 * base URL's path only for some calls, or a built-in provider). The proxy strips it before forwarding. */
export const SECRET_HEADER = "x-tapedeck-proxy-key";

/** Per-request context, shared by every extension hook of one request. */
export interface ProxyContext {
  /** Unique per request (for logs). */
  id: string;
  method: string;
  /** Path and query as the client sent them, e.g. `/v1/messages?beta=true`. */
  url: string;
  /** Request headers, lower-cased names. Secrets (x-api-key, authorization) are present: never log them. */
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON request body, when the body was JSON; otherwise undefined. */
  body: unknown;
  /** Raw request body bytes. */
  rawBody: Buffer;
  /** Response status and headers, set before onResponseStart. */
  status?: number;
  responseHeaders?: Record<string, string | string[] | undefined>;
  /** Scratch space for extensions, keyed by extension name by convention. Request-scoped. */
  meta: Record<string, unknown>;
  /** Set when the client went away or the upstream failed before the response completed. */
  aborted?: { by: "client" | "upstream"; reason: string };
}

/** One parsed server-sent event of a streamed response. */
export interface StreamEvent {
  /** The SSE `event:` field (Anthropic sends it; OpenAI Responses sends it too). */
  event: string | undefined;
  /** The raw `data:` payload. */
  data: string;
  /** `data` parsed as JSON when it is JSON. */
  json: unknown;
}

export interface ProxyExtension {
  name: string;
  /** Lower runs first. */
  order: number;
  /** Before the request is forwarded. Must not modify ctx.body/rawBody (they are not re-serialized). */
  onRequest?(ctx: ProxyContext): void | Promise<void>;
  /** When upstream response headers arrive (bytes are already flowing to the client). */
  onResponseStart?(ctx: ProxyContext): void | Promise<void>;
  /** For each SSE event of a streamed (text/event-stream) response, in order. */
  onStreamEvent?(ctx: ProxyContext, event: StreamEvent): void | Promise<void>;
  /**
   * The event types (SSE `event:` names) onStreamEvent needs, e.g. `["message_start",
   * "message_delta"]`; absent: every event. The others are not passed to it, and
   * when no extension wants an event it is skipped as bytes, never decoded or
   * parsed: content deltas are most of a stream. An event without an `event:`
   * line, or of the default type `message`, reaches it anyway (a data-only
   * stream names no types).
   */
  streamEvents?: readonly string[];
  /** Once, for a non-streamed response, with the whole body. */
  onResponse?(ctx: ProxyContext, body: Buffer): void | Promise<void>;
  /** Once per request at the very end: completed, aborted by the client, or failed upstream. */
  onEnd?(ctx: ProxyContext): void | Promise<void>;
}

/** The proxy's mirror flags (`--mirror`, `--mirror-dir`, `--no-mirror-redact`, `--no-thinking`), over the user's config. */
export interface MirrorFlags {
  enabled?: boolean;
  dir?: string;
  redact?: boolean;
  includeThinking?: boolean;
}

/**
 * A provider's mirror of its conversations, which the proxy starts with its other extensions: the settings
 * after the user's config and the flags, and the extension when they switch it on.
 */
export interface ProxyMirror {
  start(o: {
    flags: MirrorFlags;
    /** The project's redaction rules (the mirror applies them as the hooks do); none: the built-in ones. */
    rules: RedactionRules | undefined;
    warn(message: string): void;
  }): { enabled: boolean; dir: string; extension?: ProxyExtension };
}
