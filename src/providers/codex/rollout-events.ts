// The events the rollout adds to what Codex's hooks carry, built the same way whoever reads the rollout: the
// hook path at Stop and SubagentStop (adapter.ts), and `tapedeck import` (history-map.ts). A response's usage is
// `turn_usage:<response id>`, a failed command `tool_error:<call id>`: two readers of the same record give one
// event.
import type { NormalizedEvent } from "../../core/archive/event.ts";
import { derivedId, responseTime } from "../shared.ts";
import type { RolloutCommand, RolloutUsage } from "./rollout.ts";

/** Whom a read is for, when the rollout's own records do not say. */
export interface ReadScope {
  turnId: string | undefined;
  agentId: string | undefined;
  /** The root thread id (the hooks' session_id); a record from another thread is a subagent's. */
  rootThreadId: string | null;
  /** When recording was last switched on: records written earlier are not this period's. */
  since?: string;
}

export function usageEvent(u: RolloutUsage, scope: ReadScope): NormalizedEvent {
  const payload: Record<string, unknown> = { response_id: u.response_id };
  if (u.model !== undefined) payload.model = u.model;
  if (u.thread_id !== undefined) payload.thread_id = u.thread_id;
  const event: NormalizedEvent = {
    kind: "turn_usage",
    // Derived from the response id: losing the cursor can repeat a read, never a count.
    event_id: derivedId("turn_usage", u.response_id),
    payload,
    usage: u.usage,
  };
  const at = responseTime(u.timestamp);
  if (at !== undefined) event.timestamp = at;
  attribute(event, u.turn_id, agentFor(u.thread_id, u.session_id ?? scope.rootThreadId, scope), scope);
  return event;
}

export function errorEvent(c: RolloutCommand, scope: ReadScope): NormalizedEvent {
  const payload: Record<string, unknown> = {
    // Codex reports every CommandExecution to hooks as tool_name "Bash" (the model's exec_command).
    tool_name: "Bash",
    tool_use_id: c.call_id,
    exit_code: c.exit_code,
    // A declined or unstartable command has no exit code; Codex's own message says why.
    error: c.start_error ?? `Exit code ${c.exit_code}`,
  };
  if (c.start_error !== undefined) payload.never_ran = true;
  if (c.command !== undefined) payload.command = c.command;
  if (c.duration_ms !== undefined) payload.duration_ms = c.duration_ms;
  if (c.status !== undefined) payload.status = c.status;
  if (c.source !== undefined) payload.source = c.source;
  if (c.output !== undefined) payload.output = c.output;
  payload.derived_from = "rollout";
  const event: NormalizedEvent = {
    kind: "tool_error",
    // One per call: the PostToolUse tool_result with the same tool_use_id is the other half.
    event_id: derivedId("tool_error", c.call_id),
    payload,
    // The tool_result already holds the output; the exit code is what only this event has.
    optional_fields: ["output", "command"].filter((f) => f in payload),
  };
  attribute(event, c.turn_id, agentFor(c.thread_id, scope.rootThreadId, scope), scope);
  return event;
}

/**
 * A rollout record names its own thread. A thread other than the root is a
 * subagent, whose id (the child thread id) is the hooks' agent_id. Without
 * both ids the reading hook's agent applies.
 */
function agentFor(threadId: string | undefined, rootThreadId: string | null, scope: ReadScope) {
  if (threadId === undefined || rootThreadId === null) return scope.agentId;
  return threadId === rootThreadId ? undefined : threadId;
}

function attribute(
  event: NormalizedEvent,
  turnId: string | undefined,
  agentId: string | undefined,
  scope: ReadScope,
): void {
  const turn = turnId ?? scope.turnId;
  if (turn !== undefined) event.turn_id = turn;
  if (agentId !== undefined) event.agent_id = agentId;
}
