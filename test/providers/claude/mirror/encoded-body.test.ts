// The mirror parses a non-streamed body as it gets it: the proxy decodes the
// copy for its observers (observe.ts) and keeps the response's
// content-encoding header. Run through the real proxy, so that a proxy that
// stopped decoding would show here as a missing assistant record.
import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningProxy, startProxy } from "../../../../src/proxy/server.ts";
import { makeCtx, readRecords, replyJson, type TempMirror, tempMirror } from "./helpers.ts";

const SID = "2b78a515-1a4e-4949-93a8-4a58deaec546";
const ENCODERS: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  br: (b) => zlib.brotliCompressSync(b),
  deflate: (b) => zlib.deflateSync(b),
};

let mirror: TempMirror | undefined;
let proxy: RunningProxy | undefined;
let upstream: http.Server | undefined;
afterEach(async () => {
  await proxy?.close();
  await new Promise((r) => (upstream ? upstream.close(r) : r(undefined)));
  mirror?.cleanup();
  mirror = proxy = upstream = undefined;
});

function post(url: string, headers: Record<string, string>, body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => resolve(Buffer.concat(parts)));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("mirror behind the proxy: an encoded JSON response", () => {
  it.each(Object.keys(ENCODERS))(
    "%s: the client gets the encoded bytes, the mirror the message",
    async (enc) => {
      const reply = { id: `msg_${enc}`, blocks: [{ type: "text" as const, text: `via ${enc}` }] };
      const encoded = ENCODERS[enc]!(Buffer.from(JSON.stringify(replyJson(reply))));
      upstream = http.createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          res.writeHead(200, {
            "content-type": "application/json",
            "content-encoding": enc,
            "content-length": encoded.length,
          });
          res.end(encoded);
        });
      });
      await new Promise<void>((r) => upstream!.listen(0, "127.0.0.1", r));
      const port = (upstream.address() as AddressInfo).port;
      mirror = tempMirror();
      proxy = await startProxy({ upstream: `http://127.0.0.1:${port}`, extensions: [mirror.ext] });

      const ctx = makeCtx([{ role: "user", content: `q ${enc}` }], { stream: false });
      const headers = { ...(ctx.headers as Record<string, string>), "accept-encoding": enc };
      const got = await post(`${proxy.url}${ctx.url}`, headers, ctx.rawBody);
      expect(got.equals(encoded)).toBe(true);
      await proxy.close();
      proxy = undefined;
      await mirror.ext.idle();

      const records = readRecords(mirror.dir, SID);
      expect(records.map((r) => r.type)).toEqual(["user", "assistant"]);
      expect(records[1]?.message.id).toBe(`msg_${enc}`);
      expect(records[1]?.message.content).toEqual([{ type: "text", text: `via ${enc}` }]);
    },
  );
});
