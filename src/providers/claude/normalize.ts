// Maps Claude Code (2.1.x) hook payloads to provider-neutral events.
//
// This runs in the hook hot path: it imports only types from the core (never
// zod) and never throws, because a failing recorder must not disturb Claude.
// It selects fields but does not redact or bound them; the core does that.
// The frame every provider shares (never throwing, ids, identity) is in
// ../hook-normalizer.ts; what is Claude's is here, as data where it can be.

import {
  capabilities,
  type Discriminator,
  type FieldRule,
  fromFields,
  type HookRule,
  hookNormalizer,
  identifiedEventId,
  payloadContext,
  replyPayload,
  requires,
} from "../hook-normalizer.ts";
import { isRecord, type MappedEvent, nonEmptyString, type Payload } from "../shared.ts";
import { agentUsageFromToolResponse } from "./transcript-usage.ts";

export const CLAUDE_PROVIDER = "claude";

export const CLAUDE_CAPABILITIES = capabilities({
  features: [
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
  ],
});

// ---------------------------------------------------------------------------
// Event ids
//
// The id hashes provider identifiers: event name, session, agent_id,
// prompt_id, tool_use_id, plus an event-specific discriminator for events that
// can fire more than once under the same ids (a blocked Stop fires again in
// the same turn; a resumed subagent stops again). Events with no unique
// identifier (SessionStart, PreCompact, Notification, unknown events, or any
// event missing the id it normally has) hash the whole canonical payload with
// the event name instead.

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

const eventId = identifiedEventId(ID_RULES, "prompt_id");

/**
 * The id UserPromptSubmit gives the prompt of turn `promptId`. A prompt read from the transcript takes it when
 * its record names its turn: the store then drops it when the hook recorded the prompt already (print mode
 * queues every prompt the same way, and fires the hook).
 */
export function promptEventId(providerSessionId: string | null, promptId: string): string {
  return eventId("user_prompt", "UserPromptSubmit", { prompt_id: promptId }, providerSessionId, {});
}

// ---------------------------------------------------------------------------
// Per-event mapping
//
// optional lists what the core may drop, in order, when an event is still too
// large after string and array truncation. Ids, names and flags are never
// listed: an event that keeps them still links the timeline together. For
// tools, tool_input goes first because the tool_call event with the same
// tool_use_id already holds it; the response or error is the only copy of
// what happened, so it goes last even though it is usually the biggest.

const TOOL_RESULT: FieldRule = {
  kind: "tool_result",
  fields: ["tool_name", "tool_input", "tool_response", "tool_use_id", "duration_ms"],
  extra: { success: true },
  optional: ["tool_input", "tool_response"],
};

const RULES: Record<string, HookRule> = {
  SessionStart: {
    kind: "session_start",
    fields: [
      "source",
      "model",
      "agent_type",
      "cwd",
      "seconds_since_last_response",
      "context_tokens",
      "prompt_cache_likely_expired",
      "estimated_cache_write_usd",
    ],
  },
  UserPromptSubmit: mapPrompt,
  // The slash command as typed; the expanded text arrives as the turn's
  // UserPromptSubmit, so this must not become a second user_prompt.
  UserPromptExpansion: {
    kind: "provider_event",
    fields: ["expansion_type", "command_name", "command_args", "command_source", "prompt"],
    optional: ["prompt", "command_args"],
  },
  PreToolUse: {
    kind: "tool_call",
    fields: ["tool_name", "tool_input", "tool_use_id"],
    optional: ["tool_input"],
  },
  PostToolUse: mapToolResult,
  PostToolUseFailure: {
    kind: "tool_error",
    fields: ["tool_name", "tool_input", "tool_use_id", "error", "is_interrupt", "duration_ms"],
    extra: { success: false },
    optional: ["tool_input", "error"],
  },
  // Each call in the batch already has its own PostToolUse; keep only the grouping.
  PostToolBatch: (name, p) => {
    const ids = toolUseIds(p);
    const count = Array.isArray(p.tool_calls) ? p.tool_calls.length : ids.length;
    return {
      kind: "provider_event",
      payload: { hook_event_name: name, tool_use_ids: ids, count },
      optional_fields: ["tool_use_ids"],
    };
  },
  Stop: (name, p) => {
    const payload = replyPayload(name, p.last_assistant_message, p);
    const tasks = summarizeBackgroundTasks(p.background_tasks);
    if (tasks) payload.background_tasks = tasks;
    return { kind: "assistant_message", payload, optional_fields: ["background_tasks", "text"] };
  },
  // Stop does not fire when the API call fails; this is the only trace of
  // why the turn ended, so it is flagged for inspection.
  StopFailure: {
    kind: "provider_event",
    fields: ["error", "error_details", "last_assistant_message"],
    extra: { failure: true },
    optional: ["error_details", "last_assistant_message"],
  },
  SubagentStart: { kind: "subagent_start", fields: ["agent_id", "agent_type"] },
  SubagentStop: {
    kind: "subagent_stop",
    fields: ["agent_id", "agent_type", "agent_transcript_path", "last_assistant_message"],
    optional: ["last_assistant_message"],
  },
  PreCompact: {
    kind: "compaction",
    fields: ["trigger", "custom_instructions"],
    extra: { phase: "pre" },
    optional: ["custom_instructions"],
  },
  PostCompact: {
    kind: "compaction",
    fields: ["trigger", "compact_summary"],
    extra: { phase: "post" },
    optional: ["compact_summary"],
  },
  SessionEnd: { kind: "session_end", fields: ["reason"], terminal: true },
};

const PROMPT: FieldRule = { kind: "user_prompt", fields: ["prompt"], optional: ["prompt"] };

/**
 * Claude Code hands a background task's report (a subagent that finished) to the model as a message that fires
 * UserPromptSubmit like a prompt (2.1.332): `<task-notification>…`. It is the agent's own event, not the user's:
 * no turn of its own, no title, no retrieval (which runs on user_prompt only). Kept whole, flagged.
 */
function mapPrompt(name: string, p: Payload): MappedEvent {
  if (typeof p.prompt === "string" && p.prompt.trimStart().startsWith("<task-notification>")) {
    return fromFields(
      {
        kind: "provider_event",
        fields: ["prompt"],
        extra: { task_notification: true },
        optional: ["prompt"],
      },
      name,
      p,
    );
  }
  return fromFields(PROMPT, name, p);
}

function mapToolResult(name: string, p: Payload): MappedEvent {
  const mapped = fromFields(TOOL_RESULT, name, p);
  // "Task" is the pre-2.1 name of the Agent tool.
  if (p.tool_name === "Agent" || p.tool_name === "Task") {
    const usage = agentUsageFromToolResponse(p.tool_response);
    if (usage) mapped.usage = usage;
  }
  return mapped;
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

// ---------------------------------------------------------------------------
// The normalizer

function parsePid(value: string | undefined): number | null {
  if (value === undefined || !/^\d{1,10}$/.test(value.trim())) return null;
  const pid = Number.parseInt(value, 10);
  return pid > 0 && pid <= 0x7fffffff ? pid : null;
}

export const normalizeClaudeHook = hookNormalizer({
  // The payload's session_id wins; the hook environment's CLAUDE_CODE_SESSION_ID names the same session when
  // the payload lacks one (even an unparseable payload then lands in the right session). Only without either
  // is a local id invented, which no retry can reproduce.
  context: payloadContext({
    provider: CLAUDE_PROVIDER,
    capabilities: CLAUDE_CAPABILITIES,
    sessionEnv: "CLAUDE_CODE_SESSION_ID",
    projectDirEnv: "CLAUDE_PROJECT_DIR",
    agentPid: (env) => parsePid(env.CLAUDE_PID),
  }),
  // Any other event (PermissionRequest, Notification, CwdChanged, future names) keeps its own fields but these.
  contextFields: ["session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode"],
  envelope: { turn_id: "prompt_id", agent_id: "agent_id" },
  rules: RULES,
  eventId,
  invalid: (type, json, sid) => ["invalid", type, sid, json],
});
