// normalize -> redact -> bound -> envelope. Everything here happens before a
// lock is taken and before a byte is written, so what reaches the store is
// already safe to persist.

import { type RedactionRules, redactText, redactValue } from "@tapedeck/redact";
import { bound, type Limits, precut } from "./bound.ts";
import type { NormalizedEvent, SessionIdentity } from "./event.ts";
import { storedId } from "./identity.ts";
import type { Envelope, Truncation } from "./schemas.ts";

/** An envelope waiting for its sequence number, which only the lock holder assigns. */
export type PreparedEvent = Omit<Envelope, "sequence"> & { terminal?: boolean };

/** Fields that identify an event; they are never dropped for size. */
const ALWAYS_KEPT = new Set([
  "hook_event_name",
  "tool_name",
  "tool_use_id",
  "agent_id",
  "agent_type",
  "source",
]);

/**
 * An id holding a credential becomes `redacted-<hash>` (identity.ts), not the redactor's marker text: two
 * different ids must stay two ids, or deduplication would drop the second event as a retry of the first.
 */
function redactId(id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  const bounded = String(id).slice(0, 256);
  if (bounded.length === 0) return undefined;
  return redactText(bounded).kinds.length > 0 ? storedId(bounded) : bounded;
}

function serializedBytes(event: PreparedEvent): number {
  return Buffer.byteLength(JSON.stringify(event));
}

/**
 * Keeps the event under max_event_bytes by dropping payload fields, the
 * adapter's least important first, then any remaining non-identifying field.
 * What is dropped is listed in `omitted`; nothing is ever put back unredacted.
 */
function enforceEventSize(event: PreparedEvent, optional: readonly string[], maxBytes: number): void {
  if (serializedBytes(event) <= maxBytes) return;
  const payload = event.payload;
  const order = [
    ...optional,
    ...Object.keys(payload).filter((k) => !ALWAYS_KEPT.has(k) && !optional.includes(k)),
  ];
  for (const field of order) {
    if (!(field in payload)) continue;
    delete payload[field];
    event.omitted.push(`payload.${field}`);
    if (serializedBytes(event) <= maxBytes) return;
  }
  // The identifying fields themselves are bounded strings, but a hostile
  // payload can still make them large: the last resort is an empty payload.
  for (const field of Object.keys(payload)) {
    delete payload[field];
    event.omitted.push(`payload.${field}`);
  }
  if (serializedBytes(event) > maxBytes) {
    event.truncations = event.truncations.slice(0, 16);
    event.redactions = event.redactions.slice(0, 64);
    event.omitted.push("truncations", "redactions");
  }
}

export function prepareEvent(
  event: NormalizedEvent,
  identity: SessionIdentity,
  limits: Limits,
  now: () => string,
  rules?: RedactionRules,
): PreparedEvent {
  const rawPayload =
    event.payload !== null && typeof event.payload === "object" && !Array.isArray(event.payload)
      ? event.payload
      : { value: event.payload };
  const pre = precut(rawPayload, limits);
  const red = redactValue(pre.value, "payload", rules);
  const bounded = bound(red.value, limits);
  const truncations: Truncation[] = mergeTruncations(pre.truncations, bounded.truncations);
  const prepared: PreparedEvent = {
    schema_version: 1,
    event_id: redactId(event.event_id) ?? "missing-id",
    timestamp: event.timestamp ?? now(),
    kind: event.kind,
    provider: identity.provider,
    session_id: identity.session_id,
    payload: bounded.value as Record<string, unknown>,
    redactions: red.redactions,
    truncations,
    omitted: [...red.omitted],
  };
  const turnId = redactId(event.turn_id);
  const agentId = redactId(event.agent_id);
  if (turnId !== undefined) prepared.turn_id = turnId;
  if (agentId !== undefined) prepared.agent_id = agentId;
  if (event.usage) prepared.usage = event.usage;
  if (event.terminal) prepared.terminal = true;
  enforceEventSize(prepared, event.optional_fields ?? [], limits.max_event_bytes);
  return prepared;
}

function mergeTruncations(a: Truncation[], b: Truncation[]): Truncation[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const seen = new Set(a.map((t) => `${t.reason} ${t.path}`));
  return [...a, ...b.filter((t) => !seen.has(`${t.reason} ${t.path}`))];
}
