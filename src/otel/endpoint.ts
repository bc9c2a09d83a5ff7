// Where and how spans are sent: the command's flags over the `otel` block of .tapedeck/config.json over the
// standard OTEL_EXPORTER_OTLP_* variables (the signal-specific TRACES_ ones first, as the spec orders them).
// Header values hold credentials (Langfuse's Basic auth, an API key): they are sent, never printed.
import type { OtelConfig } from "../core/archive/config.ts";

export type Protocol = "http/protobuf" | "http/json";
export const PROTOCOLS: readonly Protocol[] = ["http/protobuf", "http/json"];

export function contentType(protocol: Protocol): string {
  return protocol === "http/json" ? "application/json" : "application/x-protobuf";
}

export interface Endpoint {
  /** the full traces URL */
  url: string;
  /** where log records go (content in the `logs` mode): the same collector's /v1/logs */
  logsUrl: string;
  /** where the usage counters go: the same collector's /v1/metrics */
  metricsUrl: string;
  /** a backend whose own rules apply (docs/team.md): Langfuse reads spans only */
  backend: "langfuse" | "otlp";
  /**
   * Who named the URL. A project's config.json can come with a cloned repository, so a `config` endpoint is
   * confirmed by the user before the first export to it, and the environment's headers (the user's
   * credentials, OTEL_EXPORTER_OTLP_HEADERS) go only to the environment's own endpoint.
   */
  source: "flag" | "config" | "env";
  protocol: Protocol;
  headers: Record<string, string>;
  gzip: boolean;
  timeoutMs: number;
}

export class EndpointError extends Error {
  override name = "EndpointError";
}

type Env = Record<string, string | undefined>;

export interface EndpointFlags {
  endpoint?: string;
  protocol?: string;
  headers?: string[];
}

const DEFAULT_TIMEOUT_MS = 10_000;

function pick(env: Env, name: string): string | undefined {
  const v = env[`OTEL_EXPORTER_OTLP_TRACES_${name}`] ?? env[`OTEL_EXPORTER_OTLP_${name}`];
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}

/** `k=v,k2=v2` as the spec writes OTEL_EXPORTER_OTLP_HEADERS (values percent-encoded). */
export function parseHeaderList(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const key = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      // not percent-encoded: kept as written
    }
    if (key) out[key.toLowerCase()] = value;
  }
  return out;
}

/** `--header K=V`: the value is taken as written (an `=` inside it stays). */
export function parseHeaderFlag(flag: string): [string, string] {
  const eq = flag.indexOf("=");
  if (eq <= 0) throw new EndpointError(`--header takes KEY=VALUE (got a value without "=")`);
  const key = flag.slice(0, eq).trim();
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key))
    throw new EndpointError("--header: the key is not a header name");
  return [key.toLowerCase(), flag.slice(eq + 1)];
}

function parseProtocol(v: string | undefined): Protocol {
  const p = v ?? "http/protobuf";
  if (p === "grpc")
    throw new EndpointError(
      "protocol grpc is not supported (Langfuse ingests OTLP over HTTP only): use http/protobuf or http/json",
    );
  if (!(PROTOCOLS as readonly string[]).includes(p))
    throw new EndpointError(`unknown protocol "${p}" (${PROTOCOLS.join(", ")})`);
  return p as Protocol;
}

/** Langfuse's OTLP endpoint lags up to ten minutes without this header; it costs nothing elsewhere. */
function langfuseHeaders(url: string, headers: Record<string, string>): void {
  if (/\/api\/public\/otel(\/|$)/.test(new URL(url).pathname) && !headers["x-langfuse-ingestion-version"])
    headers["x-langfuse-ingestion-version"] = "4";
}

/**
 * The other signals' URLs beside a traces URL: `…/v1/traces` becomes `…/v1/logs` and `…/v1/metrics`; a
 * URL with another path gets them added (a base URL); the environment's signal variables win, as the spec
 * orders them, when the environment named the endpoint.
 */
function signalUrl(traces: URL, signal: "logs" | "metrics", env: Env, fromEnv: boolean): string {
  const named = fromEnv ? env[`OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_ENDPOINT`]?.trim() : undefined;
  if (named) {
    try {
      const u = new URL(named);
      if ((u.protocol === "http:" || u.protocol === "https:") && !u.username && !u.password)
        return u.toString();
    } catch {
      // not a URL: derived from the traces URL instead
    }
  }
  const u = new URL(traces.toString());
  const base = u.pathname.replace(/\/+$/, "").replace(/\/v1\/traces$/, "");
  u.pathname = `${base}/v1/${signal}`;
  return u.toString();
}

/** The endpoint to send to, or undefined when nothing names one. */
export function resolveEndpoint(
  flags: EndpointFlags,
  config: OtelConfig | undefined,
  env: Env,
): Endpoint | undefined {
  let url: string | undefined = flags.endpoint ?? config?.endpoint;
  const source: Endpoint["source"] =
    flags.endpoint !== undefined ? "flag" : config?.endpoint !== undefined ? "config" : "env";
  let signalPath = false;
  if (url === undefined) {
    const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
    const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
    // The spec: the TRACES_ variable is the full URL; the generic one is a base that /v1/traces is added to.
    if (traces) url = traces;
    else if (base) {
      url = base;
      signalPath = true;
    }
  }
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EndpointError("the endpoint is not a URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw new EndpointError("the endpoint must be an http:// or https:// URL");
  if (parsed.username || parsed.password)
    throw new EndpointError(
      "the endpoint holds credentials: pass them as a header (--header Authorization=...)",
    );
  if (signalPath) parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/v1/traces`;
  // Each source's headers go only to the URL that source names: a flag's or a planted config's endpoint never
  // receives the credentials the user keeps in the environment or in config for their own collector.
  const configHeaders = config?.endpoint === undefined || url === config.endpoint;
  const headers: Record<string, string> = {
    ...(source === "env" ? parseHeaderList(pick(env, "HEADERS") ?? "") : {}),
    ...(configHeaders ? lower(config?.headers ?? {}) : {}),
  };
  for (const h of flags.headers ?? []) {
    const [k, v] = parseHeaderFlag(h);
    headers[k] = v;
  }
  const href = parsed.toString();
  langfuseHeaders(href, headers);
  const timeout = Number(pick(env, "TIMEOUT"));
  return {
    url: href,
    logsUrl: signalUrl(parsed, "logs", env, source === "env"),
    metricsUrl: signalUrl(parsed, "metrics", env, source === "env"),
    backend: /\/api\/public\/otel(\/|$)/.test(parsed.pathname) ? "langfuse" : "otlp",
    source,
    protocol: parseProtocol(flags.protocol ?? config?.protocol ?? pick(env, "PROTOCOL")),
    headers,
    gzip: (config?.compression ?? pick(env, "COMPRESSION")) === "gzip",
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
  };
}

function lower(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (typeof v === "string") out[k.toLowerCase()] = v;
  return out;
}

/** The endpoint as it may be shown: origin and path, never a header, a query string or userinfo. */
export function describeEndpoint(e: Pick<Endpoint, "url" | "protocol">): string {
  const u = new URL(e.url);
  return `${u.origin}${u.pathname} (${e.protocol})`;
}
