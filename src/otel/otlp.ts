// Mapped spans, log records and usage counters as OTLP request bodies, through the official serializers of @opentelemetry/otlp-transformer
// (pinned: the package calls itself internal, and its newer lines need Node >= 22.15). The serializers take
// SDK ReadableSpan objects; recorded sessions have explicit times and ids, so the objects are built here
// rather than through a tracer.
import type { HrTime, SpanContext } from "@opentelemetry/api";
import {
  JsonLogsSerializer,
  JsonMetricsSerializer,
  JsonTraceSerializer,
  ProtobufLogsSerializer,
  ProtobufMetricsSerializer,
  ProtobufTraceSerializer,
} from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableLogRecord } from "@opentelemetry/sdk-logs";
import type { ResourceMetrics } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { Protocol } from "./endpoint.ts";
import type { Attributes, LogRecord, Span } from "./model.ts";
import { SCHEMA_URL, SCOPE_NAME } from "./semconv.ts";

/** API SpanKind values: INTERNAL 0, CLIENT 2 (the serializer adds one for the proto enum). */
const KIND = { internal: 0, client: 2 } as const;
/** API SpanStatusCode values, which the proto shares. */
const STATUS = { unset: 0, ok: 1, error: 2 } as const;
/** W3C trace flags: sampled. A recorded session is exported whole. */
const SAMPLED = 1;

function hrTime(ms: number): HrTime {
  const whole = Math.floor(ms);
  return [Math.floor(whole / 1000), (whole % 1000) * 1_000_000];
}

export interface EncodeInput {
  resource: Attributes;
  scopeVersion: string;
  spans: Span[];
}

function readable(spans: Span[], resource: Attributes, scopeVersion: string): ReadableSpan[] {
  const res = resourceFromAttributes(resource, { schemaUrl: SCHEMA_URL });
  const scope = { name: SCOPE_NAME, version: scopeVersion, schemaUrl: SCHEMA_URL };
  return spans.map((s) => {
    const ctx: SpanContext = { traceId: s.traceId, spanId: s.spanId, traceFlags: SAMPLED };
    return {
      name: s.name,
      kind: KIND[s.kind],
      spanContext: () => ctx,
      ...(s.parentSpanId
        ? {
            parentSpanContext: {
              traceId: s.traceId,
              spanId: s.parentSpanId,
              traceFlags: SAMPLED,
              isRemote: false,
            },
          }
        : {}),
      startTime: hrTime(s.startMs),
      endTime: hrTime(s.endMs),
      duration: hrTime(s.endMs - s.startMs),
      status: { code: STATUS[s.status.code], ...(s.status.message ? { message: s.status.message } : {}) },
      attributes: s.attributes,
      links: [],
      events: s.events.map((e) => ({ name: e.name, time: hrTime(e.timeMs), attributes: e.attributes })),
      ended: true,
      resource: res,
      instrumentationScope: scope,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    } as unknown as ReadableSpan;
  });
}

/** The ExportTraceServiceRequest for these spans, as the protocol's bytes. */
export function encodeSpans(input: EncodeInput, protocol: Protocol): Uint8Array {
  const spans = readable(input.spans, input.resource, input.scopeVersion);
  const serializer = protocol === "http/json" ? JsonTraceSerializer : ProtobufTraceSerializer;
  const bytes = serializer.serializeRequest(spans);
  if (!bytes) throw new Error("the OTLP serializer produced no request");
  return bytes;
}

export interface EncodeLogsInput {
  resource: Attributes;
  scopeVersion: string;
  logs: LogRecord[];
}

/** OTLP severity INFO: the conventions give the operation-details event no other. */
const SEVERITY_INFO = 9;

/** The ExportLogsServiceRequest for these records: each correlated with its span by trace and span id. */
export function encodeLogs(input: EncodeLogsInput, protocol: Protocol): Uint8Array {
  // One resource and scope object for all: the serializer groups records by object identity.
  const resource = resourceFromAttributes(input.resource, { schemaUrl: SCHEMA_URL });
  const scope = { name: SCOPE_NAME, version: input.scopeVersion, schemaUrl: SCHEMA_URL };
  const records = input.logs.map(
    (l) =>
      ({
        hrTime: hrTime(l.timeMs),
        hrTimeObserved: hrTime(l.timeMs),
        spanContext: { traceId: l.traceId, spanId: l.spanId, traceFlags: SAMPLED },
        severityNumber: SEVERITY_INFO,
        severityText: "INFO",
        eventName: l.eventName,
        attributes: l.attributes,
        resource,
        instrumentationScope: scope,
        droppedAttributesCount: 0,
      }) as unknown as ReadableLogRecord,
  );
  const serializer = protocol === "http/json" ? JsonLogsSerializer : ProtobufLogsSerializer;
  const bytes = serializer.serializeRequest(records);
  if (!bytes) throw new Error("the OTLP serializer produced no request");
  return bytes;
}

/** One cumulative counter's point: a session's total so far for one set of attributes. */
export interface CounterPoint {
  attributes: Attributes;
  value: number;
}

export interface Counter {
  name: string;
  description: string;
  unit: string;
  points: CounterPoint[];
}

export interface EncodeMetricsInput {
  resource: Attributes;
  scopeVersion: string;
  /** the series' start: the session's start, the same on every export */
  startMs: number;
  /** the totals' time: the last exported turn's end, the same on every export of that state */
  timeMs: number;
  counters: Counter[];
}

/** sdk-metrics' enum values, which the serializer reads (DataPointType.SUM, CUMULATIVE, ValueType.INT). */
const SUM = 3;
const CUMULATIVE = 1;
const INT = 0;

/**
 * The ExportMetricsServiceRequest: monotonic cumulative sums from the session's start. The same totals
 * sent again are the same points, so a re-export adds nothing to a backend's counters.
 */
export function encodeMetrics(input: EncodeMetricsInput, protocol: Protocol): Uint8Array {
  const resource = resourceFromAttributes(input.resource, { schemaUrl: SCHEMA_URL });
  const metrics = input.counters.map((c) => ({
    descriptor: { name: c.name, description: c.description, unit: c.unit, valueType: INT },
    aggregationTemporality: CUMULATIVE,
    dataPointType: SUM,
    isMonotonic: true,
    dataPoints: c.points.map((p) => ({
      attributes: p.attributes,
      startTime: hrTime(input.startMs),
      endTime: hrTime(input.timeMs),
      value: p.value,
    })),
  }));
  const request = {
    resource,
    scopeMetrics: [
      { scope: { name: SCOPE_NAME, version: input.scopeVersion, schemaUrl: SCHEMA_URL }, metrics },
    ],
  } as unknown as ResourceMetrics;
  const serializer = protocol === "http/json" ? JsonMetricsSerializer : ProtobufMetricsSerializer;
  const bytes = serializer.serializeRequest(request);
  if (!bytes) throw new Error("the OTLP serializer produced no request");
  return bytes;
}
