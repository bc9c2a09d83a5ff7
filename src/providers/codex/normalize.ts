// Maps Codex CLI (0.171) hook payloads to provider-neutral events.
//
// This runs in the hook hot path: it imports only types from the core (never
// zod) and never throws, because a failing recorder must not disturb Codex.
// It selects fields but does not redact or bound them; the core does that.
//
// Codex facts this mapping relies on (see test/fixtures/codex/):
// - Every hook carries `session_id` = the ROOT thread id, also inside a
//   subagent; a subagent's events add `agent_id` (the child thread id) and
//   `agent_type`, and their `transcript_path` is the child's rollout file.
// - Turn-scoped hooks carry `turn_id`; tool hooks carry `tool_use_id`, which
//   is the Responses API `call_id` (also the id of the rollout's
//   CommandExecution item, see rollout.ts).
// - PostToolUse's `tool_response` is a string (command output, or a tool's
//   JSON text), and a failing command still gets a plain PostToolUse: there
//   is no failure hook and no exit code, so a tool_result here does not mean
//   success. Failures are derived from the rollout at Stop (adapter.ts).
// - No hook payload has a timestamp, and the hook environment has neither a
//   session id nor the agent's pid.
import { randomUUID } from "node:crypto";
import type { HookContext, NormalizedEvent, NormalizeResult, SessionIdentity } from "../../core/event.ts";
import { EVENT_KINDS } from "../../core/kinds.ts";
import type { EventKind } from "../../core/schemas.ts";
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
} from "../shared.ts";

export const CODEX_PROVIDER = "codex";

/**
 * What this adapter can record. Bare names are event kinds it emits;
 * `<area>:<source>` names are features and where their data comes from.
 */
export const CODEX_CAPABILITIES: readonly string[] = Object.freeze([
  ...EVENT_KINDS,
  // Per-response usage from the rollout's token_usage_record lines (see rollout.ts).
  "turn_usage:codex-transcript",
  // Non-zero exit codes of CommandExecution items in the rollout; Codex has no failure hook.
  "tool_error:rollout-exit-code",
  "turn_id:turn_id",
  "agent_id:hook-payload",
  "tool_use_id:hook-payload",
  "interrupt:Interrupt",
]);

/** What a per-event mapper decides; ids, identity and timing are added around it. */
type Mapped = MappedEvent;

type Mapper = (name: string, p: Payload) => Mapped;

/** Top-level fields every hook carries; they go to the context or nowhere. */
const COMMON_FIELDS = new Set([
  "session_id",
  "transcript_path",
  "cwd",
  "hook_event_name",
  "permission_mode",
  "model",
]);
/** Lifted to the envelope (turn_id, agent_id), so not repeated in a generic payload. */
const ENVELOPE_FIELDS = new Set(["turn_id", "agent_id"]);

/**
 * Maps one hook payload. `_env` is part of the adapter interface: Codex gives a
 * hook CODEX_HOME and the parent environment, nothing that names the session
 * or the agent, so everything comes from the payload.
 */
export function normalizeCodexHook(
  payload: unknown,
  _env: Record<string, string | undefined>,
  now: () => string = isoNow,
): NormalizeResult {
  try {
    return isRecord(payload) ? normalizeObject(payload, now) : normalizeNonObject(payload, now);
  } catch (error) {
    // Defensive: a hook must never fail. Say what went wrong without echoing the payload.
    const context = buildContext(isRecord(payload) ? payload : undefined);
    const message = error instanceof Error ? error.message : String(error);
    const material = ["normalize-error", context.identity.provider_session_id, message];
    const event: NormalizedEvent = {
      kind: "provider_event",
      event_id: idFor("provider_event", material),
      timestamp: safeNow(now),
      payload: { hook_event_name: hookName(payload), error: "normalization failed", message },
    };
    return { context, events: [event] };
  }
}

function normalizeObject(p: Payload, now: () => string): NormalizeResult {
  const context = buildContext(p);
  const name = hookName(p);
  const mapper = Object.hasOwn(MAPPERS, name) ? MAPPERS[name] : undefined;
  const mapped = (mapper ?? mapGeneric)(name, p);
  const event: NormalizedEvent = {
    kind: mapped.kind,
    event_id: eventId(mapped.kind, name, p, context.identity.provider_session_id),
    timestamp: now(),
    payload: mapped.payload,
  };
  const turnId = nonEmptyString(p.turn_id);
  if (turnId !== undefined) event.turn_id = turnId;
  const agentId = nonEmptyString(p.agent_id);
  if (agentId !== undefined) event.agent_id = agentId;
  return { context, events: [withMapped(event, mapped)] };
}

function normalizeNonObject(payload: unknown, now: () => string): NormalizeResult {
  const context = buildContext(undefined);
  const event = notAnObjectEvent(payload, "unknown", now, (type, json) => ["invalid", type, json]);
  return { context, events: [event] };
}

// ---------------------------------------------------------------------------
// Context and identity

function buildContext(p: Payload | undefined): HookContext {
  return {
    identity: codexIdentity(nonEmptyString(p?.session_id)),
    project_dir: nonEmptyString(p?.cwd) ?? null,
    // Codex exposes no pid to hooks (hook-env.json: CODEX_HOME and the npm package vars only).
    agent_pid: null,
    // The rollout file; inside a subagent (and at SubagentStart) the child's. Null for ephemeral runs.
    transcript_path: nonEmptyString(p?.transcript_path) ?? null,
    capabilities: CODEX_CAPABILITIES,
  };
}

/**
 * `codex:<root thread id>`. Subagents share the root's session_id, so their
 * events land in the parent's archive session. Without an id (Codex has no
 * session variable in the hook environment) the session is local: a fresh id
 * no retry can reproduce.
 */
export function codexIdentity(providerId: string | undefined): SessionIdentity {
  if (providerId !== undefined) {
    return {
      provider: CODEX_PROVIDER,
      provider_session_id: providerId,
      session_id: `${CODEX_PROVIDER}:${providerId}`,
      identity_source: "provider",
    };
  }
  return {
    provider: CODEX_PROVIDER,
    provider_session_id: null,
    session_id: `${CODEX_PROVIDER}:local-${randomUUID()}`,
    identity_source: "local",
  };
}

// ---------------------------------------------------------------------------
// Event ids
//
// The same rule as the Claude adapter. A retried hook must produce the same
// id (the core drops duplicates), while two genuine events must not collide
// even when their text is equal. So the id hashes provider identifiers:
// event name, session_id, agent_id, turn_id, tool_use_id, plus an
// event-specific discriminator for events that can fire more than once under
// the same ids (a blocked Stop fires again in the same turn with
// stop_hook_active; Pre- and PostCompact share a turn). Events with no unique
// identifier (SessionStart, PermissionRequest, unknown events, or any event
// missing the id it normally has) hash the whole canonical payload with the
// event name instead: a retry is byte-identical, a different event differs.
// The material is hashed as canonical JSON so no separator can be forged.
// Known limit: Codex gives two auto-compactions in one turn, or two resumes
// of a session, byte-identical payloads; such repeats share an id.

type Discriminator = (p: Payload) => unknown[] | null;

/** The event needs `field` to be identifiable; `extra` fields tell repeats apart. */
function requires(field: string, ...extra: string[]): Discriminator {
  return (p) => (nonEmptyString(p[field]) === undefined ? null : extra.map((key) => p[key] ?? null));
}

const ID_RULES = new Map<string, Discriminator>([
  ["UserPromptSubmit", requires("turn_id")],
  ["PreToolUse", requires("tool_use_id")],
  ["PostToolUse", requires("tool_use_id")],
  ["SubagentStart", requires("agent_id")],
  ["SubagentStop", requires("agent_id", "stop_hook_active", "last_assistant_message")],
  ["Stop", requires("turn_id", "stop_hook_active", "last_assistant_message")],
  ["PreCompact", requires("turn_id", "trigger")],
  ["PostCompact", requires("turn_id", "trigger")],
  ["Interrupt", requires("turn_id")],
  ["SessionEnd", requires("session_id", "reason")],
]);

function eventId(kind: EventKind, name: string, p: Payload, providerSessionId: string | null): string {
  const discriminator = ID_RULES.get(name)?.(p);
  const material = discriminator
    ? [
        "ids",
        name,
        providerSessionId,
        nonEmptyString(p.agent_id) ?? null,
        nonEmptyString(p.turn_id) ?? null,
        nonEmptyString(p.tool_use_id) ?? null,
        ...discriminator,
      ]
    : ["payload", name, providerSessionId, p];
  return idFor(kind, material);
}

// ---------------------------------------------------------------------------
// Per-event mapping
//
// optional_fields lists what the core may drop, in order, when an event is
// still too large after string and array truncation. Ids, names and flags are
// never listed. For tools, tool_input goes first because the tool_call event
// with the same tool_use_id already holds it.

/** Looked up with Object.hasOwn, so names like `__proto__` or `toString` select nothing. */
const MAPPERS: Record<string, Mapper> = {
  SessionStart: (name, p) => ({
    kind: "session_start",
    payload: select(name, p, ["source", "model", "permission_mode", "cwd"]),
  }),
  UserPromptSubmit: (name, p) => ({
    kind: "user_prompt",
    payload: select(name, p, ["prompt", "model"]),
    optional_fields: ["prompt"],
  }),
  PreToolUse: (name, p) => ({
    kind: "tool_call",
    payload: select(name, p, ["tool_name", "tool_input", "tool_use_id"]),
    optional_fields: ["tool_input"],
  }),
  // Codex asks before running a command outside the sandbox (TUI, on-request).
  // It names no tool_use_id; the tool_call that follows has one.
  PermissionRequest: (name, p) => ({
    kind: "provider_event",
    payload: select(name, p, ["tool_name", "tool_input"], { permission_request: true }),
    optional_fields: ["tool_input"],
  }),
  // No `success` flag: Codex fires PostToolUse for failing commands too, and
  // `tool_response` (a string) carries no exit code. See adapter.ts for tool_error.
  PostToolUse: (name, p) => ({
    kind: "tool_result",
    payload: select(name, p, ["tool_name", "tool_input", "tool_response", "tool_use_id"]),
    optional_fields: ["tool_input", "tool_response"],
  }),
  PreCompact: (name, p) => ({
    kind: "compaction",
    payload: select(name, p, ["trigger"], { phase: "pre" }),
  }),
  PostCompact: (name, p) => ({
    kind: "compaction",
    payload: select(name, p, ["trigger"], { phase: "post" }),
  }),
  SubagentStart: (name, p) => {
    const payload = select(name, p, ["agent_id", "agent_type"]);
    const childRollout = childTranscript(p);
    if (childRollout !== undefined) payload.agent_transcript_path = childRollout;
    return { kind: "subagent_start", payload };
  },
  SubagentStop: (name, p) => ({
    kind: "subagent_stop",
    payload: select(name, p, [
      "agent_id",
      "agent_type",
      "agent_transcript_path",
      "last_assistant_message",
      "stop_hook_active",
    ]),
    optional_fields: ["last_assistant_message"],
  }),
  Stop: (name, p) => {
    const payload: Payload = { hook_event_name: name };
    if (p.last_assistant_message !== undefined) payload.text = p.last_assistant_message;
    if (p.stop_hook_active !== undefined) payload.stop_hook_active = p.stop_hook_active;
    return { kind: "assistant_message", payload, optional_fields: ["text"] };
  },
  // The user interrupted the turn (TUI). Stop does not follow.
  Interrupt: (name) => ({ kind: "provider_event", payload: { hook_event_name: name, interrupted: true } }),
  SessionEnd: (name, p) => ({ kind: "session_end", payload: select(name, p, ["reason"]), terminal: true }),
};

/**
 * SubagentStart has no agent_transcript_path: its transcript_path already is
 * the child's rollout (`rollout-<time>-<child thread id>.jsonl`). Taken only
 * when the file name carries the agent id, so a parent rollout is never
 * mistaken for the child's.
 */
function childTranscript(p: Payload): string | undefined {
  const explicit = nonEmptyString(p.agent_transcript_path);
  if (explicit !== undefined) return explicit;
  const path = nonEmptyString(p.transcript_path);
  const agentId = nonEmptyString(p.agent_id);
  if (path === undefined || agentId === undefined) return undefined;
  const base = path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1);
  return base.includes(agentId) ? path : undefined;
}

/**
 * Any other event (future names): keep its own fields so nothing is lost,
 * never reject. Unknown fields cannot be ranked by meaning, so the biggest
 * are dropped first: that keeps the most fields for the fewest bytes.
 */
function mapGeneric(name: string, p: Payload): Mapped {
  const payload: Payload = { hook_event_name: name };
  const sizes: Array<[string, number]> = [];
  for (const [key, value] of Object.entries(p)) {
    if (COMMON_FIELDS.has(key) || ENVELOPE_FIELDS.has(key) || value === undefined) continue;
    payload[key] = value;
    sizes.push([key, canonicalJson(value).length]);
  }
  sizes.sort((a, b) => b[1] - a[1]);
  return { kind: "provider_event", payload, optional_fields: sizes.map(([key]) => key) };
}

// ---------------------------------------------------------------------------
// Helpers
