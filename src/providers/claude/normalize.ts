// Maps Claude Code (2.1.x) hook payloads to provider-neutral events.
//
// This runs in the hook hot path: it imports only types from the core (never
// zod) and never throws, because a failing recorder must not disturb Claude.
// It selects fields but does not redact or bound them; the core does that.

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
import { agentUsageFromToolResponse } from "./transcript-usage.ts";

export const CLAUDE_PROVIDER = "claude";

/**
 * What this adapter can record. Bare names are event kinds it emits;
 * `<area>:<source>` names are features and where their data comes from.
 */
export const CLAUDE_CAPABILITIES: readonly string[] = Object.freeze([
  ...EVENT_KINDS,
  // Per-message usage read from the transcript at turn end (see transcript-usage.ts).
  "turn_usage:claude-transcript",
  // Prompts Claude queued while busy (no UserPromptSubmit fires for them), read from the transcript at Stop.
  "user_prompt:claude-transcript(queued)",
  // Usage of a completed, synchronous Agent tool call, from its PostToolUse payload.
  "usage:hook-payload(agent)",
  "turn_id:prompt_id",
  "agent_id:hook-payload",
  "tool_use_id:hook-payload",
  "turn_failure:StopFailure",
]);

/** What a per-event mapper decides; ids, identity and timing are added around it. */
type Mapped = MappedEvent;

type Mapper = (name: string, p: Payload) => Mapped;

/** Top-level fields every hook carries; they go to the context or nowhere. */
const COMMON_FIELDS = new Set(["session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode"]);
/** Lifted to the envelope (turn_id, agent_id), so not repeated in a generic payload. */
const ENVELOPE_FIELDS = new Set(["prompt_id", "agent_id"]);

export function normalizeClaudeHook(
  payload: unknown,
  env: Record<string, string | undefined>,
  now: () => string = isoNow,
): NormalizeResult {
  try {
    return isRecord(payload) ? normalizeObject(payload, env, now) : normalizeNonObject(payload, env, now);
  } catch (error) {
    // Defensive: a hook must never fail. Say what went wrong without echoing the payload.
    const context = buildContext(isRecord(payload) ? payload : undefined, env);
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

function normalizeObject(
  p: Payload,
  env: Record<string, string | undefined>,
  now: () => string,
): NormalizeResult {
  const context = buildContext(p, env);
  const name = hookName(p);
  const mapped = (MAPPERS.get(name) ?? mapGeneric)(name, p);
  const event: NormalizedEvent = {
    kind: mapped.kind,
    event_id: eventId(mapped.kind, name, p, context.identity.provider_session_id),
    timestamp: now(),
    payload: mapped.payload,
  };
  const turnId = nonEmptyString(p.prompt_id);
  if (turnId !== undefined) event.turn_id = turnId;
  const agentId = nonEmptyString(p.agent_id);
  if (agentId !== undefined) event.agent_id = agentId;
  return { context, events: [withMapped(event, mapped)] };
}

function normalizeNonObject(
  payload: unknown,
  env: Record<string, string | undefined>,
  now: () => string,
): NormalizeResult {
  const context = buildContext(undefined, env);
  const sid = context.identity.provider_session_id;
  const event = notAnObjectEvent(payload, "unknown", now, (type, json) => ["invalid", type, sid, json]);
  return { context, events: [event] };
}

// ---------------------------------------------------------------------------
// Context and identity

function buildContext(p: Payload | undefined, env: Record<string, string | undefined>): HookContext {
  return {
    identity: resolveIdentity(p, env),
    project_dir: nonEmptyString(env.CLAUDE_PROJECT_DIR) ?? nonEmptyString(p?.cwd) ?? null,
    agent_pid: parsePid(env.CLAUDE_PID),
    transcript_path: nonEmptyString(p?.transcript_path) ?? null,
    capabilities: CLAUDE_CAPABILITIES,
  };
}

/**
 * The payload's session_id wins; the hook environment's CLAUDE_CODE_SESSION_ID
 * names the same session when the payload lacks one (even an unparseable
 * payload then lands in the right session). Only without either do we invent
 * a local id, which no retry can reproduce.
 */
function resolveIdentity(p: Payload | undefined, env: Record<string, string | undefined>): SessionIdentity {
  const providerId = nonEmptyString(p?.session_id) ?? nonEmptyString(env.CLAUDE_CODE_SESSION_ID);
  if (providerId !== undefined) {
    return {
      provider: CLAUDE_PROVIDER,
      provider_session_id: providerId,
      session_id: `${CLAUDE_PROVIDER}:${providerId}`,
      identity_source: "provider",
    };
  }
  return {
    provider: CLAUDE_PROVIDER,
    provider_session_id: null,
    session_id: `${CLAUDE_PROVIDER}:local-${randomUUID()}`,
    identity_source: "local",
  };
}

function parsePid(value: string | undefined): number | null {
  if (value === undefined || !/^\d{1,10}$/.test(value.trim())) return null;
  const pid = Number.parseInt(value, 10);
  return pid > 0 && pid <= 0x7fffffff ? pid : null;
}

// ---------------------------------------------------------------------------
// Event ids
//
// A retried hook must produce the same id (the core drops duplicates), while
// two genuine events must not collide even when their text is equal. So the id
// hashes provider identifiers: event name, session, agent_id, prompt_id,
// tool_use_id, plus an event-specific discriminator for events that can fire
// more than once under the same ids (a blocked Stop fires again in the same
// turn; a resumed subagent stops again). Events with no unique identifier
// (SessionStart, PreCompact, Notification, unknown events, or any event
// missing the id it normally has) hash the whole canonical payload with the
// event name instead: a retry is byte-identical, a different event differs.
// The material is hashed as canonical JSON so no separator can be forged.

type Discriminator = (p: Payload) => unknown[] | null;

/** The event needs `field` to be identifiable; `extra` fields tell repeats apart. */
function requires(field: string, ...extra: string[]): Discriminator {
  return (p) => (nonEmptyString(p[field]) === undefined ? null : extra.map((key) => p[key] ?? null));
}

const ID_RULES = new Map<string, Discriminator>([
  ["UserPromptSubmit", requires("prompt_id")],
  ["UserPromptExpansion", requires("prompt_id", "command_name")],
  ["PreToolUse", requires("tool_use_id")],
  ["PostToolUse", requires("tool_use_id")],
  ["PostToolUseFailure", requires("tool_use_id")],
  ["PostToolBatch", (p) => (toolUseIds(p).length > 0 ? [toolUseIds(p)] : null)],
  ["SubagentStart", requires("agent_id")],
  ["SubagentStop", requires("agent_id", "last_assistant_message")],
  ["Stop", requires("prompt_id", "stop_hook_active", "last_assistant_message")],
  ["StopFailure", requires("prompt_id", "error", "last_assistant_message")],
  ["PostCompact", requires("prompt_id", "trigger", "compact_summary")],
  ["SessionEnd", requires("session_id", "reason")],
]);

/**
 * The id UserPromptSubmit gives the prompt of turn `promptId`. A prompt read from the transcript takes it when
 * its record names its turn: the store then drops it when the hook recorded the prompt already (print mode
 * queues every prompt the same way, and fires the hook).
 */
export function promptEventId(providerSessionId: string | null, promptId: string): string {
  return eventId("user_prompt", "UserPromptSubmit", { prompt_id: promptId }, providerSessionId);
}

function eventId(kind: EventKind, name: string, p: Payload, providerSessionId: string | null): string {
  const discriminator = ID_RULES.get(name)?.(p);
  const material = discriminator
    ? [
        "ids",
        name,
        providerSessionId,
        nonEmptyString(p.agent_id) ?? null,
        nonEmptyString(p.prompt_id) ?? null,
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
// never listed: an event that keeps them still links the timeline together.
// For tools, tool_input goes first because the tool_call event with the same
// tool_use_id already holds it; the response or error is the only copy of
// what happened, so it goes last even though it is usually the biggest.

const MAPPERS = new Map<string, Mapper>([
  [
    "SessionStart",
    (name, p) => ({
      kind: "session_start",
      payload: select(name, p, [
        "source",
        "model",
        "agent_type",
        "cwd",
        "seconds_since_last_response",
        "context_tokens",
        "prompt_cache_likely_expired",
        "estimated_cache_write_usd",
      ]),
    }),
  ],
  [
    "UserPromptSubmit",
    (name, p) => ({ kind: "user_prompt", payload: select(name, p, ["prompt"]), optional_fields: ["prompt"] }),
  ],
  [
    // The slash command as typed; the expanded text arrives as the turn's
    // UserPromptSubmit, so this must not become a second user_prompt.
    "UserPromptExpansion",
    (name, p) => ({
      kind: "provider_event",
      payload: select(name, p, [
        "expansion_type",
        "command_name",
        "command_args",
        "command_source",
        "prompt",
      ]),
      optional_fields: ["prompt", "command_args"],
    }),
  ],
  [
    "PreToolUse",
    (name, p) => ({
      kind: "tool_call",
      payload: select(name, p, ["tool_name", "tool_input", "tool_use_id"]),
      optional_fields: ["tool_input"],
    }),
  ],
  ["PostToolUse", mapToolResult],
  [
    "PostToolUseFailure",
    (name, p) => ({
      kind: "tool_error",
      payload: select(
        name,
        p,
        ["tool_name", "tool_input", "tool_use_id", "error", "is_interrupt", "duration_ms"],
        { success: false },
      ),
      optional_fields: ["tool_input", "error"],
    }),
  ],
  [
    // Each call in the batch already has its own PostToolUse; keep only the grouping.
    "PostToolBatch",
    (name, p) => {
      const ids = toolUseIds(p);
      const count = Array.isArray(p.tool_calls) ? p.tool_calls.length : ids.length;
      return {
        kind: "provider_event",
        payload: { hook_event_name: name, tool_use_ids: ids, count },
        optional_fields: ["tool_use_ids"],
      };
    },
  ],
  [
    "Stop",
    (name, p) => {
      const payload: Payload = { hook_event_name: name };
      if (p.last_assistant_message !== undefined) payload.text = p.last_assistant_message;
      if (p.stop_hook_active !== undefined) payload.stop_hook_active = p.stop_hook_active;
      const tasks = summarizeBackgroundTasks(p.background_tasks);
      if (tasks) payload.background_tasks = tasks;
      return { kind: "assistant_message", payload, optional_fields: ["background_tasks", "text"] };
    },
  ],
  [
    // Stop does not fire when the API call fails; this is the only trace of
    // why the turn ended, so it is flagged for inspection.
    "StopFailure",
    (name, p) => ({
      kind: "provider_event",
      payload: select(name, p, ["error", "error_details", "last_assistant_message"], { failure: true }),
      optional_fields: ["error_details", "last_assistant_message"],
    }),
  ],
  [
    "SubagentStart",
    (name, p) => ({ kind: "subagent_start", payload: select(name, p, ["agent_id", "agent_type"]) }),
  ],
  [
    "SubagentStop",
    (name, p) => ({
      kind: "subagent_stop",
      payload: select(name, p, ["agent_id", "agent_type", "agent_transcript_path", "last_assistant_message"]),
      optional_fields: ["last_assistant_message"],
    }),
  ],
  [
    "PreCompact",
    (name, p) => ({
      kind: "compaction",
      payload: select(name, p, ["trigger", "custom_instructions"], { phase: "pre" }),
      optional_fields: ["custom_instructions"],
    }),
  ],
  [
    "PostCompact",
    (name, p) => ({
      kind: "compaction",
      payload: select(name, p, ["trigger", "compact_summary"], { phase: "post" }),
      optional_fields: ["compact_summary"],
    }),
  ],
  [
    "SessionEnd",
    (name, p) => ({ kind: "session_end", payload: select(name, p, ["reason"]), terminal: true }),
  ],
]);

function mapToolResult(name: string, p: Payload): Mapped {
  const mapped: Mapped = {
    kind: "tool_result",
    payload: select(name, p, ["tool_name", "tool_input", "tool_response", "tool_use_id", "duration_ms"], {
      success: true,
    }),
    optional_fields: ["tool_input", "tool_response"],
  };
  // "Task" is the pre-2.1 name of the Agent tool.
  if (p.tool_name === "Agent" || p.tool_name === "Task") {
    const usage = agentUsageFromToolResponse(p.tool_response);
    if (usage) mapped.usage = usage;
  }
  return mapped;
}

/**
 * Any other event (PermissionRequest, Notification, CwdChanged, future names):
 * keep its own fields so nothing is lost, never reject. We cannot rank unknown
 * fields by meaning, so the biggest are dropped first: that keeps the most
 * fields for the fewest bytes.
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

function toolUseIds(p: Payload): string[] {
  if (!Array.isArray(p.tool_calls)) return [];
  const ids: string[] = [];
  for (const call of p.tool_calls) {
    const id = isRecord(call) ? nonEmptyString(call.tool_use_id) : undefined;
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/** Enough to say "the turn ended with N tasks still running"; descriptions are free text and left out. */
function summarizeBackgroundTasks(value: unknown): Payload | undefined {
  if (!Array.isArray(value)) return undefined;
  const tasks = value.filter(isRecord).map((task) => {
    const summary: Payload = {};
    for (const key of ["id", "type", "status", "agent_type"]) {
      if (task[key] !== undefined) summary[key] = task[key];
    }
    return summary;
  });
  const running = tasks.filter((task) => task.status === "running").length;
  return { count: value.length, running, tasks };
}
