// The API proxy: forwards any request to one upstream and streams the response
// back byte for byte. The agent must not be able to tell it is there, so:
//
// - Bytes first. Status and headers go out when the upstream's arrive; each body
//   chunk is written to the client as it arrives and only then handed to the
//   observers (observe.ts), which parse only the SSE event types their
//   extensions declared, on the next turn of the event loop. The body is never re-encoded:
//   a gzip body stays the same gzip bytes, and observers decode their own copy.
// - Backpressure is end to end: a slow client pauses the upstream socket.
// - Failures look like the upstream's own: an error status is forwarded as is, a
//   mid-stream reset cuts the client connection after the bytes that did arrive,
//   and a client that leaves aborts the upstream request.
// - Secrets pass through and are never logged: logs carry method, path without
//   the query (Gemini can put its key there), status, sizes and timings only.
// - Only the user's agent gets in (gate.ts): a request without the proxy's
//   secret path segment, with an Origin header or a foreign Host is refused
//   before its body is read, before any extension sees it, before anything
//   goes upstream. The secret is stripped before forwarding and never logged.
// - The first upstream failure (connection refused, DNS, TLS) is logged as an
//   error once, and again after the upstream answered in between: a proxy that
//   cannot reach its upstream must say so, not leave the agent retrying.
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import type { Dispatcher } from "undici";
import { Pool } from "undici";
import type { ProxyExtension } from "../core/ports/proxy-extension.ts";
import { errorCode, Pipeline, type ProxyLog, RequestContext, type RequestRun, safeLog } from "./dispatch.ts";
import { newProxySecret, ProxyGate, SECRET_HEADER } from "./gate.ts";
import { type BodyObserver, observeResponse } from "./observe.ts";

export type { ProxyLog, ProxyLogEntry, ProxyLogLevel } from "./dispatch.ts";

export interface ProxyOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Loopback only: the proxy forwards API keys and must not be reachable from elsewhere. */
  host?: "127.0.0.1";
  /** The upstream base URL, e.g. "https://api.anthropic.com" or "http://127.0.0.1:1234/v1". */
  upstream: string;
  extensions?: ProxyExtension[];
  log?: ProxyLog;
  /** Request bodies above this are refused with 413. Default 64 MiB. */
  maxRequestBytes?: number;
  /** How long one async extension hook may run before its queue moves on. Default 30 s. */
  hookTimeoutMs?: number;
  /** The credential clients put as the first path segment (see gate.ts). Default: a fresh random one. */
  secret?: string;
}

export interface RunningProxy {
  /**
   * The base URL clients use in place of the upstream's, with the secret path segment:
   * "http://127.0.0.1:43121/tpx_…". A credential: hand it only to the agent.
   */
  url: string;
  /** The address without the secret, "http://127.0.0.1:43121": requests to it are refused. */
  origin: string;
  secret: string;
  port: number;
  /**
   * Stops listening, cuts requests still in flight (their onEnd sees
   * `aborted: {by: "client", reason: "proxy_closed"}`), waits up to 5 s for
   * pending extension hooks, and closes the upstream connections.
   */
  close(): Promise<void>;
}

const DEFAULT_MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const CLOSE_GRACE_MS = 5000;
// An upstream reset mid-stream: the client socket is ended after the bytes already
// written; a client that does not read them in this time is cut hard.
const CUT_FLUSH_MS = 2000;
// Response bytes buffered for a slow client before the upstream is paused. Node's
// default (16 KiB) is below one upstream read, so every chunk would pause and
// resume the upstream socket: that cycle, not the copying, dominated the CPU cost.
const OUT_BUFFER_BYTES = 256 * 1024;

// Per-connection headers (RFC 9110 §7.6.1) plus what undici sets itself or refuses:
// host (rewritten for the upstream) and expect (the body has already been read).
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade"]);
// And the proxy's own credential header (gate.ts), which is for the proxy alone.
const REQUEST_ONLY_DROP = new Set(["host", "expect", SECRET_HEADER]);

function errorBody(type: string, message: string): string {
  return JSON.stringify({ type: "error", error: { type, message } });
}

const BAD_GATEWAY = errorBody("proxy_error", "upstream unreachable");
const BAD_REQUEST = errorBody("proxy_error", "invalid request");
const REFUSED = {
  401: errorBody("authentication_error", "this proxy needs the URL tapedeck printed, with its secret path"),
  403: errorBody("permission_error", "this proxy serves local agents only"),
} as const;

/** Names that a `Connection` header lists are hop-by-hop too. */
function connectionTokens(raw: readonly string[]): Set<string> | undefined {
  let out: Set<string> | undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() !== "connection") continue;
    out ??= new Set();
    for (const t of raw[i + 1]!.split(",")) out.add(t.trim().toLowerCase());
  }
  return out;
}

/**
 * Filters a flat [name, value, name, value, …] header list, keeping the
 * original names, order and repetitions: what the peer sent, minus what is
 * about this one connection.
 */
function forwardable(raw: readonly string[], dropAlso?: Set<string>): string[] {
  const listed = connectionTokens(raw);
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower.startsWith("proxy-") || dropAlso?.has(lower) || listed?.has(lower)) {
      continue;
    }
    out.push(name, raw[i + 1]!);
  }
  return out;
}

/** undici's raw response headers (Buffers from the parser) as a flat string list. */
function rawResponseHeaders(
  raw: Dispatcher.DispatchController["rawHeaders"],
  parsed: Record<string, string | string[] | undefined>,
): string[] {
  const flat: string[] = [];
  if (Array.isArray(raw)) {
    // latin1 maps each byte to one char, which is how Node writes header strings back out.
    for (const h of raw) flat.push(typeof h === "string" ? h : h.toString("latin1"));
    return flat;
  }
  for (const [name, value] of Object.entries(parsed)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) flat.push(name, v);
  }
  return flat;
}

/** The path part of the client's request target (origin-form, or absolute-form from an HTTP_PROXY client). */
function requestPath(target: string): string {
  if (target.startsWith("/")) return target;
  try {
    const u = new URL(target);
    return u.pathname + u.search;
  } catch {
    return `/${target}`;
  }
}

/** The path without its query, for logs. */
function logPath(target: string): string {
  const q = target.indexOf("?");
  return (q < 0 ? target : target.slice(0, q)).slice(0, 256);
}

interface Upstream {
  origin: string;
  /** The upstream URL's path without trailing slashes: "" or e.g. "/v1". */
  basePath: string;
}

export function parseUpstream(upstream: string): Upstream {
  const u = new URL(upstream);
  if (u.protocol !== "http:" && u.protocol !== "https:") {
    throw new TypeError("upstream must be an http: or https: URL");
  }
  if (u.username || u.password || u.search || u.hash) {
    throw new TypeError("upstream must be a base URL without credentials, query or fragment");
  }
  return { origin: u.origin, basePath: u.pathname.replace(/\/+$/, "") };
}

/** The shared state of one running proxy. */
class ProxyCore {
  readonly pool: Pool;
  readonly upstream: Upstream;
  readonly pipeline: Pipeline;
  readonly log: ProxyLog | undefined;
  readonly maxRequestBytes: number;
  readonly gate: ProxyGate;
  readonly active = new Set<Exchange>();
  /** Refusals by reason, counted in memory: a stranger's requests must not grow any file or log. */
  readonly refused = { origin: 0, host: 0, credential: 0 };
  /** The upstream failure warning is out and nothing has answered since. */
  #upstreamDown = false;
  #drained: (() => void) | undefined;

  constructor(opts: ProxyOptions) {
    this.upstream = parseUpstream(opts.upstream);
    this.gate = new ProxyGate(opts.secret ?? newProxySecret());
    this.log = opts.log;
    this.maxRequestBytes = opts.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    this.pipeline = new Pipeline(opts.extensions ?? [], { log: opts.log, hookTimeoutMs: opts.hookTimeoutMs });
    // One keep-alive pool for the one upstream origin, unbounded like the agent's own
    // connection use. No timeouts of our own: the client's timeout governs, and a client
    // that gives up aborts the upstream request.
    this.pool = new Pool(this.upstream.origin, { headersTimeout: 0, bodyTimeout: 0 });
  }

  /** Answers a request the gate refused, without reading its body; the first of each reason is logged. */
  refuse(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: 401 | 403,
    reason: keyof ProxyCore["refused"],
  ): void {
    this.refused[reason] += 1;
    if (this.refused[reason] === 1) {
      // No path, no method, no header: they are the stranger's text.
      safeLog(this.log, { level: "warn", msg: "refused", reason, status });
    }
    req.on("error", noop);
    res.on("error", noop);
    res.shouldKeepAlive = false;
    const body = REFUSED[status];
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  }

  upstreamFailed(code: string): void {
    if (this.#upstreamDown) return;
    this.#upstreamDown = true;
    safeLog(this.log, {
      level: "error",
      msg: "upstream_unreachable",
      upstream: this.upstream.origin,
      error: code,
    });
  }

  upstreamAnswered(): void {
    this.#upstreamDown = false;
  }

  done(ex: Exchange): void {
    this.active.delete(ex);
    if (this.active.size === 0) this.#drained?.();
  }

  /** Resolves once every exchange has finished (after close() cut them). */
  drained(): Promise<void> {
    if (this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.#drained = resolve;
    });
  }
}

/**
 * One request/response through the proxy. It is also the undici dispatch
 * handler for its upstream request, which saves the Readable that
 * `pool.request()` would put between the upstream socket and the client.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly #core: ProxyCore;
  readonly #req: http.IncomingMessage;
  readonly #res: http.ServerResponse;
  /** The request target without the secret segment. */
  readonly #target: string;
  readonly #t0 = performance.now();
  #chunks: Buffer[] = [];
  #reqBytes = 0;
  #ctx: RequestContext | undefined;
  #run: RequestRun | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #observer: BodyObserver | undefined;
  #status = 0;
  #resBytes = 0;
  #ttfb = -1;
  /** writeHead done for the upstream's response. */
  #started = false;
  #wroteBody = false;
  /** The client connection went away before the response was complete. */
  #clientGone = false;
  /** We cut the client connection ourselves (upstream reset mid-stream). */
  #cut = false;
  #resClosed = false;
  #observerDone = true;
  #finished = false;

  constructor(core: ProxyCore, req: http.IncomingMessage, res: http.ServerResponse, target: string) {
    this.#core = core;
    this.#req = req;
    this.#res = res;
    this.#target = target;
    // The upstream's Date (or none) is what the client would have seen.
    res.sendDate = false;
  }

  start(): void {
    const req = this.#req;
    this.#res.on("close", this.#onResClose);
    // Socket errors on either side end in the response's 'close', which handles them.
    req.on("error", noop);
    this.#res.on("error", noop);
    const declared = Number(req.headers["content-length"]);
    if (declared > this.#core.maxRequestBytes) {
      this.#tooLarge();
      return;
    }
    req.on("data", this.#onReqData);
    req.on("end", this.#onReqEnd);
  }

  /** close(): cut the exchange; its onEnd sees a client-side abort. */
  shutdown(): void {
    if (this.#ctx && !this.#ctx.aborted) this.#ctx.aborted = { by: "client", reason: "proxy_closed" };
    this.#res.destroy();
  }

  readonly #onReqData = (chunk: Buffer): void => {
    this.#reqBytes += chunk.length;
    if (this.#reqBytes > this.#core.maxRequestBytes) {
      this.#req.off("data", this.#onReqData);
      this.#req.off("end", this.#onReqEnd);
      this.#chunks = [];
      this.#tooLarge();
      return;
    }
    this.#chunks.push(chunk);
  };

  readonly #onReqEnd = (): void => {
    if (this.#clientGone) return;
    const chunks = this.#chunks;
    this.#chunks = [];
    const rawBody = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#reqBytes);
    this.#forward(rawBody);
  };

  #forward(rawBody: Buffer): void {
    const req = this.#req;
    const core = this.#core;
    const method = req.method ?? "GET";
    const target = this.#target;
    const ctx = new RequestContext(randomUUID(), method, target, req.headers, rawBody);
    this.#ctx = ctx;
    if (core.pipeline.active) {
      this.#run = core.pipeline.begin(ctx);
      // Synchronous parts run now, before forwarding; promises are not awaited (see dispatch.ts).
      this.#run.request();
    }
    core.pool.dispatch(
      {
        path: core.upstream.basePath + target,
        method,
        headers: forwardable(req.rawHeaders, REQUEST_ONLY_DROP),
        body: rawBody.length > 0 ? rawBody : null,
      },
      this,
    );
  }

  // -- undici handler ---------------------------------------------------------

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#clientGone) controller.abort(clientGoneError());
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
    statusMessage?: string,
  ): void {
    if (this.#clientGone) return;
    const res = this.#res;
    this.#ttfb = performance.now() - this.#t0;
    this.#core.upstreamAnswered();
    try {
      res.writeHead(
        statusCode,
        statusMessage || undefined,
        forwardable(rawResponseHeaders(controller.rawHeaders, headers)),
      );
    } catch (err) {
      // Headers Node will not write (malformed upstream response): a bad gateway.
      controller.abort(err instanceof Error ? err : new Error("invalid upstream headers"));
      return;
    }
    this.#started = true;
    this.#status = statusCode;
    // Headers go out now unless body bytes that arrived with them take them along.
    queueMicrotask(this.#flushHeaders);
    const ctx = this.#ctx!;
    ctx.status = statusCode;
    ctx.responseHeaders = headers;
    const run = this.#run;
    if (run) {
      run.responseStart();
      this.#observer = observeResponse(run, this.#core.pipeline, headers);
      if (this.#observer) this.#observerDone = false;
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#clientGone || this.#cut) return;
    this.#resBytes += chunk.length;
    this.#wroteBody = true;
    const res = this.#res;
    // 'drain' comes once the buffer empties after a write that answered false,
    // however many writes ago that was.
    if (!res.write(chunk) && res.writableLength >= OUT_BUFFER_BYTES && !controller.paused) {
      controller.pause();
      res.once("drain", this.#onDrain);
    }
    this.#observer?.write(chunk);
  }

  onResponseEnd(): void {
    if (this.#clientGone || this.#cut) return;
    this.#res.end();
    this.#endObserver(true);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    // Our own abort after the client left: already accounted for.
    if (this.#clientGone || this.#cut) return;
    const ctx = this.#ctx;
    if (ctx && !ctx.aborted) ctx.aborted = { by: "upstream", reason: errorCode(err) };
    if (!this.#started) {
      const invalid = errorCode(err) === "UND_ERR_INVALID_ARG";
      if (!invalid) this.#core.upstreamFailed(errorCode(err));
      this.#reply(invalid ? 400 : 502, invalid ? BAD_REQUEST : BAD_GATEWAY);
      return;
    }
    this.#cutClient();
    this.#endObserver(false);
  }

  // -- client side --------------------------------------------------------------

  readonly #onDrain = (): void => {
    this.#controller?.resume();
  };

  readonly #flushHeaders = (): void => {
    if (!this.#wroteBody && !this.#clientGone && !this.#cut && !this.#res.writableEnded) {
      this.#res.flushHeaders();
    }
  };

  readonly #onResClose = (): void => {
    this.#resClosed = true;
    if (!this.#res.writableFinished && !this.#cut) {
      this.#clientGone = true;
      const ctx = this.#ctx;
      if (ctx && !ctx.aborted) ctx.aborted = { by: "client", reason: "client_closed" };
      this.#controller?.abort(clientGoneError());
      this.#endObserver(false);
    }
    this.#maybeFinish();
  };

  /**
   * An upstream reset after the headers: end the client connection once the bytes
   * already written have gone out, so the client sees the truncation it would have
   * seen talking to the upstream directly.
   */
  #cutClient(): void {
    this.#cut = true;
    const socket = this.#res.socket;
    if (!socket) {
      this.#res.destroy();
      return;
    }
    socket.end();
    setTimeout(() => socket.destroy(), CUT_FLUSH_MS).unref();
  }

  #reply(status: number, body: string): void {
    const res = this.#res;
    this.#status = status;
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    res.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    });
    res.end(body);
  }

  #tooLarge(): void {
    // Stop reading and close: the rest of a body this large is not worth draining.
    this.#res.shouldKeepAlive = false;
    this.#reply(413, errorBody("request_too_large", "request body exceeds the proxy's limit"));
  }

  #endObserver(complete: boolean): void {
    const observer = this.#observer;
    if (!observer) return;
    this.#observer = undefined;
    observer.end(complete, () => {
      this.#observerDone = true;
      this.#maybeFinish();
    });
  }

  /** After the response settled and the observers dispatched everything: onEnd, log, forget. */
  #maybeFinish(): void {
    if (this.#finished || !this.#resClosed || !this.#observerDone) return;
    this.#finished = true;
    this.#run?.end();
    this.#core.done(this);
    const log = this.#core.log;
    if (!log) return;
    const aborted = this.#ctx?.aborted;
    safeLog(log, {
      level: aborted || this.#status >= 500 ? "warn" : "info",
      msg: "request",
      id: this.#ctx?.id,
      method: this.#req.method,
      path: logPath(this.#target),
      status: this.#status,
      req_bytes: this.#reqBytes,
      res_bytes: this.#resBytes,
      ttfb_ms: this.#ttfb >= 0 ? Math.round(this.#ttfb * 100) / 100 : undefined,
      ms: Math.round((performance.now() - this.#t0) * 100) / 100,
      aborted_by: aborted?.by,
      abort_reason: aborted?.reason,
    });
  }
}

function noop(): void {}

function clientGoneError(): Error {
  return Object.assign(new Error("client closed the connection"), { code: "TAPEDECK_CLIENT_GONE" });
}

export async function startProxy(opts: ProxyOptions): Promise<RunningProxy> {
  const host = opts.host ?? "127.0.0.1";
  if (host !== "127.0.0.1") throw new TypeError("the proxy listens on 127.0.0.1 only");
  const core = new ProxyCore(opts);
  const handle = (req: http.IncomingMessage, res: http.ServerResponse, expectsContinue: boolean): void => {
    const verdict = core.gate.check(req.headers, requestPath(req.url ?? "/"));
    if (!verdict.ok) {
      core.refuse(req, res, verdict.status, verdict.reason);
      return;
    }
    // `Expect: 100-continue`: invite the body only once the gate has let the request in.
    if (expectsContinue) res.writeContinue();
    const ex = new Exchange(core, req, res, verdict.target);
    core.active.add(ex);
    ex.start();
  };
  const server = http.createServer({ noDelay: true }, (req, res) => handle(req, res, false));
  server.on("checkContinue", (req: http.IncomingMessage, res: http.ServerResponse) => handle(req, res, true));
  // Longer than the agents' own idle timeouts, so that the client, not us, closes an
  // idle connection: a request racing our close would fail and be retried.
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  core.gate.listening(port);
  safeLog(opts.log, { level: "info", msg: "proxy_listening", port });

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const ex of [...core.active]) ex.shutdown();
      server.closeAllConnections();
      await stopped;
      const grace = new Promise<"timeout">((resolve) =>
        setTimeout(resolve, CLOSE_GRACE_MS, "timeout").unref(),
      );
      const settled = await Promise.race([core.drained().then(() => core.pipeline.idle()), grace]);
      if (settled === "timeout") safeLog(opts.log, { level: "warn", msg: "proxy_close_extensions_pending" });
      await core.pool.destroy();
    })();
    return closed;
  };

  const origin = `http://${host}:${port}`;
  const secret = core.gate.secret;
  return { url: `${origin}/${secret}`, origin, secret, port, close };
}
