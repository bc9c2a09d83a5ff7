// What the mapping produces: spans in plain data, before any OTLP encoding, so the mapping can be tested
// without a serializer and the exporter can encode them as protobuf or JSON alike.
import { createHash } from "node:crypto";

export type AttrValue = string | number | boolean | string[];
export type Attributes = Record<string, AttrValue>;

/** A log record attribute may be structured (the conventions want content on events in structured form). */
export type AnyValue = string | number | boolean | AnyValue[] | { [key: string]: AnyValue };

/** Where `--content` puts prompts, answers and tool input/output (docs/team.md: the default per backend). */
export type ContentMode = "off" | "attributes" | "logs";

/** A log record correlated with a span: the conventions' GenAI events as OTLP logs (/v1/logs). */
export interface LogRecord {
  traceId: string;
  spanId: string;
  timeMs: number;
  eventName: string;
  attributes: Record<string, AnyValue>;
}

export interface SpanEvent {
  name: string;
  timeMs: number;
  attributes: Attributes;
}

export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: "internal" | "client";
  startMs: number;
  endMs: number;
  attributes: Attributes;
  events: SpanEvent[];
  status: { code: "unset" | "ok" | "error"; message?: string };
}

/** One turn's spans and the byte range of events.jsonl it was built from. */
export interface MappedTurn {
  traceId: string;
  /** offset of the turn's first line */
  firstOffset: number;
  /** just past the turn's last line: where the next turn starts */
  endOffset: number;
  /** no later event can still join it (the next prompt came, the session ended, or it went idle) */
  closed: boolean;
  spans: Span[];
  /** the turn's content as log records, in the `logs` content mode (else empty) */
  logs: LogRecord[];
  /** the turn's usage per model, for the usage counters (counted once, as the chat spans are) */
  usage: ModelUsage[];
}

/** Token counts of one model's responses in a turn, as the conventions count them (input includes cache). */
export interface ModelUsage {
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

function hex(parts: string[], chars: number): string {
  const h = createHash("sha256");
  for (const p of parts) h.update(p).update("\0");
  const out = h.digest("hex").slice(0, chars);
  // An all-zero id is invalid in OTLP; a sha256 prefix of zeros is astronomically unlikely but cheap to rule out.
  return /^0+$/.test(out) ? `${out.slice(0, -1)}1` : out;
}

/** A trace id from the session and the turn: the same turn exports to the same trace every time. */
export function traceIdFor(sessionId: string, turnKey: string): string {
  return hex(["trace", sessionId, turnKey], 32);
}

/** A span id from the session and the archive event the span starts with. */
export function spanIdFor(sessionId: string, eventId: string): string {
  return hex(["span", sessionId, eventId], 16);
}
