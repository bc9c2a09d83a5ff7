// Mapped spans as OTLP request bodies, through the official serializers of @opentelemetry/otlp-transformer
// (pinned: the package calls itself internal, and its newer lines need Node >= 22.15). The serializers take
// SDK ReadableSpan objects; recorded sessions have explicit times and ids, so the objects are built here
// rather than through a tracer.
import type { HrTime, SpanContext } from "@opentelemetry/api";
import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { Protocol } from "./endpoint.ts";
import type { Attributes, Span } from "./model.ts";
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
