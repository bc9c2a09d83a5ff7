// A hostile (or broken) upstream: the agent still gets exactly the bytes the
// upstream sent, and what tapedeck derives from them stays bounded: one SSE
// event past the parser's limit stops that observer (logged by code, no
// content), and counts that are not counts are not recorded.
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { ProxyExtension } from "../../src/core/ports/proxy-extension.ts";
import { claudeApiUsage } from "../../src/providers/claude/api-usage.ts";
import { type ProxyLogEntry, type RunningProxy, startProxy } from "../../src/proxy/server.ts";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function upstreamSending(body: Buffer, contentType: string): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": contentType });
    res.end(body);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function fetchAll(url: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks)));
      })
      .on("error", reject);
  });
}

describe("a hostile upstream", () => {
  it("one SSE event over 32 MiB: the client gets every byte; the observer stops, logged without content", async () => {
    const giant = Buffer.from(`data: {"type":"x","text":"${"H".repeat(33 * 1024 * 1024)}`);
    const body = Buffer.concat([
      Buffer.from('data: {"type":"first"}\n\n'),
      giant,
      Buffer.from('"}\n\ndata: {"type":"after"}\n\n'),
    ]);
    const url = await upstreamSending(body, "text/event-stream");
    const seen: string[] = [];
    let ended = false;
    const ext: ProxyExtension = {
      name: "watch",
      order: 1,
      onStreamEvent: (_ctx, ev) => void seen.push(String((ev.json as { type?: string } | undefined)?.type)),
      onEnd: () => {
        ended = true;
      },
    };
    const log: ProxyLogEntry[] = [];
    const proxy: RunningProxy = await startProxy({
      upstream: url,
      extensions: [ext],
      log: (e) => log.push(e),
    });
    cleanups.push(() => proxy.close());
    const got = await fetchAll(`${proxy.url}/v1/messages`);
    expect(got.equals(body)).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toEqual(["first"]);
    expect(ended).toBe(true);
    expect(log.filter((e) => e.msg === "observer_stopped")).toEqual([
      expect.objectContaining({ level: "warn", reason: "sse_event_too_large" }),
    ]);
    expect(JSON.stringify(log)).not.toContain("HHHH");
  }, 60_000);

  it("counts that are not counts (negative, infinite, strings, fractions) are not recorded as such", () => {
    const acc = claudeApiUsage.accumulator();
    acc.event({
      type: "message_start",
      message: {
        id: "msg_h",
        model: "m",
        usage: { input_tokens: -5, output_tokens: JSON.parse("1e400"), cache_read_input_tokens: "7" },
      },
    });
    acc.event({ type: "message_delta", usage: { output_tokens: 12.9 } });
    const result = acc.event({ type: "message_stop" });
    expect(result?.usage).toEqual({ source: "proxy", model: "m", message_id: "msg_h", output_tokens: 12 });
  });
});
