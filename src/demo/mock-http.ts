// Request plumbing shared by the mock model servers.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib";

/** Headers as a flat map for the request log, with the credential headers replaced. */
export function flatHeaders(
  req: http.IncomingMessage,
  redacted: ReadonlySet<string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined) continue;
    out[k] = redacted.has(k) ? "[redacted]" : Array.isArray(v) ? v.join(", ") : v;
  }
  return out;
}

/** The whole request body, decoded from gzip, deflate or brotli. */
export function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const enc = req.headers["content-encoding"];
      try {
        if (enc === "gzip") resolve(gunzipSync(raw));
        else if (enc === "deflate") resolve(inflateSync(raw));
        else if (enc === "br") resolve(brotliDecompressSync(raw));
        else resolve(raw);
      } catch (err) {
        reject(err);
      }
    });
    req.on("error", reject);
  });
}

/** A streamed 200 response: the event-stream headers (with `extra`), then each frame as given, then the end. */
export function sendSse(
  res: http.ServerResponse,
  frames: Iterable<string>,
  extra: Record<string, string> = {},
): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...extra,
  });
  for (const frame of frames) res.write(frame);
  res.end();
}

export interface RunningMock {
  host: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves `handle` on 127.0.0.1 (port 0: a free one). A handler that throws answers 500 with `errorBody` in the
 * API's own error shape, or drops the connection once a response has started.
 */
export async function startMockServer(
  handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>,
  errorBody: (err: unknown) => unknown,
  opts: { port?: number; host?: string } = {},
): Promise<RunningMock> {
  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify(errorBody(err)));
    });
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    host,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        // The agent CLIs keep keep-alive sockets open; without this, close() waits for them to time out.
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
