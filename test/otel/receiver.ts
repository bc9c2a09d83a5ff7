// An OTLP/HTTP trace receiver for tests, on 127.0.0.1: it decodes protobuf with code generated from the
// official OTLP .proto files (as shipped in @opentelemetry/otlp-proto-exporter-base 0.51.1) and JSON through
// the same message types (hex ids turned into bytes first, as the OTLP JSON mapping defines them), and keeps
// every raw body, decompressed or not, so a test can search all bytes received. It can play a collector that
// is down, slow, or answering 429/503 for a while.
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

const require = createRequire(import.meta.url);
// biome-ignore lint/suspicious/noExplicitAny: generated protobufjs code has no types worth importing here
const root: any = require("@opentelemetry/otlp-proto-exporter-base/build/src/generated/root");
const ExportRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

export type Value = string | number | boolean | Value[] | null;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, Value>;
  events: Array<{ name: string; attributes: Record<string, Value> }>;
  status: { code: number; message: string };
  resource: Record<string, Value>;
  scope: { name: string; version: string; schemaUrl: string };
}

export interface ReceivedRequest {
  contentType: string;
  contentEncoding: string | undefined;
  chunked: boolean;
  headers: http.IncomingHttpHeaders;
  /** as received on the wire */
  raw: Buffer;
  /** after gunzip */
  body: Buffer;
  spans: ReceivedSpan[];
}

/** A /v1/logs or /v1/metrics request, its body decompressed. */
export interface ReceivedSignal {
  path: string;
  contentType: string;
  body: Buffer;
}

export type Behaviour =
  | { kind: "ok" }
  /** the connection is cut before any answer */
  | { kind: "down" }
  | { kind: "slow"; ms: number }
  | { kind: "status"; status: number; times: number; retryAfter?: string };

function hex(b: Uint8Array | null | undefined): string {
  return b ? Buffer.from(b).toString("hex") : "";
}

// biome-ignore lint/suspicious/noExplicitAny: a decoded AnyValue
function anyValue(v: any): Value {
  if (!v) return null;
  if (v.stringValue != null) return v.stringValue;
  if (v.boolValue != null) return v.boolValue;
  if (v.intValue != null) return Number(v.intValue);
  if (v.doubleValue != null) return v.doubleValue;
  if (v.arrayValue != null) return (v.arrayValue.values ?? []).map(anyValue);
  return null;
}

// biome-ignore lint/suspicious/noExplicitAny: decoded KeyValue list
function attrs(list: any[] | undefined): Record<string, Value> {
  const out: Record<string, Value> = {};
  for (const kv of list ?? []) out[kv.key] = anyValue(kv.value);
  return out;
}

// biome-ignore lint/suspicious/noExplicitAny: a decoded ExportTraceServiceRequest
function flatten(req: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of req.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      const scope = {
        name: ss.scope?.name ?? "",
        version: ss.scope?.version ?? "",
        schemaUrl: ss.schemaUrl ?? "",
      };
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: s.name,
          kind: s.kind,
          startNs: BigInt(String(s.startTimeUnixNano)),
          endNs: BigInt(String(s.endTimeUnixNano)),
          attributes: attrs(s.attributes),
          // biome-ignore lint/suspicious/noExplicitAny: decoded Event
          events: (s.events ?? []).map((e: any) => ({ name: e.name, attributes: attrs(e.attributes) })),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? "" },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

/** OTLP JSON writes ids as hex and enums as numbers; the proto message's fromObject expects bytes. */
// biome-ignore lint/suspicious/noExplicitAny: JSON
function idsToBytes(req: any): any {
  for (const rs of req.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? []) {
        for (const k of ["traceId", "spanId", "parentSpanId"]) {
          if (typeof s[k] === "string") {
            if (!/^([0-9a-f]{2})*$/.test(s[k])) throw new Error(`${k} is not lowercase hex`);
            s[k] = Buffer.from(s[k], "hex");
          }
        }
      }
  return req;
}

export function decode(contentType: string, body: Buffer): ReceivedSpan[] {
  if (contentType.startsWith("application/x-protobuf"))
    return flatten(ExportRequest.toObject(ExportRequest.decode(body), { longs: String, defaults: false }));
  if (contentType.startsWith("application/json")) {
    const message = ExportRequest.fromObject(idsToBytes(JSON.parse(body.toString("utf8"))));
    // Through the wire format and back: only what the official message definition holds survives.
    const again = ExportRequest.decode(ExportRequest.encode(message).finish());
    return flatten(ExportRequest.toObject(again, { longs: String }));
  }
  throw new Error(`unsupported content-type ${contentType}`);
}

export interface Receiver {
  url: string;
  tracesUrl: string;
  requests: ReceivedRequest[];
  /** the /v1/logs and /v1/metrics requests */
  signals: ReceivedSignal[];
  /** answer /v1/logs and /v1/metrics with 404 (a collector without those pipelines) */
  refuseSignals(refuse: boolean): void;
  /** every request attempt, answered or not */
  attempts: number;
  behave(b: Behaviour): void;
  spans(): ReceivedSpan[];
  /** every byte received, raw and decompressed, as one buffer */
  allBytes(): Buffer;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  let behaviour: Behaviour = { kind: "ok" };
  const requests: ReceivedRequest[] = [];
  const signals: ReceivedSignal[] = [];
  let closedSignals = false;
  const wire: Buffer[] = [];
  let attempts = 0;
  const server = http.createServer((req, res) => {
    attempts += 1;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const raw = Buffer.concat(chunks);
      wire.push(raw);
      const b = behaviour;
      if (b.kind === "down") {
        req.socket.destroy();
        return;
      }
      if (b.kind === "status" && b.times > 0) {
        b.times -= 1;
        res.writeHead(b.status, b.retryAfter ? { "retry-after": b.retryAfter } : {});
        res.end();
        return;
      }
      const path = req.url ?? "";
      if (
        req.method === "POST" &&
        (path.endsWith("/v1/logs") || path.endsWith("/v1/metrics")) &&
        !closedSignals
      ) {
        // Logs and metrics are kept as bodies: the tests that send them use http/json.
        const body = req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
        if (req.headers["content-encoding"] === "gzip") wire.push(body);
        signals.push({ path, contentType: req.headers["content-type"] ?? "", body });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        return;
      }
      if (req.method !== "POST" || !req.url?.endsWith("/v1/traces")) {
        res.writeHead(404).end();
        return;
      }
      try {
        const encoding = req.headers["content-encoding"];
        const body = encoding === "gzip" ? gunzipSync(raw) : raw;
        if (encoding === "gzip") wire.push(body);
        const contentType = req.headers["content-type"] ?? "";
        requests.push({
          contentType,
          contentEncoding: encoding,
          chunked: req.headers["transfer-encoding"] === "chunked",
          headers: req.headers,
          raw,
          body,
          spans: decode(contentType, body),
        });
        // A slow collector has taken the spans in; only its answer is late.
        if (b.kind === "slow") await new Promise((r) => setTimeout(r, b.ms));
        const json = contentType.startsWith("application/json");
        res.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" });
        res.end(json ? "{}" : Buffer.alloc(0));
      } catch (e) {
        res.writeHead(400).end(String((e as Error).message));
      }
    });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    tracesUrl: `${url}/v1/traces`,
    requests,
    signals,
    refuseSignals: (refuse: boolean) => {
      closedSignals = refuse;
    },
    get attempts() {
      return attempts;
    },
    behave: (b) => {
      behaviour = b;
    },
    spans: () => requests.flatMap((r) => r.spans),
    allBytes: () => Buffer.concat(wire),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
