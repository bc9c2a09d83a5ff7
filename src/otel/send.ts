// One OTLP/HTTP POST, and the retry policy around it. The OTLP spec makes 429, 502, 503 and 504 (and a
// connection that fails or times out) retryable, honouring Retry-After; any other non-2xx is permanent for
// that body. Errors say what happened in terms of the status and the endpoint's origin, never a header or
// a byte of the body.
import { gzipSync } from "node:zlib";
import { contentType, type Endpoint } from "./endpoint.ts";

export interface SendResult {
  ok: boolean;
  status: number | null;
  retryable: boolean;
  /** milliseconds the server asked to wait (Retry-After) */
  retryAfterMs?: number;
  error?: string;
  bytes: number;
}

const RETRYABLE = new Set([429, 502, 503, 504]);
/** A Retry-After beyond this is capped: the next `--pending` run comes back later anyway. */
const MAX_RETRY_AFTER_MS = 60_000;

function retryAfter(h: string | null): number | undefined {
  if (!h) return undefined;
  const s = Number(h);
  if (Number.isFinite(s) && s >= 0) return Math.min(s * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(h);
  return Number.isFinite(at) ? Math.min(Math.max(0, at - Date.now()), MAX_RETRY_AFTER_MS) : undefined;
}

export async function sendOnce(endpoint: Endpoint, body: Uint8Array): Promise<SendResult> {
  const payload = endpoint.gzip ? gzipSync(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const headers: Record<string, string> = {
    ...endpoint.headers,
    "content-type": contentType(endpoint.protocol),
    "user-agent": "tapedeck-otel",
  };
  if (endpoint.gzip) headers["content-encoding"] = "gzip";
  const origin = new URL(endpoint.url).origin;
  try {
    const res = await fetch(endpoint.url, {
      method: "POST",
      headers,
      body: new Uint8Array(payload),
      signal: AbortSignal.timeout(endpoint.timeoutMs),
      redirect: "error",
    });
    // The body is read and dropped: a partial-success message names spans, which the caller has already.
    await res.arrayBuffer().catch(() => undefined);
    if (res.ok) return { ok: true, status: res.status, retryable: false, bytes: payload.length };
    const after = retryAfter(res.headers.get("retry-after"));
    return {
      ok: false,
      status: res.status,
      retryable: RETRYABLE.has(res.status),
      ...(after !== undefined ? { retryAfterMs: after } : {}),
      error: `${origin} answered HTTP ${res.status}`,
      bytes: payload.length,
    };
  } catch (e) {
    const name = (e as Error).name;
    const reason =
      name === "TimeoutError" || name === "AbortError"
        ? `no answer within ${endpoint.timeoutMs} ms`
        : "connection failed";
    return { ok: false, status: null, retryable: true, error: `${origin}: ${reason}`, bytes: payload.length };
  }
}

export interface RetryPolicy {
  /** attempts in this run, the first included */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep?: (ms: number) => Promise<void>;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 500, maxDelayMs: 8000 };

export function backoffMs(attempt: number, policy: Pick<RetryPolicy, "baseDelayMs" | "maxDelayMs">): number {
  // Full jitter: many machines behind one collector that came back do not retry in step.
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(cap / 2 + Math.random() * (cap / 2));
}

/** Sends with retries on the retryable outcomes; the last result is returned. */
export async function sendWithRetry(
  endpoint: Endpoint,
  body: Uint8Array,
  policy: RetryPolicy = DEFAULT_RETRY,
): Promise<SendResult & { attempts: number }> {
  const sleep = policy.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  let last: SendResult | undefined;
  for (let attempt = 1; attempt <= policy.attempts; attempt += 1) {
    last = await sendOnce(endpoint, body);
    if (last.ok || !last.retryable || attempt === policy.attempts) return { ...last, attempts: attempt };
    await sleep(last.retryAfterMs ?? backoffMs(attempt, policy));
  }
  return { ...last!, attempts: policy.attempts };
}
