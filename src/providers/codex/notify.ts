// Maps Codex's legacy `notify` program call to provider-neutral events.
//
// `notify = ["prog", ...args]` in config.toml runs once per completed turn with
// one JSON object as the LAST argv element (stdin is empty):
//   {"type":"agent-turn-complete","thread-id","turn-id","cwd","client",
//    "input-messages":[...],"last-assistant-message":string|null}
// It runs even when hooks are untrusted (and so silently skipped), which makes
// it the fallback recording path. It knows less than the hooks:
// - `thread-id` is the thread that ran the turn. For a subagent's turn that is
//   the CHILD thread, and nothing links it to its parent, so such a turn is
//   archived under `codex:<child thread id>`, not under the root session.
// - There are no tool calls, no usage and no session start or end.
// The TUI's hidden title-generation thread also notifies; it is recognised
// and dropped (see isTuiTitleThread), so the result has no events.
import type { HookContext, NormalizedEvent, NormalizeResult } from "../../core/archive/event.ts";
import type { EventKind } from "../../core/archive/schemas.ts";
import { copyOwnFields, failureEvent } from "../hook-normalizer.ts";
import { canonicalJson, idFor, isoNow, isRecord, nonEmptyString, safeNow } from "../shared.ts";
import type { ArgvHook, ProviderAdapter } from "../types.ts";
import { CODEX_PROVIDER, codexIdentity } from "./normalize.ts";

export const CODEX_NOTIFY_CAPABILITIES: readonly string[] = Object.freeze([
  "user_prompt",
  "assistant_message",
  "provider_event",
  "turn_id:notify",
  "source:notify",
]);

type Payload = Record<string, unknown>;

const TURN_COMPLETE = "agent-turn-complete";
/** Fields that go to the context or the envelope, not into a generic payload. */
const NOTIFY_COMMON_FIELDS = new Set(["type", "thread-id", "turn-id", "cwd"]);

/**
 * Maps the notify program's last argv element. Never throws: text that is not
 * JSON, or JSON that is not an object, becomes a provider_event in a local
 * session. A TUI title-generation turn yields no events; the caller should
 * then record nothing (an empty result must not open an archive session).
 *
 * Event ids (same principle as the hooks: retried call → same id, same text in
 * another turn → a different id): hashes of ["notify", thread-id, turn-id,
 * part], where part is ["input-message", index] for the i-th input message and
 * ["last-assistant-message"] for the reply. Without a turn-id, the whole
 * canonical object is hashed instead of the ids.
 */
export function normalizeCodexNotify(
  argvJson: string,
  _env: Record<string, string | undefined>,
  now: () => string = isoNow,
): NormalizeResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argvJson);
  } catch {
    return invalid(
      "notify argument is not JSON",
      typeof argvJson === "string" ? "text" : typeof argvJson,
      argvJson,
      now,
    );
  }
  return normalizeCodexNotifyValue(parsed, now, argvJson);
}

/** As normalizeCodexNotify, for the argument already parsed. */
export function normalizeCodexNotifyValue(
  parsed: unknown,
  now: () => string = isoNow,
  raw: unknown = parsed,
): NormalizeResult {
  if (!isRecord(parsed)) {
    const type = parsed === null ? "null" : Array.isArray(parsed) ? "array" : typeof parsed;
    return invalid(
      "notify argument is not a JSON object",
      type,
      typeof raw === "string" ? raw : canonicalJson(raw),
      now,
    );
  }
  try {
    return normalizeObject(parsed, now);
  } catch (error) {
    // Defensive: a notify program must never fail. Say what went wrong without echoing the payload.
    const context = buildContext(parsed);
    return {
      context,
      events: [failureEvent("notify-error", context.identity.provider_session_id, "notify", error, now)],
    };
  }
}

/**
 * The TUI names a new thread by running a hidden, separate thread (no rollout
 * file) whose only input is a fixed instruction followed by the user's first
 * prompt, and that thread's turn fires `notify` like any other. Recognised by
 * all of: type agent-turn-complete, client "codex-tui" (only the TUI does
 * this), exactly one input message, and that message starting with the
 * instruction's fixed opening and containing its "User prompt:" section.
 * A user typing that exact text as a prompt in the TUI would be dropped too.
 */
export function isTuiTitleThread(notification: unknown): boolean {
  if (!isRecord(notification) || notification.type !== TURN_COMPLETE) return false;
  if (notification.client !== "codex-tui") return false;
  const inputs = notification["input-messages"];
  if (!Array.isArray(inputs) || inputs.length !== 1) return false;
  const [text] = inputs;
  return (
    typeof text === "string" &&
    text.startsWith("Generate a concise, single-line task title") &&
    text.includes("\nUser prompt:\n")
  );
}

function normalizeObject(n: Payload, now: () => string): NormalizeResult {
  const context = buildContext(n);
  const type = nonEmptyString(n.type) ?? "unknown";
  if (type !== TURN_COMPLETE) return { context, events: [generic(type, n, context, now)] };
  if (isTuiTitleThread(n)) return { context, events: [] };

  const threadId = context.identity.provider_session_id;
  const turnId = nonEmptyString(n["turn-id"]);
  const material = (part: unknown[]) =>
    turnId !== undefined ? ["notify", threadId, turnId, ...part] : ["notify-payload", threadId, n, ...part];
  const make = (kind: EventKind, part: unknown[], payload: Payload, optional: string): NormalizedEvent => {
    const event: NormalizedEvent = {
      kind,
      event_id: idFor(kind, material(part)),
      timestamp: now(),
      payload,
      optional_fields: [optional],
    };
    if (turnId !== undefined) event.turn_id = turnId;
    return event;
  };

  const events: NormalizedEvent[] = [];
  const inputs = Array.isArray(n["input-messages"]) ? n["input-messages"] : [];
  inputs.forEach((prompt, index) => {
    if (typeof prompt !== "string") return;
    const payload: Payload = { hook_event_name: "notify", notify_type: type, prompt, input_index: index };
    events.push(make("user_prompt", ["input-message", index], payload, "prompt"));
  });
  const reply: Payload = { hook_event_name: "notify", notify_type: type };
  // null when the turn produced no final message; kept, so the turn's end is still recorded.
  if (n["last-assistant-message"] !== undefined) reply.text = n["last-assistant-message"];
  if (n.client !== undefined) reply.client = n.client;
  reply.input_message_count = inputs.length;
  events.push(make("assistant_message", ["last-assistant-message"], reply, "text"));
  // A turn the hooks recorded is theirs: these events then go nowhere.
  return turnId !== undefined ? { context, events, fallbackForTurn: turnId } : { context, events };
}

/** A notification type this adapter does not know: keep its own fields, never reject. */
function generic(type: string, n: Payload, context: HookContext, now: () => string): NormalizedEvent {
  const payload: Payload = { hook_event_name: "notify", notify_type: type };
  const optional = copyOwnFields(payload, n, NOTIFY_COMMON_FIELDS);
  const event: NormalizedEvent = {
    kind: "provider_event",
    event_id: idFor("provider_event", ["notify-payload", context.identity.provider_session_id, n]),
    timestamp: now(),
    payload,
  };
  const turnId = nonEmptyString(n["turn-id"]);
  if (turnId !== undefined) event.turn_id = turnId;
  if (optional.length > 0) event.optional_fields = optional;
  return event;
}

function invalid(error: string, type: string, raw: unknown, now: () => string): NormalizeResult {
  const context = buildContext(undefined);
  const event: NormalizedEvent = {
    kind: "provider_event",
    event_id: idFor("provider_event", ["notify-invalid", type, String(raw)]),
    timestamp: safeNow(now),
    payload: { hook_event_name: "notify", error, type },
  };
  return { context, events: [event] };
}

function buildContext(n: Payload | undefined): HookContext {
  return {
    identity: codexIdentity(nonEmptyString(n?.["thread-id"])),
    project_dir: nonEmptyString(n?.cwd) ?? null,
    agent_pid: null,
    // notify names no rollout file.
    transcript_path: null,
    capabilities: CODEX_NOTIFY_CAPABILITIES,
  };
}

/**
 * The notify program as an adapter: `node hook.cjs codex --notify '<json>'`. It records a turn only when
 * Codex's hooks did not (see fallbackForTurn), so it can stay installed beside them.
 */
export const codexNotifyAdapter: ProviderAdapter = {
  name: CODEX_PROVIDER,
  displayName: "Codex CLI (notify)",
  fallback: true,
  normalize: (payload) => normalizeCodexNotifyValue(payload),
};

/** How the hook entry tells the notify program's call from a hook's (registry.ts ARGV_HOOKS). */
export const codexNotifyHook: ArgvHook = { flag: "--notify", adapter: codexNotifyAdapter };
