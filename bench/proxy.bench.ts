// What the API proxy costs an agent: added time to first byte and total time
// for streamed responses, throughput with many concurrent streams, the proxy's
// CPU per MB, and memory per open stream, all against a direct connection to
// the same mock upstream.
//
// The mock upstream and the load-generating client each run in a child process,
// so this process's CPU time and RSS are the proxy's alone. All targets are
// interleaved so that a slow moment of the machine hits them alike. The stream
// is a real Messages API shape (message_start, content_block_* with 1 KiB text
// deltas, message_delta, message_stop), sent as a Claude Code request would be.
// - "direct": no proxy.
// - "relay": a raw TCP relay (socket.pipe both ways) in this process, the
//   cheapest thing that can sit between client and upstream.
// - "pipe": a plain Node HTTP relay (http.request, then `upstream.pipe(res)`),
//   the floor for anything that speaks HTTP in between.
// - "proxy": tapedeck's proxy without extensions.
// - "proxy+ext": with one stream observer as light as the archive feed (the
//   Claude usage reader on the events it declares).
// - "proxy+mirror": with the transcript mirror on (redaction on, writing to a
//   temporary directory); its CPU includes finishing the writes.
// Run: npx tsx bench/proxy.bench.ts
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import type { ProxyContext, ProxyExtension, StreamEvent } from "../src/core/ports/proxy-extension.ts";
import { type ApiUsageAccumulator, taggedBodyText } from "../src/providers/api-usage.ts";
import { claudeApiUsage } from "../src/providers/claude/api-usage.ts";
import { createMirrorExtension } from "../src/providers/claude/mirror/extension.ts";
import { defaultMirrorSettings } from "../src/providers/claude/mirror/settings.ts";
import { ProxyGate } from "../src/proxy/gate.ts";
import { type RunningProxy, startProxy } from "../src/proxy/server.ts";
import { median, percentile, round, tempDir } from "./lib.ts";

// A Messages API stream of `bytes` (1 KiB text deltas between message_start and
// message_stop), written in 16 KiB pieces with backpressure, like a busy upstream.
const MOCK_UPSTREAM = String.raw`
const http = require("node:http");
const cache = new Map();
const ev = (name, obj) => "event: " + name + "\ndata: " + JSON.stringify(obj) + "\n\n";
function body(bytes) {
  let b = cache.get(bytes);
  if (!b) {
    const start = ev("message_start", { type: "message_start", message: { id: "msg_bench_" + bytes, type: "message",
      role: "assistant", model: "claude-bench", content: [], stop_reason: null, stop_sequence: null,
      usage: { input_tokens: 12, cache_read_input_tokens: 3, output_tokens: 1 } } })
      + ev("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    const end = ev("content_block_stop", { type: "content_block_stop", index: 0 })
      + ev("message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null },
        usage: { output_tokens: 4096 } })
      + ev("message_stop", { type: "message_stop" });
    const head = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"';
    const tail = '"}}\n\n';
    const words = "the quick brown fox jumps over the lazy dog ".repeat(30);
    const one = Buffer.from(head + words.slice(0, 1024 - head.length - tail.length) + tail);
    const n = Math.max(1, Math.ceil((bytes - start.length - end.length) / 1024));
    b = Buffer.concat([Buffer.from(start), ...Array(n).fill(one), Buffer.from(end)]);
    cache.set(bytes, b);
  }
  return b;
}
const server = http.createServer((req, res) => {
  const u = new URL(req.url, "http://x");
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_bench" });
    if (u.pathname.endsWith("/hold")) {
      res.write(body(1024).subarray(0, 1024));
      setTimeout(() => res.end(), Number(u.searchParams.get("ms")));
      return;
    }
    const b = body(Number(u.searchParams.get("bytes")));
    let i = 0;
    const pump = () => {
      while (i < b.length) {
        const ok = res.write(b.subarray(i, i + 16384));
        i += 16384;
        if (!ok) return void res.once("drain", pump);
      }
      res.end();
    };
    pump();
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, "127.0.0.1", () => console.log(JSON.stringify({ port: server.address().port })));
`;

// Commands in on stdin, one JSON per line; results out on stdout. Every request is
// a Claude Code Messages call (POST, JSON body, session header), so the mirror has work.
const LOAD_CLIENT = String.raw`
const http = require("node:http");
const agent = new http.Agent({ keepAlive: true, maxSockets: 2000 });
const now = () => Number(process.hrtime.bigint()) / 1e6;
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const BODY = Buffer.from(JSON.stringify({ model: "claude-bench", stream: true,
  messages: [{ role: "user", content: "Say something long." }] }));
const HEADERS = { "content-type": "application/json", "content-length": BODY.length,
  "x-claude-code-session-id": "0b0e0c5e-bench-4000-8000-000000000001", "anthropic-version": "2023-06-01" };
function one(url, onFirst) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    let ttfb = -1, bytes = 0;
    const req = http.request(url, { method: "POST", agent, headers: HEADERS }, (res) => {
      res.on("data", (c) => {
        if (ttfb < 0) { ttfb = now() - t0; if (onFirst) onFirst(); }
        bytes += c.length;
      });
      res.on("end", () => resolve({ ttfb, total: now() - t0, bytes }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(BODY);
  });
}
async function run(cmd) {
  if (cmd.op === "one") return one(cmd.url);
  if (cmd.op === "many") {
    const t0 = now();
    const rs = await Promise.all(Array.from({ length: cmd.n }, () => one(cmd.url)));
    return { ms: now() - t0, bytes: rs.reduce((s, r) => s + r.bytes, 0) };
  }
  if (cmd.op === "hold") {
    let first = 0;
    const all = Promise.all(Array.from({ length: cmd.n }, () =>
      one(cmd.url, () => { if (++first === cmd.n) out({ id: cmd.id, holding: true }); })));
    await all;
    return { held: cmd.n };
  }
  throw new Error("unknown op");
}
require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
  const cmd = JSON.parse(line);
  run(cmd).then((r) => out({ id: cmd.id, ...r }), (e) => out({ id: cmd.id, error: String(e) }));
});
out({ ready: true });
`;

type Reply = Record<string, unknown> & { id?: number };

class Child {
  readonly proc: ChildProcessByStdio<Writable, Readable, null>;
  #next = 1;
  #waiters = new Map<number, Array<(r: Reply) => void>>();
  #first: Promise<Reply>;

  constructor(code: string) {
    this.proc = spawn(process.execPath, ["-e", code], { stdio: ["pipe", "pipe", "inherit"] });
    let resolveFirst: (r: Reply) => void;
    this.#first = new Promise((r) => {
      resolveFirst = r;
    });
    let gotFirst = false;
    createInterface({ input: this.proc.stdout }).on("line", (line) => {
      const msg = JSON.parse(line) as Reply;
      if (!gotFirst) {
        gotFirst = true;
        resolveFirst(msg);
        return;
      }
      const ws = this.#waiters.get(msg.id ?? 0);
      ws?.shift()?.(msg);
    });
  }

  ready(): Promise<Reply> {
    return this.#first;
  }

  /** Sends a command; answers its replies in order (one, or two for "hold"). */
  send(cmd: Record<string, unknown>, replies = 1): Array<Promise<Reply>> {
    const id = this.#next++;
    const ps = Array.from({ length: replies }, () => new Promise<Reply>((r) => this.#push(id, r)));
    this.proc.stdin.write(`${JSON.stringify({ ...cmd, id })}\n`);
    return ps;
  }

  async call(cmd: Record<string, unknown>): Promise<Reply> {
    const r = await this.send(cmd)[0]!;
    if (r.error) throw new Error(String(r.error));
    return r;
  }

  #push(id: number, r: (r: Reply) => void): void {
    const ws = this.#waiters.get(id) ?? [];
    ws.push(r);
    this.#waiters.set(id, ws);
  }

  kill(): void {
    this.proc.kill();
  }
}

// "base…": the same three proxies from another version of the tree (`--base`), for before/after in one run.
type Target =
  | "direct"
  | "relay"
  | "pipe"
  | "proxy"
  | "proxy+ext"
  | "proxy+mirror"
  | "base"
  | "base+ext"
  | "base+mirror";
const TARGETS: Target[] = ["direct", "relay", "pipe", "proxy", "proxy+ext", "proxy+mirror"];
const byTarget = (): Record<Target, number[]> => ({
  direct: [],
  relay: [],
  pipe: [],
  proxy: [],
  "proxy+ext": [],
  "proxy+mirror": [],
  base: [],
  "base+ext": [],
  "base+mirror": [],
});

interface ProxyModules {
  startProxy: typeof startProxy;
  createMirrorExtension: typeof createMirrorExtension;
  defaultMirrorSettings: typeof defaultMirrorSettings;
}

/** The proxy and the mirror of another checkout's `src/` (the mirror moved twice: each place is tried). */
async function loadBase(root: string): Promise<ProxyModules> {
  const load = (rel: string) => import(pathToFileURL(resolve(root, rel)).href);
  const server = await load("src/proxy/server.ts");
  const places = ["src/providers/claude/mirror", "src/proxy/extensions/mirror", "src/proxy/mirror"];
  const dir = places.find((p) => existsSync(resolve(root, p))) ?? places[0]!;
  const ext = await load(`${dir}/extension.ts`);
  const settings = await load(`${dir}/settings.ts`);
  return {
    startProxy: server.startProxy,
    createMirrorExtension: ext.createMirrorExtension,
    defaultMirrorSettings: settings.defaultMirrorSettings,
  };
}
const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Relay {
  url: string;
  close(): void;
}

async function listen(server: net.Server, sockets: Set<net.Socket>): Promise<Relay> {
  server.on("connection", (s: net.Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => {
      server.close();
      for (const s of sockets) s.destroy();
    },
  };
}

/** The reference floor: bytes relayed both ways without looking at them. */
function startRelay(port: number): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((down) => {
    const up = net.connect(port, "127.0.0.1");
    for (const s of [down, up]) {
      s.setNoDelay(true);
      s.on("error", () => s.destroy());
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
    }
    down.pipe(up);
    up.pipe(down);
  });
  return listen(server, sockets);
}

/** The HTTP floor: a plain Node relay that parses requests and responses and pipe()s the bodies. */
function startPipeRelay(port: number): Promise<Relay> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 2000 });
  const server = http.createServer({ noDelay: true }, (req, res) => {
    const up = http.request(
      { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers, agent },
      (ures) => {
        res.writeHead(ures.statusCode ?? 502, ures.headers);
        ures.pipe(res);
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  });
  const relay = listen(server, new Set());
  return relay.then((r) => ({
    ...r,
    close: () => {
      r.close();
      agent.destroy();
    },
  }));
}

/**
 * The security checks in isolation, measured in-process where the machine's load blurs them least: the gate's
 * check of one request (two sha256 of ~50 bytes, a Set lookup), and the working-directory scan of a normal
 * 50 KB Claude body and of a 400 KB body that repeats the phrase (the input that froze the old scan).
 */
function securityChecks() {
  const gate = new ProxyGate(`tpx_${"s".repeat(43)}`);
  gate.listening(4000);
  const headers = { host: "127.0.0.1:4000", "content-type": "application/json" };
  const target = `/tpx_${"s".repeat(43)}/v1/messages?beta=true`;
  const n = 100_000;
  let ok = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i += 1) if (gate.check(headers, target).ok) ok += 1;
  const gateUs = ((performance.now() - t0) * 1000) / n;
  if (ok !== n) throw new Error("gate refused the bench's own request");
  const phrase = "Primary working directory: ";
  const normal = Buffer.from(
    JSON.stringify({
      messages: [{ role: "user", content: "x".repeat(50_000) }],
      system: `${phrase}/home/u/p\n`,
    }),
  );
  const repeated = Buffer.from(phrase.repeat(Math.ceil((400 * 1024) / phrase.length)));
  const timeScan = (body: Buffer) => {
    const runs: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const s0 = performance.now();
      taggedBodyText(body, phrase);
      runs.push(performance.now() - s0);
    }
    return round(median(runs), 3);
  };
  return {
    gate_check_us: round(gateUs, 2),
    wd_scan_normal_50KB_ms: timeScan(normal),
    wd_scan_repeated_400KB_ms: timeScan(repeated),
  };
}

/**
 * An extension as light as the archive feed: the Claude usage reader fed the
 * events it declares (the feed minus its archive write, which happens once per
 * response).
 */
function observer(): ProxyExtension & { results: number } {
  const ext = {
    name: "bench-observer",
    order: 1,
    results: 0,
    streamEvents: USAGE_EVENTS,
    onRequest: (ctx: ProxyContext) => {
      ctx.meta.bench = claudeApiUsage.accumulator();
    },
    onStreamEvent: (ctx: ProxyContext, ev: StreamEvent) => {
      const acc = ctx.meta.bench as ApiUsageAccumulator | undefined;
      if (acc && ev.json !== undefined && acc.event(ev.json)) ext.results += 1;
    },
  };
  return ext;
}
// What the Claude usage reader needs (src/providers/claude/api-usage.ts).
const USAGE_EVENTS = ["message_start", "message_delta", "message_stop"];

export interface ProxyBenchOptions {
  /** Runs per size for the latency rows. */
  runs?: { "1KB": number; "100KB": number; "2MB": number; "10MB": number };
  concurrency?: number;
  /** Bytes per stream in the concurrent-throughput rounds, and how many rounds. */
  throughputBytes?: number;
  throughputRounds?: number;
  /** Streams held open for the memory measurement. */
  heldStreams?: number;
  /** Only the concurrent-throughput rounds (for profiling and repeated runs). */
  throughputOnly?: boolean;
  /** The targets to run, in this order (default all); ratios need "relay" (and "direct"). */
  targets?: Target[];
  /** A checkout of another version (its root, holding src/): adds the "base…" targets. */
  base?: string;
}

const ratio = (a: number, b: number) => round(a / b, 3);

export async function runProxyBench(opts: ProxyBenchOptions = {}) {
  const runs = opts.runs ?? { "1KB": 100, "100KB": 60, "2MB": 40, "10MB": 10 };
  const concurrency = opts.concurrency ?? 50;
  const tpBytes = opts.throughputBytes ?? 4 * MB;
  const tpRounds = opts.throughputRounds ?? 4;
  const held = opts.heldStreams ?? 200;
  const targets = opts.targets ?? TARGETS;
  const has = (t: Target) => targets.includes(t);

  // The machine may be shared: its load average is part of the result.
  const load = [round(loadavg()[0]!, 2)];
  const mock = new Child(MOCK_UPSTREAM);
  const client = new Child(LOAD_CLIENT);
  const proxies: RunningProxy[] = [];
  const relays: Relay[] = [];
  const mirrorDir = tempDir("tapedeck-bench-mirror-");
  try {
    const { port } = (await mock.ready()) as { port: number };
    await client.ready();
    const upstream = `http://127.0.0.1:${port}`;
    const light = observer();
    const mirror = createMirrorExtension({ ...defaultMirrorSettings(), enabled: true, dir: mirrorDir.dir });
    const bare = await startProxy({ upstream });
    const observed = await startProxy({ upstream, extensions: [light] });
    const mirrored = await startProxy({ upstream, extensions: [mirror] });
    proxies.push(bare, observed, mirrored);
    const mirrors = [mirror];
    const baseUrls: Partial<Record<Target, string>> = {};
    if (opts.base) {
      const b = await loadBase(opts.base);
      const baseMirror = b.createMirrorExtension({
        ...b.defaultMirrorSettings(),
        enabled: true,
        dir: `${mirrorDir.dir}/base`,
      });
      mirrors.push(baseMirror);
      const started = [
        await b.startProxy({ upstream }),
        await b.startProxy({ upstream, extensions: [light] }),
        await b.startProxy({ upstream, extensions: [baseMirror] }),
      ];
      proxies.push(...started);
      [baseUrls.base, baseUrls["base+ext"], baseUrls["base+mirror"]] = started.map((p) => p.url);
    }
    const mirrorsIdle = () => Promise.all(mirrors.map((m) => m.idle()));
    const relay = await startRelay(port);
    const pipe = await startPipeRelay(port);
    relays.push(relay, pipe);
    const base: Record<Target, string> = {
      direct: upstream,
      relay: relay.url,
      pipe: pipe.url,
      proxy: bare.url,
      "proxy+ext": observed.url,
      "proxy+mirror": mirrored.url,
      base: baseUrls.base ?? "",
      "base+ext": baseUrls["base+ext"] ?? "",
      "base+mirror": baseUrls["base+mirror"] ?? "",
    };
    const url = (t: Target, bytes: number) => `${base[t]}/v1/messages?bytes=${bytes}`;

    // Warm up connections, JIT and the mock's body cache.
    for (let i = 0; i < 8; i += 1) {
      for (const t of targets) {
        await client.call({ op: "one", url: url(t, 100 * 1024) });
        await client.call({ op: "one", url: url(t, 2 * MB) });
      }
    }
    await mirrorsIdle();

    let memory: Record<string, unknown> | undefined;
    const latency: Record<string, unknown>[] = [];
    if (!opts.throughputOnly) {
      // Memory first, while the heap is still small: RSS with `held` streams open through the proxy.
      await sleep(300);
      const rss0 = process.memoryUsage().rss;
      const heap0 = process.memoryUsage().heapUsed;
      const [holding, done] = client.send({ op: "hold", url: `${observed.url}/v1/hold?ms=1500`, n: held }, 2);
      await holding;
      const rss1 = process.memoryUsage().rss;
      const heap1 = process.memoryUsage().heapUsed;
      await done;
      memory = {
        streams: held,
        through: "proxy+ext",
        rss_delta_kb_per_stream: round((rss1 - rss0) / 1024 / held, 1),
        heap_delta_kb_per_stream: round((heap1 - heap0) / 1024 / held, 1),
      };

      // Latency: time to first byte and to the last, per size, one stream at a time.
      const sizes = { "1KB": 1024, "100KB": 100 * 1024, "2MB": 2 * MB, "10MB": 10 * MB } as const;
      for (const [label, bytes] of Object.entries(sizes) as Array<[keyof typeof sizes, number]>) {
        const ttfb = byTarget();
        const total = byTarget();
        for (let i = 0; i < runs[label]; i += 1) {
          // Rotate the order so no target always goes first.
          for (let k = 0; k < TARGETS.length; k += 1) {
            const t = TARGETS[(i + k) % TARGETS.length]!;
            const r = (await client.call({ op: "one", url: url(t, bytes) })) as {
              ttfb: number;
              total: number;
            };
            ttfb[t].push(r.ttfb);
            total[t].push(r.total);
          }
          await mirrorsIdle();
        }
        const row: Record<string, unknown> = { size: label, runs: runs[label] };
        for (const t of TARGETS) {
          row[`${t}_ttfb_ms`] = round(median(ttfb[t]), 3);
          row[`${t}_total_ms`] = round(median(total[t]), 3);
        }
        for (const t of TARGETS.slice(1)) {
          row[`${t}_added_ttfb_ms`] = round(median(ttfb[t]) - median(ttfb.direct), 3);
          row[`${t}_added_total_ms`] = round(median(total[t]) - median(total.direct), 3);
          row[`${t}_added_ttfb_p90_ms`] = round(percentile(ttfb[t], 90) - percentile(ttfb.direct, 90), 3);
        }
        // The floor for one stream: the plain pipe() relay.
        for (const t of ["proxy", "proxy+ext", "proxy+mirror"] as const) {
          row[`${t}_total_vs_pipe`] = ratio(median(total[t]), median(total.pipe));
        }
        latency.push(row);
      }
    }

    // Throughput: `concurrency` streams at once; the proxy's CPU time per MB alongside.
    const mbps = byTarget();
    const cpuMsPerMb = byTarget();
    for (let i = 0; i < tpRounds; i += 1) {
      for (let k = 0; k < targets.length; k += 1) {
        const t = targets[(i + k) % targets.length]!;
        const cpu0 = process.cpuUsage();
        const r = (await client.call({ op: "many", url: url(t, tpBytes), n: concurrency })) as {
          ms: number;
          bytes: number;
        };
        // The mirror's writes finish after the responses: its CPU counts them.
        if (t.endsWith("+mirror")) await mirrorsIdle();
        const cpu = process.cpuUsage(cpu0);
        mbps[t].push(r.bytes / MB / (r.ms / 1000));
        cpuMsPerMb[t].push((cpu.user + cpu.system) / 1000 / (r.bytes / MB));
      }
    }
    const mb = (t: Target) => median(mbps[t]);
    const throughput: Record<string, unknown> = {
      concurrency,
      mb_per_stream: tpBytes / MB,
      rounds: tpRounds,
    };
    const others = (...not: Target[]) => targets.filter((t) => !not.includes(t));
    for (const t of targets) throughput[`${t}_mb_s`] = round(mb(t), 1);
    if (has("direct"))
      for (const t of others("direct")) throughput[`${t}_vs_direct`] = ratio(mb(t), mb("direct"));
    if (has("relay"))
      for (const t of others("direct", "relay")) throughput[`${t}_vs_relay`] = ratio(mb(t), mb("relay"));
    for (const t of others("direct")) throughput[`${t}_cpu_ms_per_mb`] = round(median(cpuMsPerMb[t]), 3);
    if (has("proxy+ext") && light.results === 0)
      throw new Error("the light observer never saw a complete message");

    load.push(round(loadavg()[0]!, 2));
    return {
      name: "proxy",
      load_avg_1m_start_end: load,
      targets: { ttfb_added_ms: 1, throughput_vs_direct: 0.95, total_2mb_vs_pipe: 1.2, ext_vs_relay: 0.8 },
      latency,
      throughput,
      memory,
      ...(opts.throughputOnly ? {} : { security_checks: securityChecks() }),
    };
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    for (const r of relays) r.close();
    client.kill();
    mock.kill();
    mirrorDir.cleanup();
  }
}

// `--throughput [targets,…] [--rounds n]`: the concurrent rounds alone, e.g. under `node --cpu-prof`.
// `--base <checkout>`: also another version's proxies ("base", "base+ext", "base+mirror").
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const args = process.argv.slice(2);
  const opts: ProxyBenchOptions = {};
  const at = args.indexOf("--throughput");
  const rounds = args.indexOf("--rounds");
  const base = args.indexOf("--base");
  if (base !== -1) opts.base = args[base + 1];
  if (at !== -1) {
    opts.throughputOnly = true;
    const list = args[at + 1];
    if (list && !list.startsWith("--")) opts.targets = list.split(",") as Target[];
  }
  if (rounds !== -1) opts.throughputRounds = Number(args[rounds + 1]);
  console.log(JSON.stringify(await runProxyBench(opts), null, 2));
}
