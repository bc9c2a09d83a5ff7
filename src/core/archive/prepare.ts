// normalize -> redact -> bound -> envelope. Everything here happens before a
// lock is taken and before a byte is written, so what reaches the store is
// already safe to persist.

import { type RedactionRules, redactText, redactValue } from "@tapedeck/redact";
import { bound, type Limits, precut } from "./bound.ts";
import type { NormalizedEvent, SessionIdentity } from "./event.ts";
import { storedId } from "./identity.ts";
import type { Envelope, Truncation, Usage } from "./schemas.ts";

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

/** The schema's bound of `usage.agent_version`; a reader's longest model name (usage/fold.ts). */
const USAGE_TEXT_MAX: Readonly<Record<string, number>> = { agent_version: 64 };
const USAGE_TEXT_DEFAULT_MAX = 200;

/**
 * `usage` redacted and bounded as the payload is: its strings come from the same provider records (a model
 * name is whatever a transcript or a response says), and `usage model` prints them and `usage publish` sends
 * them on. The message id is an id (redactId: two ids stay two, or a retried response would be counted twice);
 * an object or array a provider nests there goes through the payload's redactor and bound.
 */
function redactUsage(
  usage: Usage,
  limits: Limits,
  rules: RedactionRules | undefined,
  out: { redactions: string[]; omitted: string[]; truncations: Truncation[] },
): Usage {
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(usage)) {
    const path = `usage.${key}`;
    if (typeof value === "string") {
      if (key === "message_id") {
        const id = redactId(value);
        if (id !== value) out.redactions.push(path);
        if (id !== undefined) clean[key] = id;
        continue;
      }
      const max = USAGE_TEXT_MAX[key] ?? USAGE_TEXT_DEFAULT_MAX;
      // Redacted before the cut, so no secret is cut in half and its head kept; with a margin the
      // redactor's markers cannot pull a byte from beyond it into the kept part.
      const red = redactText(value.slice(0, max * 8), rules);
      if (red.kinds.length > 0) out.redactions.push(path);
      if (red.text.length > max || value.length > max * 8)
        out.truncations.push({ path, reason: "string", original: Buffer.byteLength(value) });
      clean[key] = cutText(red.text, max);
    } else if (value !== null && typeof value === "object") {
      const pre = precut(value, limits, path);
      const red = redactValue(pre.value, path, rules);
      const b = bound(red.value, limits, path);
      out.redactions.push(...red.redactions);
      out.omitted.push(...red.omitted);
      out.truncations.push(...mergeTruncations(pre.truncations, b.truncations));
      clean[key] = b.value;
    } else {
      clean[key] = value;
    }
  }
  return clean as Usage;
}

/** The first `max` UTF-16 units, never half a surrogate pair. */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
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
  if (event.usage) prepared.usage = redactUsage(event.usage, limits, rules, prepared);
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
