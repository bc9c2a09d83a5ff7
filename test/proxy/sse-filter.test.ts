// Extensions that declare the SSE event types they need (streamEvents): they get
// exactly those events, the others are skipped as bytes, and what reaches them is
// what the full parser would have given, however the stream is cut into chunks.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createParser } from "eventsource-parser";
import { afterEach, describe, expect, it, vi } from "vitest";
import { cutBytes, lcgRandom, pick } from "../../packages/redact/test/random.ts";
import type { ProxyExtension, StreamEvent } from "../../src/core/ports/proxy-extension.ts";
import { createArchiveFeed } from "../../src/proxy/extensions/archive-feed.ts";
import { type RunningProxy, startProxy } from "../../src/proxy/server.ts";
import { SseSplitter } from "../../src/proxy/sse-blocks.ts";

interface Seen {
  event: string | undefined;
  data: string;
}

const WANTED = ["message_start", "message_delta", "message_stop"];
const isWanted = (e: Seen) => e.event === undefined || e.event === "message" || WANTED.includes(e.event);

/** The proxy's observer before the split: every byte decoded and parsed. */
function parseWhole(chunks: Buffer[]): Seen[] {
  const out: Seen[] = [];
  const text = new TextDecoder("utf-8");
  const parser = createParser({ onEvent: (m) => out.push({ event: m.event, data: m.data }) });
  for (const c of chunks) parser.feed(text.decode(c, { stream: true }));
  return out;
}

/** The same through the splitter, as SseObserver wires it. */
function parseSplit(chunks: Buffer[], maxEventBytes = 1 << 20): Seen[] {
  const out: Seen[] = [];
  const text = new TextDecoder("utf-8");
  const parser = createParser({ onEvent: (m) => out.push({ event: m.event, data: m.data }) });
  const parse = (b: Buffer) => parser.feed(text.decode(b, { stream: true }));
  const splitter = new SseSplitter(WANTED, { event: parse, raw: parse }, maxEventBytes);
  for (const c of chunks) splitter.write(c);
  return out;
}

const PIECES = [
  'event: message_start\ndata: {"type":"message_start"}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","text":"héllo ✓ 𝄞"}\n\n',
  'event: message_delta\ndata: {"usage":{"output_tokens":3}}\n\n',
  "event: message_stop\ndata: {}\n\n",
  "event:message_delta\ndata: no space after the colon\n\n",
  "event:  message_delta\ndata: two spaces: not the wanted name\n\n",
  "event: content_block_delta\nevent: message_delta\ndata: the last event line wins\n\n",
  "event: message_delta\nevent: ping\ndata: the last event line wins, unwanted\n\n",
  "event\ndata: an event line without a colon sets no type\n\n",
  "event:\ndata: an empty type\n\n",
  "event: \ndata: an empty type after the space\n\n",
  "data: a data-only event\n\n",
  "event: message\ndata: the default type, spelled out\n\n",
  "data: two\ndata: data lines\n\n",
  ": a comment\nevent: message_start\ndata: after a comment\n\n",
  "id: 7\nretry: 100\nevent: message_stop\ndata: with id and retry\n\n",
  "event: content_block_delta\ndata: a\n\n\n\n",
  "event: message_start_x\ndata: a longer name\n\n",
  "event: message_star\ndata: a shorter name\n\n",
  "eventx: message_start\ndata: an unknown field\n\n",
  "event: message_start\n\n",
  "\n",
];

function randomStream(r: () => number, withCr: boolean, withBom: boolean): Buffer {
  const parts: string[] = [];
  const n = 5 + Math.floor(r() * 40);
  for (let i = 0; i < n; i += 1) parts.push(pick(r, PIECES));
  let s = parts.join("");
  if (withCr) s = s.replace(/\n/g, () => (r() < 0.3 ? "\r\n" : r() < 0.1 ? "\r" : "\n"));
  // Sometimes an unfinished event at the end, which is never dispatched.
  if (r() < 0.3) s += "event: message_stop\ndata: cut";
  const bytes = Buffer.from(s, "utf8");
  return withBom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]) : bytes;
}

function randomChunks(bytes: Buffer, r: () => number): Buffer[] {
  return cutBytes(bytes, () => (r() < 0.3 ? 1 + Math.floor(r() * 3) : 1 + Math.floor(r() * 200)));
}

describe("SseSplitter", () => {
  it("gives the wanted events exactly as the full parser does, for any chunking", () => {
    for (let seed = 1; seed <= 600; seed += 1) {
      const r = lcgRandom(seed);
      const stream = randomStream(r, seed % 5 === 0, seed % 7 === 0);
      const chunks = randomChunks(stream, r);
      const whole = parseWhole(chunks);
      const split = parseSplit(chunks);
      expect({ seed, events: split.filter(isWanted) }).toEqual({ seed, events: whole.filter(isWanted) });
      // Nothing unwanted gets through but the stream's first event, except in a
      // stream that fell back to the full parser.
      if (!stream.includes(0x0d)) {
        const unwanted = split.filter((e) => !isWanted(e));
        expect(unwanted.length <= 1 && (unwanted.length === 0 || unwanted[0] === split[0])).toBe(true);
        if (unwanted.length === 1) expect(split[0]).toEqual(whole[0]);
      }
    }
  });

  it("judges an event cut in two where it lies, at every cut of every kind of event", () => {
    // Each piece after a first event, cut at every byte: the event is then half in
    // the splitter's tail, half in the next chunk, and is judged without joining.
    for (const piece of PIECES) {
      const stream = Buffer.from(PIECES[0]! + piece + PIECES[1]! + PIECES[2]!, "utf8");
      const from = Buffer.byteLength(PIECES[0]!);
      for (let cut = from; cut <= from + Buffer.byteLength(piece); cut += 1) {
        const chunks = [stream.subarray(0, cut), stream.subarray(cut)];
        const whole = parseWhole(chunks);
        expect({ piece, cut, events: parseSplit(chunks) }).toEqual({
          piece,
          cut,
          events: whole.filter((e, i) => i === 0 || isWanted(e)),
        });
      }
    }
  });

  it("never decodes a content delta of an LF-only stream", () => {
    const stream = Buffer.from(
      PIECES[0]! + PIECES[1]!.repeat(50) + PIECES[2]! + PIECES[1]!.repeat(50) + PIECES[3]!,
      "utf8",
    );
    const events = parseSplit(randomChunks(stream, lcgRandom(3)));
    expect(events.map((e) => e.event)).toEqual(["message_start", "message_delta", "message_stop"]);
  });

  it("an event larger than the bound goes to the full parser, which applies its own bound", () => {
    const big = `event: content_block_delta\ndata: ${"x".repeat(5000)}\n\n`;
    const stream = Buffer.from(PIECES[0]! + big + PIECES[2]!, "utf8");
    const chunks = randomChunks(stream, lcgRandom(9));
    expect(parseSplit(chunks, 1000)).toEqual(parseWhole(chunks));
  });
});

// ---------------------------------------------------------------------------
// Through the proxy.

const STREAM = [
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_f","model":"m","usage":{"input_tokens":5}}}\n\n',
  ...Array.from(
    { length: 40 },
    (_, i) =>
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"w${i}"}}\n\n`,
  ),
  'event: message_delta\ndata: {"type":"message_delta","usage":{"output_tokens":40}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join("");

let upstream: http.Server | undefined;
let proxy: RunningProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  upstream?.close();
  proxy = undefined;
  upstream = undefined;
  vi.restoreAllMocks();
});

async function through(extensions: ProxyExtension[]): Promise<string> {
  upstream = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      // Small pieces, so events straddle chunks.
      const bytes = Buffer.from(STREAM);
      for (let i = 0; i < bytes.length; i += 97) res.write(bytes.subarray(i, i + 97));
      res.end();
    });
  });
  await new Promise<void>((r) => upstream!.listen(0, "127.0.0.1", r));
  const port = (upstream.address() as AddressInfo).port;
  proxy = await startProxy({ upstream: `http://127.0.0.1:${port}`, extensions });
  const res = await fetch(`${proxy.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-claude-code-session-id": "s-filter" },
    body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
  });
  const text = await res.text();
  await proxy.close();
  return text;
}

function recorder(name: string, streamEvents?: string[]): ProxyExtension & { seen: string[] } {
  const seen: string[] = [];
  return {
    name,
    order: 1,
    seen,
    ...(streamEvents ? { streamEvents } : {}),
    onStreamEvent(_ctx, ev: StreamEvent) {
      seen.push(`${ev.event}:${(ev.json as { type?: string }).type}`);
    },
  };
}

describe("streamEvents through the proxy", () => {
  it("each extension gets the events it declared, one without a declaration all of them", async () => {
    const usage = recorder("usage", WANTED);
    const all = recorder("all");
    const text = await through([usage, all]);
    expect(text).toBe(STREAM);
    expect(usage.seen).toEqual([
      "message_start:message_start",
      "message_delta:message_delta",
      "message_stop:message_stop",
    ]);
    expect(all.seen).toHaveLength(43);
  });

  it("with the archive feed alone, no content delta is JSON-parsed", async () => {
    const parse = vi.spyOn(JSON, "parse");
    const text = await through([createArchiveFeed()]);
    expect(text).toBe(STREAM);
    const parsedDeltas = parse.mock.calls.filter(
      ([s]) => typeof s === "string" && s.includes('"content_block_delta"'),
    );
    expect(parsedDeltas).toHaveLength(0);
  });
});
