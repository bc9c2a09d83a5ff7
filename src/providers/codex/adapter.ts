import type { NormalizedEvent, NormalizeResult } from "../../core/archive/event.ts";
import { afterReads, type ReadCursor, readFrom, startCursor } from "../read-cursors.ts";
import { inPeriod } from "../shared.ts";
import type { ProviderAdapter } from "../types.ts";
import { codexIdentity } from "./identity.ts";
import { normalizeCodexHook } from "./normalize.ts";
import { readRollout } from "./rollout.ts";
import { errorEvent, type ReadScope, usageEvent } from "./rollout-events.ts";

interface RolloutCursorState extends ReadCursor {
  model?: string;
}

interface CodexState {
  /** read position per rollout file: the session's own and each subagent's */
  cursors?: Record<string, RolloutCursorState>;
}

const MAX_PATH_CHARS = 4096;

function readInto(
  path: string,
  cursors: Record<string, RolloutCursorState>,
  scope: ReadScope,
): NormalizedEvent[] {
  const { read, next, periodStart } = readFrom(cursors, path, readRollout, "response_id", scope.since);
  if (read.model !== undefined) next.model = read.model;
  return [
    ...read.usages.filter((u) => inPeriod(u.timestamp, periodStart)).map((u) => usageEvent(u, scope)),
    // Codex has no failure hook: a command that exited non-zero got an
    // ordinary PostToolUse, so the failure is recorded from the rollout.
    ...read.commands
      .filter((c) => (c.exit_code !== null && c.exit_code !== 0) || c.start_error !== undefined)
      .filter((c) => inPeriod(c.timestamp, periodStart))
      .map((c) => errorEvent(c, scope)),
  ];
}

/** State comes back from disk: keep only well-formed cursors. */
function loadCursors(state: CodexState | undefined): Record<string, RolloutCursorState> {
  // No prototype: a path is only ever a key, even one spelled "__proto__".
  const out: Record<string, RolloutCursorState> = Object.create(null);
  const cursors = state?.cursors;
  if (typeof cursors !== "object" || cursors === null || Array.isArray(cursors)) return out;
  for (const [path, raw] of Object.entries(cursors)) {
    if (typeof raw !== "object" || raw === null) continue;
    const { offset, seen, model, fresh } = raw as Partial<Record<keyof RolloutCursorState, unknown>>;
    if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0) continue;
    const cursor: RolloutCursorState = {
      offset,
      seen: Array.isArray(seen) ? seen.filter((s): s is string => typeof s === "string") : [],
    };
    if (typeof model === "string") cursor.model = model;
    if (fresh === true) cursor.fresh = true;
    out[path] = cursor;
  }
  return out;
}

function usablePath(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" && value.length < MAX_PATH_CHARS ? value : undefined;
}

/**
 * At Stop, reads what Codex wrote to the session's rollout since the last
 * read; at SubagentStop, the child's own rollout (`agent_transcript_path`);
 * at SessionEnd, the session's rollout once more, for a last turn that ended
 * without Stop (Stop does not fire when the API call fails). Each new
 * token_usage_record becomes a turn_usage event, each command that exited
 * non-zero a tool_error linked to its call by tool_use_id.
 */
function enrichFromRollouts(result: NormalizeResult, previous: CodexState | undefined, since?: string) {
  const cursors = loadCursors(previous);
  const rootThreadId = result.context.identity.provider_session_id;
  const rootRollout = usablePath(result.context.transcript_path);
  const events: NormalizedEvent[] = [];
  let read = startCursor(cursors, result, rootRollout, previous !== undefined);
  for (const e of result.events) {
    const atTurnEnd = e.kind === "assistant_message" && e.payload.hook_event_name === "Stop" && !e.agent_id;
    if ((atTurnEnd || e.kind === "session_end") && rootRollout !== undefined) {
      events.push(
        ...readInto(rootRollout, cursors, { turnId: e.turn_id, agentId: undefined, rootThreadId, since }),
      );
      read = true;
    }
    const childRollout = e.kind === "subagent_stop" ? usablePath(e.payload.agent_transcript_path) : undefined;
    if (childRollout !== undefined) {
      events.push(
        ...readInto(childRollout, cursors, { turnId: e.turn_id, agentId: e.agent_id, rootThreadId, since }),
      );
      read = true;
    }
  }
  return afterReads(read, events, cursors);
}

export const codexAdapter: ProviderAdapter = {
  name: codexIdentity.name,
  displayName: codexIdentity.displayName,
  normalize: (payload, env) => normalizeCodexHook(payload, env),
  enrich: (result, state, scope) =>
    enrichFromRollouts(result, state as CodexState | undefined, scope?.recordingSince),
};
