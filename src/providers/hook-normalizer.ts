// The frame every provider's hook normalizer shares: a payload goes through the provider's table of rules to
// one event, with its id, time and envelope ids; a payload that is not an object, or one that makes a rule
// throw, still becomes a provider_event, because a failing recorder must not disturb the agent. What differs
// between the agents (their hook names and fields, how their ids and sessions are found) stays as data in each
// provider's normalize.ts. Hot path: node built-ins only, and from the core types and the zod-free kinds list.
import { randomUUID } from "node:crypto";
import type {
  HookContext,
  NormalizedEvent,
  NormalizeResult,
  SessionIdentity,
} from "../core/archive/event.ts";
import { type EventKindName, eventKindsExcept } from "../core/archive/kinds.ts";
import type { EventKind } from "../core/archive/schemas.ts";
import { setOwn } from "../core/base/json.ts";
import {
  canonicalJson,
  hookName,
  idFor,
  isoNow,
  isRecord,
  type MappedEvent,
  nonEmptyString,
  notAnObjectEvent,
  type Payload,
  safeNow,
  select,
  withMapped,
} from "./shared.ts";

export type HookEnv = Record<string, string | undefined>;

/** What one hook becomes; null: the hook is observed (for the adapter's state) but not recorded. */
export type Mapper = (name: string, p: Payload) => MappedEvent | null;

/** A hook whose event is its named fields: the mapping as data. */
export interface FieldRule {
  kind: EventKind;
  /** The payload's fields kept, when present, in this order. */
  fields: readonly string[];
  /** Fixed fields added after them. */
  extra?: Payload;
  /** What the bounding may drop first, in order (see MappedEvent). */
  optional?: string[];
  terminal?: true;
}

export type HookRule = FieldRule | Mapper;

/** Derives a hook event's id; `selected` is the event's own payload. */
export type EventIdRule = (
  kind: EventKind,
  name: string,
  p: Payload,
  providerSessionId: string | null,
  selected: Payload,
) => string;

/** One provider's hooks: how their context, names, events and ids are read. */
export interface HookSpec<Observation = unknown> {
  /** `p` is undefined when the payload is not an object, or could not be mapped. */
  context(p: Payload | undefined, env: HookEnv): HookContext;
  /** Top-level fields every hook carries: they go to the context or nowhere, never into a generic payload. */
  contextFields: readonly string[];
  /** The payload fields lifted to the envelope's turn_id and agent_id (so not repeated in a generic payload). */
  envelope?: { turn_id: string; agent_id: string };
  /**
   * The rules by hook name (own keys only: `__proto__` or `toString` name no rule). A hook without one keeps
   * its own fields.
   */
  rules: Readonly<Record<string, HookRule>>;
  /** Default: every event id hashes its payload (payloadEventId). */
  eventId?: EventIdRule;
  /** The hook's name; `inferred` when only the payload's shape told it. Default: its hook_event_name. */
  eventName?(p: Payload, env: HookEnv): { name: string; inferred: boolean };
  /** The name the error event of a payload that could not be mapped goes under. Default: its hook_event_name. */
  errorName?(payload: unknown): string;
  /** The hook's own time, when it carries a usable one; else the clock's. */
  time?(p: Payload): string | undefined;
  /** The id material of a payload that is not an object (each provider keeps its own, so ids never move). */
  invalid(type: string, json: string, providerSessionId: string | null, name: string): unknown[];
  /** What the adapter's enrich step reads of a hook (undefined: the payload could not be read). */
  observe?(p: Payload | undefined): Observation;
}

/** A provider's normalize: never throws, whatever the payload. */
export type HookNormalize<Result> = (payload: unknown, env: HookEnv, now?: () => string) => Result;

type Observed<O> = NormalizeResult<O> & { observation: O };

/** The normalize of `spec`'s hooks. */
export function hookNormalizer<O>(
  spec: HookSpec<O> & Required<Pick<HookSpec<O>, "observe">>,
): HookNormalize<Observed<O>>;
export function hookNormalizer(spec: HookSpec): HookNormalize<NormalizeResult>;
export function hookNormalizer<O>(spec: HookSpec<O>): HookNormalize<NormalizeResult<O>> {
  const frame: Frame<O> = {
    ...spec,
    generic: keepOwnFields(new Set([...spec.contextFields, ...Object.values(spec.envelope ?? {})])),
    eventId: spec.eventId ?? payloadEventId,
  };
  return (payload, env, now = isoNow) => {
    try {
      return isRecord(payload) ? mapObject(frame, payload, env, now) : mapNonObject(frame, payload, env, now);
    } catch (error) {
      // Defensive: a hook must never fail. Say what went wrong without echoing the payload.
      const context = frame.context(isRecord(payload) ? payload : undefined, env);
      const name = (frame.errorName ?? hookName)(payload);
      const event = failureEvent("normalize-error", context.identity.provider_session_id, name, error, now);
      return observed(frame, { context, events: [event] }, undefined);
    }
  };
}

type Frame<O> = HookSpec<O> & { generic: (name: string, p: Payload) => MappedEvent; eventId: EventIdRule };

function mapObject<O>(frame: Frame<O>, p: Payload, env: HookEnv, now: () => string): NormalizeResult<O> {
  const context = frame.context(p, env);
  const { name, inferred } = frame.eventName?.(p, env) ?? { name: hookName(p), inferred: false };
  const mapped = mapHook(frame, name, p);
  if (mapped === null) return observed(frame, { context, events: [] }, p);
  if (inferred) mapped.payload.event_inferred = true;
  const event: NormalizedEvent = {
    kind: mapped.kind,
    event_id: frame.eventId(mapped.kind, name, p, context.identity.provider_session_id, mapped.payload),
    timestamp: frame.time?.(p) ?? now(),
    payload: mapped.payload,
  };
  if (frame.envelope) {
    const turnId = nonEmptyString(p[frame.envelope.turn_id]);
    if (turnId !== undefined) event.turn_id = turnId;
    const agentId = nonEmptyString(p[frame.envelope.agent_id]);
    if (agentId !== undefined) event.agent_id = agentId;
  }
  return observed(frame, { context, events: [withMapped(event, mapped)] }, p);
}

function mapNonObject<O>(
  frame: Frame<O>,
  payload: unknown,
  env: HookEnv,
  now: () => string,
): NormalizeResult<O> {
  const context = frame.context(undefined, env);
  const sid = context.identity.provider_session_id;
  const name = frame.eventName?.({}, env).name ?? "unknown";
  const event = notAnObjectEvent(payload, name, now, (type, json) => frame.invalid(type, json, sid, name));
  return observed(frame, { context, events: [event] }, undefined);
}

function mapHook(frame: Frame<unknown>, name: string, p: Payload): MappedEvent | null {
  const rule = Object.hasOwn(frame.rules, name) ? frame.rules[name] : undefined;
  if (rule === undefined) return frame.generic(name, p);
  return typeof rule === "function" ? rule(name, p) : fromFields(rule, name, p);
}

/** The event a field rule makes of a hook. */
export function fromFields(rule: FieldRule, name: string, p: Payload): MappedEvent {
  const mapped: MappedEvent = { kind: rule.kind, payload: select(name, p, rule.fields, rule.extra) };
  if (rule.optional) mapped.optional_fields = rule.optional;
  if (rule.terminal) mapped.terminal = true;
  return mapped;
}

function observed<O>(spec: HookSpec<O>, result: NormalizeResult<O>, p: Payload | undefined) {
  return spec.observe ? { ...result, observation: spec.observe(p) } : result;
}

/**
 * The provider_event of a payload whose mapping threw: what went wrong, never the payload. Its id hashes
 * [`tag`, session, message].
 */
export function failureEvent(
  tag: string,
  providerSessionId: string | null,
  hookEventName: string,
  error: unknown,
  now: () => string,
): NormalizedEvent {
  const message = error instanceof Error ? error.message : String(error);
  return {
    kind: "provider_event",
    event_id: idFor("provider_event", [tag, providerSessionId, message]),
    timestamp: safeNow(now),
    payload: { hook_event_name: hookEventName, error: "normalization failed", message },
  };
}

// ---------------------------------------------------------------------------
// Context and identity

/**
 * What an adapter can record: the event kinds it emits (all but `omitKinds`), then `features`, `<area>:<source>`
 * names of what it reads and where the data comes from.
 */
export function capabilities(list: {
  omitKinds?: readonly EventKindName[];
  features: readonly string[];
}): readonly string[] {
  return Object.freeze([...eventKindsExcept(...(list.omitKinds ?? [])), ...list.features]);
}

/** Where a hook's context comes from when its payload names session_id, cwd and transcript_path. */
export interface ContextSource {
  provider: string;
  capabilities: readonly string[];
  /** The hook environment's variable that names the session when the payload lacks one. */
  sessionEnv?: string;
  /** The hook environment's variable that names the project; it wins over the payload's cwd. */
  projectDirEnv?: string;
  agentPid?(env: HookEnv): number | null;
}

export function payloadContext(source: ContextSource): HookSpec["context"] {
  const fromEnv = (env: HookEnv, name: string | undefined) =>
    name === undefined ? undefined : nonEmptyString(env[name]);
  return (p, env) => ({
    identity: sessionIdentity(
      source.provider,
      nonEmptyString(p?.session_id) ?? fromEnv(env, source.sessionEnv),
    ),
    project_dir: fromEnv(env, source.projectDirEnv) ?? nonEmptyString(p?.cwd) ?? null,
    agent_pid: source.agentPid?.(env) ?? null,
    transcript_path: nonEmptyString(p?.transcript_path) ?? null,
    capabilities: source.capabilities,
  });
}

/**
 * `<provider>:<id>` for the agent's own session id. Without one the session is local: `localId` names it, by
 * default a fresh id that no retry can reproduce.
 */
export function sessionIdentity(
  provider: string,
  providerId: string | undefined,
  localId: () => string = localSessionId,
): SessionIdentity {
  return {
    provider,
    provider_session_id: providerId ?? null,
    session_id: `${provider}:${providerId ?? localId()}`,
    identity_source: providerId === undefined ? "local" : "provider",
  };
}

export function localSessionId(): string {
  return `local-${randomUUID()}`;
}

// ---------------------------------------------------------------------------
// Event ids
//
// A retried hook must produce the same id (the core drops duplicates), while two genuine events must not
// collide even when their text is equal. The material is hashed as canonical JSON so no separator can be forged.

/** The id of a hook with no identifier of its own: a retry is byte-identical, a different event differs. */
export function payloadEventId(kind: EventKind, name: string, p: Payload, providerSessionId: string | null) {
  return idFor(kind, ["payload", name, providerSessionId, p]);
}

/** Whether a hook is identifiable by its ids (null: not), and what tells its repeats apart. */
export type Discriminator = (p: Payload) => unknown[] | null;

/** The event needs `field` to be identifiable; `extra` fields tell repeats apart. */
export function requires(field: string, ...extra: string[]): Discriminator {
  return (p) => (nonEmptyString(p[field]) === undefined ? null : extra.map((key) => p[key] ?? null));
}

/**
 * Ids from the provider's identifiers (event name, session, agent_id, the turn's id under `turnField`,
 * tool_use_id) plus the discriminator of the hook's rule; a hook without a rule, or missing the id its rule
 * needs, gets its payload's id.
 */
export function identifiedEventId(rules: ReadonlyMap<string, Discriminator>, turnField: string): EventIdRule {
  return (kind, name, p, providerSessionId) => {
    const discriminator = rules.get(name)?.(p);
    if (!discriminator) return payloadEventId(kind, name, p, providerSessionId);
    return idFor(kind, [
      "ids",
      name,
      providerSessionId,
      nonEmptyString(p.agent_id) ?? null,
      nonEmptyString(p[turnField]) ?? null,
      nonEmptyString(p.tool_use_id) ?? null,
      ...discriminator,
    ]);
  };
}

// ---------------------------------------------------------------------------
// Mapping helpers

/**
 * Any hook without a rule (future names): keep its own fields but `skip` (what goes to the context or the
 * envelope) so nothing is lost, never reject.
 */
export function keepOwnFields(skip: ReadonlySet<string>): (name: string, p: Payload) => MappedEvent {
  return (name, p) => {
    const payload: Payload = { hook_event_name: name };
    return { kind: "provider_event", payload, optional_fields: copyOwnFields(payload, p, skip) };
  };
}

/**
 * Copies `p`'s fields but `skip` into `into` and names them biggest first, the order the bounding drops them
 * in: unknown fields cannot be ranked by meaning, and this keeps the most fields for the fewest bytes.
 */
export function copyOwnFields(into: Payload, p: Payload, skip: ReadonlySet<string>): string[] {
  const sizes: Array<[string, number]> = [];
  for (const [key, value] of Object.entries(p)) {
    if (skip.has(key) || value === undefined) continue;
    setOwn(into, key, value);
    sizes.push([key, canonicalJson(value).length]);
  }
  sizes.sort((a, b) => b[1] - a[1]);
  return sizes.map(([key]) => key);
}

/** A turn's closing reply: its text (`text`, from the agent's own field) and whether a Stop hook blocked it once. */
export function replyPayload(name: string, text: unknown, p: Payload): Payload {
  const payload: Payload = { hook_event_name: name };
  if (text !== undefined) payload.text = text;
  if (p.stop_hook_active !== undefined) payload.stop_hook_active = p.stop_hook_active;
  return payload;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** A hook's own timestamp as canonical ISO with milliseconds, or undefined when it is not a usable one. */
export function hookTime(value: unknown): string | undefined {
  if (typeof value !== "string" || !ISO_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}
