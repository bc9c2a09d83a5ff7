// Maps Google Antigravity CLI (`agy`) hook payloads to provider-neutral events.
//
// NOT RUN AGAINST THE REAL CLIENT. No agy binary could be run where this was
// written; the shapes below come from public reports of other integrations
// (see docs/antigravity.md) and the mapping is deliberately tolerant: every
// field is read under its camelCase and snake_case names, unknown fields are
// kept, and nothing missing makes it fail.
//
// This runs in the hook hot path: it imports only types from the core (never
// zod) and never throws. It selects fields but does not redact or bound them.
//
// What the payloads are assumed to look like:
// - No event name in the payload. The installed command must say which hook
//   it is: TAPEDECK_HOOK_EVENT in the hook's environment. A payload field
//   (hook_event_name, hookEventName, eventName, event) is used if one appears;
//   failing both, only unambiguous shapes are inferred (Stop, tool hooks).
// - Common: conversationId, transcriptPath, modelName, artifactDirectoryPath,
//   workspacePaths (empty without an open workspace). No timestamp, no cwd.
// - PreInvocation/PostInvocation: invocationNum, initialNumSteps, before and
//   after every model invocation (several per user turn); the two envelopes
//   are identical for one invocation. No prompt text has been reported.
// - PreToolUse/PostToolUse: stepIdx, toolCall {name, args}; PostToolUse adds
//   error ("" when none), and its toolCall may be null.
// - Stop: terminationReason, fullyIdle, executionNum, error.
// - SessionStart: only the common fields. There is no session end.
import { fileURLToPath } from "node:url";
import type { HookContext, SessionIdentity } from "../../core/archive/event.ts";
import {
  capabilities,
  type HookRule,
  hookNormalizer,
  hookTime,
  localSessionId,
  sessionIdentity,
} from "../hook-normalizer.ts";
import { canonicalJson, isRecord, type Payload } from "../shared.ts";

export const ANTIGRAVITY_PROVIDER = "antigravity";

/** The environment variable the installed hook command sets to the hook's event name. */
export const ANTIGRAVITY_EVENT_ENV = "TAPEDECK_HOOK_EVENT";

export const ANTIGRAVITY_CAPABILITIES = capabilities({
  // No compaction, subagent or session end hook has been reported, nor any token usage.
  omitKinds: ["compaction", "subagent_start", "subagent_stop", "session_end", "turn_usage"],
  features: [
    // The tool call's own id when the payload has one, else its trajectory step (stepIdx).
    "tool_use_id:step-index",
    // The payload does not name its event: the hook command passes it in TAPEDECK_HOOK_EVENT.
    "event_name:env",
    "tool_error:hook-payload(error)",
    // Built from public reports, never run against the real client.
    "adapter:unverified",
  ],
});

// Field names, camelCase (what agy sends) first, then the other spellings accepted.
const F = {
  conversation: ["conversationId", "conversation_id", "sessionId", "session_id"],
  transcript: ["transcriptPath", "transcript_path"],
  workspaces: ["workspacePaths", "workspace_paths"],
  artifacts: ["artifactDirectoryPath", "artifact_directory_path"],
  model: ["modelName", "model_name", "model"],
  eventName: ["hook_event_name", "hookEventName", "eventName", "event_name", "event"],
  toolCall: ["toolCall", "tool_call"],
  toolName: ["name", "toolName", "tool_name"],
  toolArgs: ["args", "arguments", "input", "toolInput", "tool_input"],
  toolCallId: ["id", "toolCallId", "tool_call_id", "toolUseId", "tool_use_id"],
  toolOutput: [
    "toolResult",
    "tool_result",
    "toolResponse",
    "tool_response",
    "toolOutput",
    "tool_output",
    "result",
    "output",
  ],
  step: ["stepIdx", "step_idx", "stepIndex", "step_index"],
  error: ["error", "errorMessage", "error_message"],
  invocation: ["invocationNum", "invocation_num"],
  initialSteps: ["initialNumSteps", "initial_num_steps"],
  prompt: ["prompt", "userPrompt", "user_prompt", "userMessage", "user_message"],
  response: [
    "response",
    "modelResponse",
    "model_response",
    "lastAssistantMessage",
    "last_assistant_message",
    "text",
  ],
  termination: ["terminationReason", "termination_reason"],
  idle: ["fullyIdle", "fully_idle"],
  execution: ["executionNum", "execution_num"],
  cwd: ["cwd"],
  timestamp: ["timestamp"],
} as const;

/** Fields that go to the context or the envelope; never repeated in a generic payload. */
const CONTEXT_FIELDS = [
  ...F.conversation,
  ...F.transcript,
  ...F.workspaces,
  ...F.artifacts,
  ...F.eventName,
  ...F.timestamp,
  ...F.cwd,
];

// ---------------------------------------------------------------------------
// Event names

const KNOWN_EVENTS = ["SessionStart", "PreInvocation", "PostInvocation", "PreToolUse", "PostToolUse", "Stop"];
const CANONICAL = new Map(KNOWN_EVENTS.map((name) => [squash(name), name]));

/** "pre-tool-use", "pre_tool_use", "PRETOOLUSE" all name PreToolUse. */
function squash(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

export function canonicalEventName(raw: string): string {
  const trimmed = raw.trim().slice(0, 64);
  return CANONICAL.get(squash(trimmed)) ?? (trimmed === "" ? "unknown" : trimmed);
}

function resolveEventName(
  p: Payload,
  env: Record<string, string | undefined>,
): { name: string; inferred: boolean } {
  const explicit = nonEmptyString(env[ANTIGRAVITY_EVENT_ENV]) ?? str(p, F.eventName);
  if (explicit !== undefined) return { name: canonicalEventName(explicit), inferred: false };
  // Only shapes that cannot be anything else. SessionStart and the two
  // invocation hooks cannot be told apart by shape, so they stay unknown.
  if (has(p, F.termination) || has(p, F.idle) || has(p, F.execution)) return { name: "Stop", inferred: true };
  if (has(p, F.toolCall) || has(p, ["toolName", "tool_name"])) {
    const after = has(p, F.error) || has(p, F.toolOutput);
    return { name: after ? "PostToolUse" : "PreToolUse", inferred: true };
  }
  return { name: "unknown", inferred: false };
}

// ---------------------------------------------------------------------------
// Context and identity

function buildContext(p: Payload | undefined, env: Record<string, string | undefined>): HookContext {
  return {
    identity: resolveIdentity(p, env),
    project_dir: (p ? firstWorkspace(p) : undefined) ?? (p ? str(p, F.cwd) : undefined) ?? null,
    agent_pid: null,
    transcript_path: (p ? str(p, F.transcript) : undefined) ?? null,
    capabilities: ANTIGRAVITY_CAPABILITIES,
  };
}

let processLocalId: string | undefined;

/**
 * The payload's conversation id, else ANTIGRAVITY_CONVERSATION_ID from the
 * hook's environment. Without either, a local id that is stable only within
 * this process: with command hooks (one process per event) every such event
 * lands in a session of its own; only a long-lived recorder keeps them together.
 */
function resolveIdentity(p: Payload | undefined, env: Record<string, string | undefined>): SessionIdentity {
  const providerId =
    (p ? str(p, F.conversation) : undefined) ?? nonEmptyString(env.ANTIGRAVITY_CONVERSATION_ID);
  return sessionIdentity(ANTIGRAVITY_PROVIDER, providerId, () => (processLocalId ??= localSessionId()));
}

/** The first workspace path; agy sends plain paths, a file:// URI is accepted too. */
function firstWorkspace(p: Payload): string | undefined {
  const paths = pick(p, F.workspaces);
  const list = Array.isArray(paths) ? paths : [paths];
  for (const entry of list) {
    const path = nonEmptyString(entry);
    if (path === undefined) continue;
    if (!path.startsWith("file://")) return path;
    try {
      return fileURLToPath(path);
    } catch {
      // not a usable file URI; try the next one
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Per-event mapping

const RULES: Record<string, HookRule> = {
  SessionStart: (name, p) => {
    const payload = base(name, p);
    const workspaces = pick(p, F.workspaces);
    if (Array.isArray(workspaces)) payload.workspace_paths = workspaces;
    copy(payload, "artifact_directory_path", p, F.artifacts);
    return { kind: "session_start", payload };
  },
  // Fires before every model invocation, not only when the user submits.
  // No prompt text has been reported; if one appears, the first invocation
  // of an execution carries it as the user prompt.
  PreInvocation: (name, p) => {
    const payload = invocation(name, p);
    const prompt = str(p, F.prompt);
    const num = count(p, F.invocation);
    if (prompt !== undefined && (num === undefined || num === 0)) {
      payload.prompt = prompt;
      return { kind: "user_prompt", payload, optional_fields: ["prompt"] };
    }
    return { kind: "provider_event", payload };
  },
  PostInvocation: (name, p) => {
    const payload = invocation(name, p);
    const text = str(p, F.response);
    if (text !== undefined) {
      payload.text = text;
      return { kind: "assistant_message", payload, optional_fields: ["text"] };
    }
    return { kind: "provider_event", payload };
  },
  PreToolUse: (name, p) => ({ kind: "tool_call", payload: tool(name, p), optional_fields: ["tool_input"] }),
  PostToolUse: (name, p) => {
    const payload = tool(name, p);
    const output = pick(p, F.toolOutput);
    if (output !== undefined && output !== null) payload.tool_response = output;
    const error = errorText(pick(p, F.error));
    if (error !== undefined) {
      payload.error = error;
      payload.success = false;
      return { kind: "tool_error", payload, optional_fields: ["tool_input", "tool_response"] };
    }
    return { kind: "tool_result", payload, optional_fields: ["tool_input", "tool_response"] };
  },
  // The end of one execution (a user turn, or its continuation). Not the
  // end of the session: agy has no session end hook.
  Stop: (name, p) => {
    const payload = base(name, p);
    copy(payload, "termination_reason", p, F.termination);
    copy(payload, "fully_idle", p, F.idle);
    copy(payload, "execution_num", p, F.execution);
    const text = str(p, F.response);
    if (text !== undefined) payload.text = text;
    const error = errorText(pick(p, F.error));
    const reason = str(p, F.termination) ?? "";
    const failedReason = /ERROR|MAX_STEPS|FAIL/i.test(reason) && !/NO_?ERROR/i.test(reason);
    if (error !== undefined || failedReason) {
      if (error !== undefined) payload.error = error;
      payload.failure = true;
      return { kind: "provider_event", payload, optional_fields: ["text"] };
    }
    return { kind: "assistant_message", payload, optional_fields: ["text"] };
  },
};

/** hook_event_name, then the model when the payload names it. */
function base(name: string, p: Payload): Payload {
  const payload: Payload = { hook_event_name: name };
  copy(payload, "model", p, F.model);
  return payload;
}

function invocation(name: string, p: Payload): Payload {
  const payload = base(name, p);
  copy(payload, "invocation_num", p, F.invocation);
  copy(payload, "initial_num_steps", p, F.initialSteps);
  return payload;
}

function tool(name: string, p: Payload): Payload {
  const payload = base(name, p);
  const call = pick(p, F.toolCall);
  const record = isRecord(call) ? call : undefined;
  const toolName = (record ? str(record, F.toolName) : undefined) ?? str(p, ["toolName", "tool_name"]);
  if (toolName !== undefined) payload.tool_name = toolName;
  const input =
    (record ? pick(record, F.toolArgs) : undefined) ?? pick(p, ["toolInput", "tool_input", "args"]);
  if (input !== undefined) payload.tool_input = input;
  const step = count(p, F.step);
  if (step !== undefined) payload.step_idx = step;
  // The call's own id if it has one; else the trajectory step, which the call
  // and its result are assumed to share (unverified).
  const id =
    (record ? str(record, F.toolCallId) : undefined) ??
    str(p, ["toolCallId", "tool_call_id", "toolUseId", "tool_use_id"]) ??
    (step !== undefined ? `step-${step}` : undefined);
  if (id !== undefined) payload.tool_use_id = id;
  return payload;
}

/** A non-empty error string, or an error object's message; "" and null mean no error. */
function errorText(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? undefined : value;
  if (isRecord(value)) {
    return (
      str(value, ["message", "error", "reason", "code"]) ??
      (Object.keys(value).length > 0 ? canonicalJson(value) : undefined)
    );
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Ids and helpers

/** The first of `keys` present in `p` (own properties only). */
function pick(p: Payload, keys: readonly string[]): unknown {
  for (const key of keys) {
    if (Object.hasOwn(p, key) && p[key] !== undefined) return p[key];
  }
  return undefined;
}

function has(p: Payload, keys: readonly string[]): boolean {
  return keys.some((key) => Object.hasOwn(p, key));
}

function str(p: Payload, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = Object.hasOwn(p, key) ? nonEmptyString(p[key]) : undefined;
    if (value !== undefined) return value;
  }
  return undefined;
}

function count(p: Payload, keys: readonly string[]): number | undefined {
  const value = pick(p, keys);
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function copy(out: Payload, to: string, p: Payload, keys: readonly string[]): void {
  const value = pick(p, keys);
  if (value !== undefined) out[to] = value;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

// ---------------------------------------------------------------------------
// The normalizer

export const normalizeAntigravityHook = hookNormalizer({
  context: buildContext,
  contextFields: CONTEXT_FIELDS,
  rules: RULES,
  // No eventId of its own: agy sends no timestamp and no event id, so the whole
  // canonical payload and the event name are the identity. A hook registered
  // twice (globally and in the workspace) then records once; two invocations
  // differ in their step counts. The price: a resumed conversation whose
  // SessionStart is byte-identical to the first one's is not recorded again.
  eventName: resolveEventName,
  errorName: () => "unknown",
  // A timestamp if a future payload carries one; agy's reported payloads do not.
  time: (p) => hookTime(pick(p, F.timestamp)),
  invalid: (type, json, sid, name) => ["invalid", name, type, sid, json],
});
