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
import type { SessionIdentity } from "../../core/archive/event.ts";
import {
  capabilities,
  type Discriminator,
  type HookRule,
  hookNormalizer,
  identifiedEventId,
  payloadContext,
  replyPayload,
  requires,
  sessionIdentity,
} from "../hook-normalizer.ts";
import { nonEmptyString, type Payload, select } from "../shared.ts";

export const CODEX_PROVIDER = "codex";

export const CODEX_CAPABILITIES = capabilities({
  features: [
    // Per-response usage from the rollout's token_usage_record lines (see rollout.ts).
    "turn_usage:codex-transcript",
    // Non-zero exit codes of CommandExecution items in the rollout; Codex has no failure hook.
    "tool_error:rollout-exit-code",
    "turn_id:turn_id",
    "agent_id:hook-payload",
    "tool_use_id:hook-payload",
    "interrupt:Interrupt",
  ],
});

/**
 * `codex:<root thread id>`. Subagents share the root's session_id, so their
 * events land in the parent's archive session. Without an id (Codex has no
 * session variable in the hook environment) the session is local: a fresh id
 * no retry can reproduce.
 */
export function codexIdentity(providerId: string | undefined): SessionIdentity {
  return sessionIdentity(CODEX_PROVIDER, providerId);
}

// ---------------------------------------------------------------------------
// Event ids
//
// As Claude's, the id hashes provider identifiers (event name, session_id,
// agent_id, turn_id, tool_use_id) plus an
// event-specific discriminator for events that can fire more than once under
// the same ids (a blocked Stop fires again in the same turn with
// stop_hook_active; Pre- and PostCompact share a turn). Events with no unique
// identifier (SessionStart, PermissionRequest, unknown events, or any event
// missing the id it normally has) hash the whole canonical payload with the
// event name instead.
// Known limit: Codex gives two auto-compactions in one turn, or two resumes
// of a session, byte-identical payloads; such repeats share an id.

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

// ---------------------------------------------------------------------------
// Per-event mapping
//
// optional lists what the core may drop, in order, when an event is still too
// large after string and array truncation. Ids, names and flags are never
// listed. For tools, tool_input goes first because the tool_call event with
// the same tool_use_id already holds it.

const RULES: Record<string, HookRule> = {
  SessionStart: { kind: "session_start", fields: ["source", "model", "permission_mode", "cwd"] },
  UserPromptSubmit: { kind: "user_prompt", fields: ["prompt", "model"], optional: ["prompt"] },
  PreToolUse: {
    kind: "tool_call",
    fields: ["tool_name", "tool_input", "tool_use_id"],
    optional: ["tool_input"],
  },
  // Codex asks before running a command outside the sandbox (TUI, on-request).
  // It names no tool_use_id; the tool_call that follows has one.
  PermissionRequest: {
    kind: "provider_event",
    fields: ["tool_name", "tool_input"],
    extra: { permission_request: true },
    optional: ["tool_input"],
  },
  // No `success` flag: Codex fires PostToolUse for failing commands too, and
  // `tool_response` (a string) carries no exit code. See adapter.ts for tool_error.
  PostToolUse: {
    kind: "tool_result",
    fields: ["tool_name", "tool_input", "tool_response", "tool_use_id"],
    optional: ["tool_input", "tool_response"],
  },
  PreCompact: { kind: "compaction", fields: ["trigger"], extra: { phase: "pre" } },
  PostCompact: { kind: "compaction", fields: ["trigger"], extra: { phase: "post" } },
  SubagentStart: (name, p) => {
    const payload = select(name, p, ["agent_id", "agent_type"]);
    const childRollout = childTranscript(p);
    if (childRollout !== undefined) payload.agent_transcript_path = childRollout;
    return { kind: "subagent_start", payload };
  },
  SubagentStop: {
    kind: "subagent_stop",
    fields: ["agent_id", "agent_type", "agent_transcript_path", "last_assistant_message", "stop_hook_active"],
    optional: ["last_assistant_message"],
  },
  Stop: (name, p) => ({
    kind: "assistant_message",
    payload: replyPayload(name, p.last_assistant_message, p),
    optional_fields: ["text"],
  }),
  // The user interrupted the turn (TUI). Stop does not follow.
  Interrupt: { kind: "provider_event", fields: [], extra: { interrupted: true } },
  SessionEnd: { kind: "session_end", fields: ["reason"], terminal: true },
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

// ---------------------------------------------------------------------------
// The normalizer

export const normalizeCodexHook = hookNormalizer({
  // Codex gives a hook CODEX_HOME and the parent environment, nothing that names the session or the agent
  // (no pid either: hook-env.json has CODEX_HOME and the npm package vars only), so everything comes from the
  // payload. The transcript is the rollout file; inside a subagent (and at SubagentStart) the child's; null
  // for ephemeral runs.
  context: payloadContext({ provider: CODEX_PROVIDER, capabilities: CODEX_CAPABILITIES }),
  // Any other event (future names) keeps its own fields but these.
  contextFields: ["session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode", "model"],
  envelope: { turn_id: "turn_id", agent_id: "agent_id" },
  rules: RULES,
  eventId: identifiedEventId(ID_RULES, "turn_id"),
  invalid: (type, json) => ["invalid", type, json],
});
