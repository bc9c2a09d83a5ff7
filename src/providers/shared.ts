// Helpers every provider normalizer uses: payload access and the stable,
// order-independent hashing that event ids are derived from. Hot path:
// node built-ins only, and only types from the core.
import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import type { NormalizedEvent, NormalizeResult } from "../core/archive/event.ts";
import type { EventKind, Usage } from "../core/archive/schemas.ts";
import { isRecord } from "../core/base/json.ts";

export type Payload = Record<string, unknown>;

/** The core's test for a plain object (core/base/json.ts), under the name every normalizer imports it by. */
export { isRecord } from "../core/base/json.ts";

export function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** JSON with object keys sorted, so that equal payloads hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      isRecord(v)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, v[k]]),
          )
        : v,
    ) ?? "undefined"
  );
}

export function digest(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("hex");
}

/** `<kind>-<32 hex>`: hashing a JSON array means no separator can make two different inputs collide. */
export function idFor(kind: EventKind, material: unknown[]): string {
  return `${kind}-${digest(material).slice(0, 32)}`;
}

/** Event ids are at most this long (the envelope's limit). */
export const MAX_EVENT_ID_CHARS = 256;

/**
 * `<kind>:<provider id>` for an event named by the provider's own id (a message or response id), so that two
 * recorders that see the same message (the hooks and the proxy) give it the same id; a hash of the id when the
 * plain form would not fit.
 */
export function derivedId(kind: EventKind, id: string): string {
  const plain = `${kind}:${id}`;
  if (plain.length <= MAX_EVENT_ID_CHARS) return plain;
  return `${kind}:sha256-${createHash("sha256").update(id).digest("hex")}`;
}

export function hookName(p: unknown): string {
  return (isRecord(p) ? nonEmptyString(p.hook_event_name) : undefined) ?? "unknown";
}

export function isoNow(): string {
  return new Date().toISOString();
}

/** The injected clock, falling back to the real one if it throws. */
export function safeNow(now: () => string): string {
  try {
    return now();
  } catch {
    return isoNow();
  }
}

/** The named fields of a payload that are present, under the hook's name. */
export function select(name: string, p: Payload, fields: readonly string[], extra?: Payload): Payload {
  const out: Payload = { hook_event_name: name };
  for (const field of fields) {
    if (p[field] !== undefined) out[field] = p[field];
  }
  return extra ? Object.assign(out, extra) : out;
}

/**
 * Where usage reading starts in a session's transcript, decided by the first event recorded in the session (or
 * since recording was last switched on): from the beginning when that event starts a new conversation
 * (startup, clear), else from the transcript's current end. A resumed, compacted or forked conversation, or a
 * recording started midway (record_session, `record start`), does not get the turns from before it began.
 */
export function firstReadOffset(result: NormalizeResult, transcript: string): number {
  const start = result.events.find((e) => e.kind === "session_start");
  const fresh =
    start !== undefined && (start.payload.source === "startup" || start.payload.source === "clear");
  return fresh ? 0 : fileSize(transcript);
}

/** A file's size, 0 when it does not exist (yet) or cannot be read. */
export function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * When an agent's own file says a response was written, as an envelope time (UTC, milliseconds), or undefined
 * when it says nothing usable. Usage is dated by its response, not by the hook that read it: a turn's responses
 * can span minutes (or a midnight) before its Stop reads them all at once.
 */
export function responseTime(timestamp: string | undefined): string | undefined {
  if (timestamp === undefined || timestamp.length > 64) return undefined;
  const at = Date.parse(timestamp);
  // A year tapedeck could have recorded: a clock far off (or a planted stamp) keeps the hook's time.
  if (!Number.isFinite(at) || at < Date.UTC(2000, 0, 1) || at > Date.UTC(2200, 0, 1)) return undefined;
  return new Date(at).toISOString();
}

/** Whether a record stamped `timestamp` (ISO 8601) belongs to the recording period that began at `since`. */
export function inPeriod(timestamp: string | undefined, since: string | undefined): boolean {
  if (since === undefined || timestamp === undefined) return true;
  const at = Date.parse(timestamp);
  const from = Date.parse(since);
  // A stamp that does not parse cannot prove the record is older: it is kept.
  return Number.isNaN(at) || Number.isNaN(from) || at >= from;
}

/** What a provider's mapper makes of one hook: the event's kind and payload, and its optional parts. */
export interface MappedEvent {
  kind: EventKind;
  payload: Payload;
  /** Payload fields the bounding may drop first (kept only when present). */
  optional_fields?: string[];
  usage?: Usage;
  terminal?: boolean;
}

/** Completes `event` with the optional parts its mapping gave. */
export function withMapped(event: NormalizedEvent, mapped: MappedEvent): NormalizedEvent {
  if (mapped.usage) event.usage = mapped.usage;
  if (mapped.terminal) event.terminal = true;
  const optional = mapped.optional_fields?.filter((field) => field in mapped.payload);
  if (optional && optional.length > 0) event.optional_fields = optional;
  return event;
}

/**
 * The provider_event recorded for a hook payload that is not a JSON object. Its id hashes what `idMaterial`
 * returns for the payload's JSON type and canonical text (each provider keeps its own material).
 */
export function notAnObjectEvent(
  payload: unknown,
  hookEventName: string,
  now: () => string,
  idMaterial: (type: string, json: string) => unknown[],
): NormalizedEvent {
  const type = payload === null ? "null" : Array.isArray(payload) ? "array" : typeof payload;
  return {
    kind: "provider_event",
    event_id: idFor("provider_event", idMaterial(type, canonicalJson(payload))),
    timestamp: now(),
    payload: { hook_event_name: hookEventName, error: "payload is not a JSON object", type },
  };
}
