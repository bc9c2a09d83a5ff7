// The API proxy against a tiny local upstream: what the client receives through
// the proxy must be what it would have received directly, byte for byte, and no
// extension can change that.
import { createHash } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import zlib from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ProxyContext, ProxyExtension, StreamEvent } from "../../src/core/ports/proxy-extension.ts";
import { Pipeline, type ProxyLogEntry, RequestContext } from "../../src/proxy/dispatch.ts";
import { type ProxyOptions, type RunningProxy, startProxy } from "../../src/proxy/server.ts";

const SECRET_KEY = "sk-ant-api03-TESTSECRET-do-not-log";
const SECRET_BEARER = "Bearer sk-proj-TESTSECRET2";

// ---------------------------------------------------------------------------
// The upstream.

function sseEvent(i: number, pad = 0): string {
  const data = JSON.stringify({
    type: "content_block_delta",
    index: 0,
    delta: { type: "text_delta", text: `word ${i} ${"x".repeat(pad)}` },
  });
  return `event: content_block_delta\ndata: ${data}\n\n`;
}

function sseEvents(n: number, pad = 0): string[] {
  return Array.from({ length: n }, (_, i) => sseEvent(i, pad));
}

const BIG = Buffer.from(sseEvents(640, 16 * 1024).join("")); // ≈ 10.5 MB
const JSON_BODY = JSON.stringify({
  id: "msg_1",
  type: "message",
  content: [{ type: "text", text: "héllo" }],
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves on 'drain' or 'close', leaving no listener behind. */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

async function writeAll(res: http.ServerResponse, pieces: Iterable<string | Buffer>, delayMs = 0) {
  for (const p of pieces) {
    if (res.destroyed) return;
    if (!res.write(p)) await drained(res);
    if (delayMs) await sleep(delayMs);
  }
  res.end();
}

function slices(buf: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size));
  return out;
}

/** The gzip stream of some SSE events, cut where a streaming server would flush. */
async function gzipPieces(events: string[]): Promise<Buffer[]> {
  const gz = zlib.createGzip();
  const pending: Buffer[] = [];
  const pieces: Buffer[] = [];
  gz.on("data", (c: Buffer) => pending.push(c));
  const take = () => pieces.push(Buffer.concat(pending.splice(0)));
  for (const e of events) {
    gz.write(e);
    await new Promise<void>((r) => gz.flush(() => r()));
    take();
  }
  gz.end();
  await once(gz, "end");
  take();
  return pieces.filter((p) => p.length > 0);
}

interface Upstream {
  url: string;
  port: number;
  /** Request ids (`?id=`) whose request the upstream saw closed before it finished. */
  closed: Set<string>;
  /** Bytes written so far per `?id=` of /endless. */
  written: Map<string, number>;
  close(): Promise<void>;
}

async function startUpstream(): Promise<Upstream> {
  const closed = new Set<string>();
  const written = new Map<string, number>();
  const gzipSse = await gzipPieces(sseEvents(8));
  const gzipJson = zlib.gzipSync(JSON_BODY);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const u = new URL(req.url ?? "/", "http://x");
      const q = (k: string, d: number) => Number(u.searchParams.get(k) ?? d);
      const id = u.searchParams.get("id") ?? "";
      res.on("close", () => {
        if (!res.writableFinished) closed.add(id);
      });
      const sse = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };
      switch (u.pathname.replace(/^\/base/, "")) {
        case "/sse": {
          res.writeHead(200, { ...sse, "request-id": "req_sse" });
          // Each event in two writes with a pause between: events straddle chunks.
          const pieces = sseEvents(q("n", 10)).flatMap((e) => [e.slice(0, 25), e.slice(25)]);
          void writeAll(res, pieces, q("delay", 5));
          return;
        }
        case "/big":
          res.writeHead(200, sse);
          void writeAll(res, slices(BIG, 64 * 1024));
          return;
        case "/endless": {
          // 200 MB, counting what the kernel accepted: a stalled reader must stall this.
          res.writeHead(200, sse);
          const piece = Buffer.alloc(64 * 1024, 0x61);
          written.set(id, 0);
          const pieces = (function* () {
            for (let i = 0; i < 3200; i += 1) {
              written.set(id, (written.get(id) ?? 0) + piece.length);
              yield piece;
            }
          })();
          void writeAll(res, pieces);
          return;
        }
        case "/json":
          res.writeHead(200, {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(JSON_BODY),
            "request-id": "req_json",
          });
          res.end(JSON_BODY);
          return;
        case "/gzip":
          res.writeHead(200, { ...sse, "content-encoding": "gzip", vary: "accept-encoding" });
          void writeAll(res, gzipSse, 5);
          return;
        case "/gzip-json":
          res.writeHead(200, {
            "content-type": "application/json",
            "content-encoding": "gzip",
            "content-length": gzipJson.length,
          });
          res.end(gzipJson);
          return;
        case "/status": {
          const code = q("code", 500);
          const body = JSON.stringify({
            type: "error",
            error: { type: code === 529 ? "overloaded_error" : "api_error", message: `status ${code}` },
          });
          res.writeHead(code, {
            "content-type": "application/json",
            "request-id": `req_${code}`,
            "x-should-retry": "true",
            "retry-after": "1",
          });
          res.end(body);
          return;
        }
        case "/reset":
          res.writeHead(200, sse);
          res.write(sseEvent(0));
          // The last bytes and the close arrive together (`now`), or well apart.
          setTimeout(
            () =>
              res.write(sseEvents(3).slice(1).join(""), () =>
                setTimeout(() => res.socket?.destroy(), q("after", 0)),
              ),
            20,
          );
          return;
        case "/reset-big": {
          // 4 MB, then a reset once the kernel took the last piece.
          res.writeHead(200, sse);
          const pieces = slices(BIG.subarray(0, 4 * 1024 * 1024), 64 * 1024);
          const next = (i: number): void => {
            if (i === pieces.length) {
              res.socket?.destroy();
              return;
            }
            res.write(pieces[i]!, () => next(i + 1));
          };
          next(0);
          return;
        }
        case "/hang":
          res.writeHead(200, sse);
          res.write(sseEvent(0));
          return; // until the client goes away
        case "/hop":
          res.setHeader("Connection", "keep-alive, x-hop-only");
          res.setHeader("x-hop-only", "1");
          res.setHeader("Proxy-Authenticate", "Basic");
          res.setHeader("Set-Cookie", ["a=1", "b=2"]);
          res.setHeader("X-Mixed-Case", "kept");
          res.end("ok");
          return;
        default: {
          // Echo: what the upstream received.
          const body = Buffer.concat(chunks);
          const echo = JSON.stringify({
            method: req.method,
            url: req.url,
            headers: req.headers,
            rawHeaders: req.rawHeaders,
            bodySha: createHash("sha256").update(body).digest("hex"),
            bodyLength: body.length,
          });
          res.writeHead(200, { "content-type": "application/json" });
          res.end(echo);
        }
      }
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    closed,
    written,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// ---------------------------------------------------------------------------
// The client.

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  rawHeaders: string[];
  body: Buffer;
  /** The response ended normally (not cut short). */
  complete: boolean;
  error?: string;
  firstByteMs: number;
  totalMs: number;
}

interface ReqOpts {
  method?: string;
  headers?: http.OutgoingHttpHeaders;
  body?: string | Buffer;
  /** Called with the first body chunk; may destroy the request. */
  onFirstChunk?: (req: http.ClientRequest, res: http.IncomingMessage) => void;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });

function fetchRaw(base: string, path: string, opts: ReqOpts = {}): Promise<Got> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const chunks: Buffer[] = [];
    let firstByteMs = -1;
    let error: string | undefined;
    const req = http.request(`${base}${path}`, {
      method: opts.method ?? "GET",
      headers: opts.headers,
      agent,
    });
    req.on("error", (err: NodeJS.ErrnoException) => {
      error ??= err.code ?? err.message;
      resolve({
        status: 0,
        headers: {},
        rawHeaders: [],
        body: Buffer.concat(chunks),
        complete: false,
        error,
        firstByteMs,
        totalMs: performance.now() - t0,
      });
    });
    req.on("response", (res) => {
      res.on("data", (c: Buffer) => {
        if (firstByteMs < 0) {
          firstByteMs = performance.now() - t0;
          opts.onFirstChunk?.(req, res);
        }
        chunks.push(c);
      });
      res.on("error", (err: NodeJS.ErrnoException) => {
        error ??= err.code ?? err.message;
      });
      res.on("close", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
          complete: res.complete && !error,
          error,
          firstByteMs,
          totalMs: performance.now() - t0,
        }),
      );
    });
    req.end(opts.body);
  });
}

// ---------------------------------------------------------------------------
// Fixtures.

let upstream: Upstream;
const logs: ProxyLogEntry[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
let proxies: RunningProxy[] = [];

async function proxy(opts: Partial<ProxyOptions> = {}): Promise<RunningProxy> {
  const p = await startProxy({ upstream: upstream.url, log: (e) => logs.push(e), ...opts });
  proxies.push(p);
  return p;
}

beforeAll(async () => {
  process.on("unhandledRejection", onUnhandled);
  upstream = await startUpstream();
});

afterEach(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  proxies = [];
});

afterAll(async () => {
  await upstream.close();
  agent.destroy();
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
  // Secrets pass through the proxy but never into its logs.
  const text = JSON.stringify(logs);
  expect(text).not.toContain("TESTSECRET");
  expect(text).not.toContain("secret content");
});

type Call = { ext: string; hook: string; arg?: unknown };

/** An extension that records every hook call (synchronously). */
function recorder(name: string, order: number, calls: Call[]): ProxyExtension {
  const rec = (hook: string, arg?: unknown): void => {
    calls.push({ ext: name, hook, arg });
  };
  return {
    name,
    order,
    onRequest: (ctx) => rec("onRequest", { body: ctx.body, url: ctx.url, method: ctx.method }),
    onResponseStart: (ctx) =>
      rec("onResponseStart", { status: ctx.status, type: ctx.responseHeaders?.["content-type"] }),
    onStreamEvent: (_ctx, ev) => rec("onStreamEvent", { event: ev.event, data: ev.data, json: ev.json }),
    onResponse: (_ctx, body) => rec("onResponse", body.toString("utf8")),
    onEnd: (ctx) => rec("onEnd", { aborted: ctx.aborted, status: ctx.status }),
  };
}

function hooks(calls: Call[], ext?: string): string[] {
  return calls.filter((c) => !ext || c.ext === ext).map((c) => c.hook);
}

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error("condition not met in time");
    await sleep(10);
  }
}

// ---------------------------------------------------------------------------

describe("byte-identical passthrough", () => {
  it("a streamed SSE response, chunk by chunk with delays", async () => {
    const p = await proxy();
    const [direct, via] = await Promise.all([
      fetchRaw(upstream.url, "/sse?n=12&delay=15"),
      fetchRaw(p.url, "/sse?n=12&delay=15"),
    ]);
    expect(direct.complete).toBe(true);
    expect(via.complete).toBe(true);
    expect(via.status).toBe(200);
    expect(via.body.equals(direct.body)).toBe(true);
    expect(via.body.toString()).toBe(sseEvents(12).join(""));
    expect(via.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(via.headers["request-id"]).toBe("req_sse");
    // Streamed, not buffered: the first bytes came long before the last.
    expect(via.totalMs - via.firstByteMs).toBeGreaterThan(150);
  });

  it("a 10 MB streamed response", async () => {
    const p = await proxy();
    const via = await fetchRaw(p.url, "/big");
    expect(via.complete).toBe(true);
    expect(via.body.length).toBe(BIG.length);
    expect(via.body.equals(BIG)).toBe(true);
  });

  it("a non-streamed JSON response, with its content-length", async () => {
    const p = await proxy();
    const [direct, via] = await Promise.all([fetchRaw(upstream.url, "/json"), fetchRaw(p.url, "/json")]);
    expect(via.body.equals(direct.body)).toBe(true);
    expect(via.body.toString()).toBe(JSON_BODY);
    expect(via.headers["content-length"]).toBe(String(Buffer.byteLength(JSON_BODY)));
    expect(via.headers["request-id"]).toBe("req_json");
  });

  it("a gzip-compressed stream: the same compressed bytes, observers get the decoded events", async () => {
    const events: StreamEvent[] = [];
    const p = await proxy({
      extensions: [{ name: "obs", order: 1, onStreamEvent: (_c, e) => void events.push(e) }],
    });
    const headers = { "accept-encoding": "gzip" };
    const [direct, via] = await Promise.all([
      fetchRaw(upstream.url, "/gzip", { headers }),
      fetchRaw(p.url, "/gzip", { headers }),
    ]);
    expect(via.headers["content-encoding"]).toBe("gzip");
    expect(via.headers.vary).toBe("accept-encoding");
    expect(via.body.equals(direct.body)).toBe(true);
    expect(zlib.gunzipSync(via.body).toString()).toBe(sseEvents(8).join(""));
    await until(() => events.length === 8);
    expect(events.map((e) => (e.json as { delta: { text: string } }).delta.text)).toEqual(
      Array.from({ length: 8 }, (_, i) => `word ${i} `),
    );
  });

  it("a gzip-compressed JSON body: onResponse gets it decoded", async () => {
    const bodies: string[] = [];
    const p = await proxy({
      extensions: [{ name: "obs", order: 1, onResponse: (_c, b) => void bodies.push(b.toString()) }],
    });
    const [direct, via] = await Promise.all([
      fetchRaw(upstream.url, "/gzip-json"),
      fetchRaw(p.url, "/gzip-json"),
    ]);
    expect(via.body.equals(direct.body)).toBe(true);
    expect(via.headers["content-length"]).toBe(String(direct.body.length));
    await until(() => bodies.length === 1);
    expect(bodies[0]).toBe(JSON_BODY);
  });

  it.each([400, 500, 529])("an upstream %i: same status, headers and body", async (code) => {
    const p = await proxy();
    const [direct, via] = await Promise.all([
      fetchRaw(upstream.url, `/status?code=${code}`),
      fetchRaw(p.url, `/status?code=${code}`),
    ]);
    expect(via.status).toBe(code);
    expect(via.body.equals(direct.body)).toBe(true);
    expect(via.headers["x-should-retry"]).toBe("true");
    expect(via.headers["retry-after"]).toBe("1");
    expect(via.headers["request-id"]).toBe(`req_${code}`);
  });

  it("50 concurrent streams, all identical", async () => {
    const p = await proxy({ extensions: [{ name: "count", order: 1, onStreamEvent: () => {} }] });
    const expected = sseEvents(20).join("");
    const all = await Promise.all(
      Array.from({ length: 50 }, (_, i) => fetchRaw(p.url, `/sse?n=20&delay=2&id=c${i}`)),
    );
    for (const got of all) {
      expect(got.complete).toBe(true);
      expect(got.body.toString()).toBe(expected);
    }
  });
});

describe("failures look like the upstream's own", () => {
  it.each([0, 40])(
    "a reset mid-stream (%i ms after the last bytes) cuts the client after the same bytes",
    async (after) => {
      const ends: ProxyContext[] = [];
      const p = await proxy({ extensions: [{ name: "end", order: 1, onEnd: (ctx) => void ends.push(ctx) }] });
      const path = `/reset?after=${after}`;
      const [direct, via] = await Promise.all([fetchRaw(upstream.url, path), fetchRaw(p.url, path)]);
      expect(direct.complete).toBe(false);
      expect(via.complete).toBe(false);
      expect(via.status).toBe(200);
      expect(via.body.equals(direct.body)).toBe(true);
      expect(via.body.toString()).toBe(sseEvents(3).join(""));
      await until(() => ends.length === 1);
      expect(ends[0]!.aborted?.by).toBe("upstream");
    },
  );

  it("a reset while a slow client still has bytes to read: it gets all of them, then the cut", async () => {
    const p = await proxy();
    const slowly = {
      onFirstChunk: (_req: http.ClientRequest, res: http.IncomingMessage) => {
        res.pause();
        setTimeout(() => res.resume(), 300);
      },
    };
    const [direct, via] = await Promise.all([
      fetchRaw(upstream.url, "/reset-big", slowly),
      fetchRaw(p.url, "/reset-big", slowly),
    ]);
    expect(direct.complete).toBe(false);
    expect(via.complete).toBe(false);
    expect(direct.body.length).toBe(4 * 1024 * 1024);
    expect(via.body.equals(direct.body)).toBe(true);
  });

  it("an unreachable upstream gives 502 with a small JSON error", async () => {
    const dead = http.createServer();
    dead.listen(0, "127.0.0.1");
    await once(dead, "listening");
    const port = (dead.address() as AddressInfo).port;
    await new Promise((r) => dead.close(r));
    const ends: ProxyContext[] = [];
    const p = await proxy({
      upstream: `http://127.0.0.1:${port}`,
      extensions: [{ name: "end", order: 1, onEnd: (ctx) => void ends.push(ctx) }],
    });
    const got = await fetchRaw(p.url, "/v1/messages", { method: "POST", body: "{}" });
    expect(got.status).toBe(502);
    expect(got.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(got.body.toString())).toEqual({
      type: "error",
      error: { type: "proxy_error", message: "upstream unreachable" },
    });
    await until(() => ends.length === 1);
    expect(ends[0]!.aborted).toEqual({ by: "upstream", reason: "ECONNREFUSED" });
    expect(ends[0]!.status).toBeUndefined();
  });

  it("a client abort mid-stream aborts the upstream request", async () => {
    const calls: Call[] = [];
    const p = await proxy({ extensions: [recorder("rec", 1, calls)] });
    const got = await fetchRaw(p.url, "/hang?id=abort1", { onFirstChunk: (req) => req.destroy() });
    expect(got.complete).toBe(false);
    await until(() => upstream.closed.has("abort1"));
    await until(() => hooks(calls).includes("onEnd"));
    expect(hooks(calls)).toEqual(["onRequest", "onResponseStart", "onStreamEvent", "onEnd"]);
    expect(calls.at(-1)!.arg).toMatchObject({ aborted: { by: "client" }, status: 200 });
  });

  it("a client that stops reading pauses the upstream (backpressure)", async () => {
    const p = await proxy();
    let res: http.IncomingMessage | undefined;
    const got = fetchRaw(p.url, "/endless?id=bp", {
      onFirstChunk: (_req, r) => {
        res = r;
        r.pause();
      },
    });
    await until(() => res !== undefined);
    await sleep(600);
    const stalled = upstream.written.get("bp") ?? 0;
    await sleep(300);
    // Only socket buffers' worth got through, and nothing more while the client is paused.
    expect(stalled).toBeLessThan(32 * 1024 * 1024);
    expect(upstream.written.get("bp")).toBe(stalled);
    res!.destroy();
    await got;
    await until(() => upstream.closed.has("bp"));
  });

  it("a request body over the limit gets 413, declared or chunked", async () => {
    const p = await proxy({ maxRequestBytes: 1024 });
    const big = Buffer.alloc(4096, 0x7b);
    const declared = await fetchRaw(p.url, "/echo", { method: "POST", body: big });
    expect(declared.status).toBe(413);
    const chunked = await fetchRaw(p.url, "/echo", {
      method: "POST",
      headers: { "transfer-encoding": "chunked" },
      body: big,
    });
    expect(chunked.status).toBe(413);
    const ok = await fetchRaw(p.url, "/echo", { method: "POST", body: big.subarray(0, 1000) });
    expect(ok.status).toBe(200);
  });
});

describe("headers and body", () => {
  it("forwards credentials and end-to-end headers, drops hop-by-hop ones, rewrites host", async () => {
    const p = await proxy();
    const body = '{ "model" : "claude",\n  "text": "h\\u00e9llo ✓" }';
    const got = await fetchRaw(p.url, "/v1/messages?beta=true", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": SECRET_KEY,
        authorization: SECRET_BEARER,
        "anthropic-version": "2023-06-01",
        "X-Stainless-Retry-Count": "0",
        connection: "keep-alive, x-conn-listed",
        "x-conn-listed": "drop me",
        "keep-alive": "timeout=5",
        te: "trailers",
        "proxy-authorization": "Basic abc",
      },
      body,
    });
    const echo = JSON.parse(got.body.toString()) as {
      method: string;
      url: string;
      headers: Record<string, string>;
      rawHeaders: string[];
      bodySha: string;
    };
    expect(echo.method).toBe("POST");
    expect(echo.url).toBe("/v1/messages?beta=true");
    expect(echo.headers["x-api-key"]).toBe(SECRET_KEY);
    expect(echo.headers.authorization).toBe(SECRET_BEARER);
    expect(echo.headers["anthropic-version"]).toBe("2023-06-01");
    expect(echo.rawHeaders).toContain("X-Stainless-Retry-Count");
    expect(echo.headers.host).toBe(`127.0.0.1:${upstream.port}`);
    for (const h of ["x-conn-listed", "keep-alive", "te", "proxy-authorization"]) {
      expect(echo.headers[h]).toBeUndefined();
    }
    expect(echo.bodySha).toBe(createHash("sha256").update(body).digest("hex"));
  });

  it("response: hop-by-hop headers dropped, the rest kept with their case and repetitions", async () => {
    const p = await proxy();
    const got = await fetchRaw(p.url, "/hop");
    expect(got.headers["x-hop-only"]).toBeUndefined();
    expect(got.headers["proxy-authenticate"]).toBeUndefined();
    expect(got.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(got.rawHeaders).toContain("X-Mixed-Case");
    expect(got.body.toString()).toBe("ok");
  });

  it("joins the upstream's base path with the client's path and query", async () => {
    const p = await proxy({ upstream: `${upstream.url}/base/` });
    const got = await fetchRaw(p.url, "/responses?x=1&y=%2F");
    expect(JSON.parse(got.body.toString()).url).toBe("/base/responses?x=1&y=%2F");
  });

  it("forwards a body that is not valid JSON unchanged; ctx.body is then undefined", async () => {
    const bodies: unknown[] = [];
    const p = await proxy({
      extensions: [{ name: "b", order: 1, onRequest: (ctx) => void bodies.push(ctx.body) }],
    });
    const body = '{"truncated": ';
    const got = await fetchRaw(p.url, "/echo", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    expect(JSON.parse(got.body.toString()).bodySha).toBe(createHash("sha256").update(body).digest("hex"));
    expect(bodies).toEqual([undefined]);
  });
});

describe("extension hooks", () => {
  it("run in order with the request's context; SSE events parsed in order", async () => {
    const calls: Call[] = [];
    const ctxs: ProxyContext[] = [];
    const late = recorder("late", 20, calls);
    const early = recorder("early", 10, calls);
    const grab: ProxyExtension = { name: "grab", order: 30, onEnd: (ctx) => void ctxs.push(ctx) };
    const p = await proxy({ extensions: [late, grab, early] });
    const requestBody = { model: "claude-x", stream: true, messages: [{ role: "user", content: "hi" }] };
    const got = await fetchRaw(p.url, "/sse?n=5&delay=2", {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": SECRET_KEY },
      body: JSON.stringify(requestBody),
    });
    expect(got.complete).toBe(true);
    await until(() => ctxs.length === 1);

    const seq = ["onRequest", "onResponseStart", ...Array(5).fill("onStreamEvent"), "onEnd"];
    expect(hooks(calls, "early")).toEqual(seq);
    expect(hooks(calls, "late")).toEqual(seq);
    // Synchronous hooks interleave per call, lower `order` first.
    expect(calls.map((c) => c.ext)).toEqual(seq.flatMap(() => ["early", "late"]));

    const early0 = calls.filter((c) => c.ext === "early");
    expect(early0[0]!.arg).toEqual({ body: requestBody, url: "/sse?n=5&delay=2", method: "POST" });
    expect(early0[1]!.arg).toEqual({ status: 200, type: "text/event-stream; charset=utf-8" });
    const events = early0
      .slice(2, 7)
      .map((c) => c.arg as { event: string; json: { delta: { text: string } } });
    expect(events.map((e) => e.event)).toEqual(Array(5).fill("content_block_delta"));
    expect(events.map((e) => e.json.delta.text)).toEqual([0, 1, 2, 3, 4].map((i) => `word ${i} `));
    expect(early0[7]!.arg).toEqual({ aborted: undefined, status: 200 });

    const ctx = ctxs[0]!;
    expect(ctx.headers["x-api-key"]).toBe(SECRET_KEY);
    expect(ctx.rawBody.toString()).toBe(JSON.stringify(requestBody));
    expect(ctx.responseHeaders?.["request-id"]).toBe("req_sse");
    expect(ctx.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("onResponse gets a non-streamed body; onStreamEvent is not called for it", async () => {
    const calls: Call[] = [];
    const p = await proxy({ extensions: [recorder("rec", 1, calls)] });
    await fetchRaw(p.url, "/json");
    await until(() => hooks(calls).includes("onEnd"));
    expect(hooks(calls)).toEqual(["onRequest", "onResponseStart", "onResponse", "onEnd"]);
    expect(calls[2]!.arg).toBe(JSON_BODY);
  });

  it("an extension's own hooks stay sequential when it goes async", async () => {
    const seen: string[] = [];
    const asyncExt: ProxyExtension = {
      name: "async",
      order: 1,
      async onRequest() {
        await sleep(80);
        seen.push("onRequest");
      },
      async onStreamEvent(_c, ev) {
        await sleep(5);
        seen.push(`event ${(ev.json as { delta: { text: string } }).delta.text.trim()}`);
      },
      onEnd() {
        seen.push("onEnd");
      },
    };
    const p = await proxy({ extensions: [asyncExt] });
    await fetchRaw(p.url, "/sse?n=3&delay=0");
    await until(() => seen.includes("onEnd"));
    expect(seen).toEqual(["onRequest", "event word 0", "event word 1", "event word 2", "onEnd"]);
  });

  it("throwing and rejecting extensions change nothing for the client and escape nowhere", async () => {
    const boom = () => Object.assign(new Error("secret content sk-ant-leak"), { code: "EBOOM" });
    const hookNames = ["onRequest", "onResponseStart", "onStreamEvent", "onResponse", "onEnd"] as const;
    const syncThrower = { name: "sync-thrower", order: 1 } as ProxyExtension;
    const asyncRejecter = { name: "async-rejecter", order: 2 } as ProxyExtension;
    for (const h of hookNames) {
      (syncThrower as unknown as Record<string, () => void>)[h] = () => {
        throw boom();
      };
      (asyncRejecter as unknown as Record<string, () => Promise<void>>)[h] = async () => {
        await sleep(1);
        throw new TypeError("secret content too");
      };
    }
    const calls: Call[] = [];
    const p = await proxy({ extensions: [syncThrower, asyncRejecter, recorder("after", 3, calls)] });
    const [direct, via, directJson, viaJson] = await Promise.all([
      fetchRaw(upstream.url, "/sse?n=6&delay=3"),
      fetchRaw(p.url, "/sse?n=6&delay=3", { method: "POST", body: "{}" }),
      fetchRaw(upstream.url, "/json"),
      fetchRaw(p.url, "/json"),
    ]);
    expect(via.complete).toBe(true);
    expect(via.body.equals(direct.body)).toBe(true);
    expect(viaJson.body.equals(directJson.body)).toBe(true);
    await until(() => hooks(calls).filter((h) => h === "onEnd").length === 2);
    // The well-behaved extension after them saw everything.
    expect(hooks(calls).filter((h) => h === "onStreamEvent")).toHaveLength(6);
    await p.close();
    await sleep(20);
    expect(unhandled).toEqual([]);
    const errors = logs.filter((l) => l.msg === "extension_error");
    // Both keep receiving calls after failing: every hook of both requests failed and was logged.
    expect(errors.filter((e) => e.extension === "sync-thrower" && e.hook === "onStreamEvent")).toHaveLength(
      6,
    );
    expect(errors.filter((e) => e.extension === "async-rejecter" && e.hook === "onStreamEvent")).toHaveLength(
      6,
    );
    expect(errors.find((e) => e.extension === "sync-thrower")?.error).toBe("EBOOM");
    expect(errors.find((e) => e.extension === "async-rejecter")?.error).toBe("TypeError");
    for (const h of hookNames) {
      expect(errors.some((e) => e.extension === "async-rejecter" && e.hook === h)).toBe(true);
    }
    expect(JSON.stringify(errors)).not.toContain("secret content");
  });

  it("a hook that never settles is given up on after the timeout; onEnd still comes", async () => {
    const seen: string[] = [];
    const stuck: ProxyExtension = {
      name: "stuck",
      order: 1,
      onRequest: () => new Promise<void>(() => {}),
      onEnd: () => void seen.push("end"),
    };
    const p = await proxy({ extensions: [stuck], hookTimeoutMs: 100 });
    const got = await fetchRaw(p.url, "/json");
    expect(got.body.toString()).toBe(JSON_BODY);
    await until(() => seen.length === 1);
    expect(logs.some((l) => l.extension === "stuck" && l.error === "EXTENSION_TIMEOUT")).toBe(true);
  });

  it("a slow extension's queue is capped: it misses events past the cap, never onEnd", async () => {
    const seen: string[] = [];
    const slow: ProxyExtension = {
      name: "slow",
      order: 1,
      onStreamEvent: async (_c, ev) => {
        await sleep(5);
        seen.push(ev.data);
      },
      onEnd: () => void seen.push("end"),
    };
    const local: ProxyLogEntry[] = [];
    const pipeline = new Pipeline([slow], { log: (e) => local.push(e), maxBacklogBytes: 4 * (256 + 10) });
    const run = pipeline.begin(new RequestContext("r1", "POST", "/", {}, Buffer.alloc(0)));
    // The first call runs at once; the next four fit in the queue; the rest are dropped.
    for (let i = 0; i < 10; i += 1)
      run.streamEvent({ event: "e", data: `event ${i}`.padEnd(10), json: undefined });
    run.end();
    await pipeline.idle();
    expect(seen).toEqual([0, 1, 2, 3, 4].map((i) => `event ${i}`.padEnd(10)).concat("end"));
    expect(local.filter((l) => l.msg === "extension_backlog_overflow")).toHaveLength(1);
  });

  it("a slow async extension does not delay the bytes", async () => {
    const seen: string[] = [];
    // The extension's hooks wait for the test, which lets them go only once the whole body has arrived:
    // had the proxy awaited them, the body would never arrive.
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow: ProxyExtension = {
      name: "slow",
      order: 1,
      async onStreamEvent(_c, ev) {
        await gate;
        seen.push(ev.data);
      },
      onEnd() {
        seen.push("end");
      },
    };
    const p = await proxy({ extensions: [slow] });
    const direct = await fetchRaw(upstream.url, "/sse?n=5&delay=10");
    const via = await fetchRaw(p.url, "/sse?n=5&delay=10");
    expect(via.body.equals(direct.body)).toBe(true);
    expect(seen).toEqual([]);
    open();
    await p.close(); // waits for pending hooks
    expect(seen).toHaveLength(6);
    expect(seen.at(-1)).toBe("end");
  });
});
