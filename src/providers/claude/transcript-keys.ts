// Claude Code's transcript format: the keys of each record type, in the order Claude Code writes them. The
// mirror shapes its records with them (./mirror/envelope.ts) and a transcript rebuilt from the archive uses
// them too (./transcript-rebuild.ts), so that a reader of `~/.claude/projects/<slug>/<session>.jsonl` reads
// either file unchanged.
//
// Taken from Claude Code 2.1.332 transcripts (reference/claude/transcript.sample.jsonl and
// transcript.subagent.sample.jsonl), which differ from the seed's 2.1.148 list: new `promptSource`,
// `sentAtMs`, `rowSource`, `turnOrigin`, `turnPosition`, `apiBlockIndex`, `requestRef`, `requestedModel`,
// `promptCacheRequested`, `effort`, `perTurnEffort`, `madeBy`; `slug` only on records written after a
// compaction, so not here.
import type { JsonObject } from "../../core/base/json.ts";

/**
 * A subagent's record where it is its main-thread twin plus a few keys, each written right after the key it is
 * paired with (`agentId` after `isSidechain`...). Prompt records differ in more than that and keep their own list.
 */
function withSubagentKeys(
  keys: readonly string[],
  ...added: [after: string, key: string][]
): readonly string[] {
  let out = [...keys];
  for (const [after, key] of added) {
    const at = out.indexOf(after) + 1;
    out = [...out.slice(0, at), key, ...out.slice(at)];
  }
  return out;
}

/** Where every record was written, the same last keys of each type. */
const RECORD_ORIGIN_KEYS = [
  "userType",
  "entrypoint",
  "cwd",
  "sessionId",
  "version",
  "gitBranch",
  "source",
] as const;

/** A user record's first keys: a tool result has these, a typed prompt its prompt state after them. */
const USER_MESSAGE_KEYS = [
  "parentUuid",
  "isSidechain",
  "promptId",
  "type",
  "message",
  "uuid",
  "timestamp",
] as const;

/** Top-level keys, in the order Claude Code writes them. */
export const USER_PROMPT_KEYS = [
  ...USER_MESSAGE_KEYS,
  "permissionMode",
  "promptSource",
  "sentAtMs",
  "rowSource",
  "turnOrigin",
  "turnPosition",
  ...RECORD_ORIGIN_KEYS,
] as const;

export const USER_TOOL_RESULT_KEYS = [...USER_MESSAGE_KEYS, ...RECORD_ORIGIN_KEYS] as const;

/** Subagent prompt records carry `agentId` and `rowSource` but none of the main thread's prompt state. */
export const AGENT_USER_PROMPT_KEYS = [
  "parentUuid",
  "isSidechain",
  "promptId",
  "agentId",
  "type",
  "message",
  "rowSource",
  "uuid",
  "timestamp",
  ...RECORD_ORIGIN_KEYS,
] as const;

export const AGENT_USER_TOOL_RESULT_KEYS = withSubagentKeys(USER_TOOL_RESULT_KEYS, ["promptId", "agentId"]);

export const ASSISTANT_KEYS = [
  "parentUuid",
  "isSidechain",
  "message",
  "apiBlockIndex",
  "requestId",
  "requestRef",
  "requestedModel",
  "promptCacheRequested",
  "type",
  "uuid",
  "timestamp",
  "effort",
  "perTurnEffort",
  "madeBy",
  ...RECORD_ORIGIN_KEYS,
] as const;

/** A subagent's assistant record also names its agent in `attributionAgent`. */
export const AGENT_ASSISTANT_KEYS = withSubagentKeys(
  ASSISTANT_KEYS,
  ["isSidechain", "agentId"],
  ["promptCacheRequested", "attributionAgent"],
);

/**
 * Claude Code keeps the per-turn system context (environment, model,
 * reminders) as `attachment` records whose `rendered[].content` it sends
 * verbatim as a `system`-role message; on resume a transcript without them
 * yields an empty system message. The mirror writes the system messages it
 * saw in the same shape, under an attachment type of its own.
 */
export const ATTACHMENT_KEYS = [
  "parentUuid",
  "isSidechain",
  "attachment",
  "type",
  "uuid",
  "timestamp",
  "rendered",
  "renderedRole",
  ...RECORD_ORIGIN_KEYS,
] as const;

export const AGENT_ATTACHMENT_KEYS = withSubagentKeys(ATTACHMENT_KEYS, ["isSidechain", "agentId"]);

export const ASSISTANT_MESSAGE_KEYS = [
  "id",
  "type",
  "role",
  "model",
  "content",
  "stop_reason",
  "stop_sequence",
  "usage",
  "stop_details",
] as const;

/** A record of the type `keys` name: its keys in Claude Code's order, null where the values have none. */
export function inKeyOrder(values: JsonObject, keys: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const k of keys) out[k] = values[k] ?? null;
  return out;
}
