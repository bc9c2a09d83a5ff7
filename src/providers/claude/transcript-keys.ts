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

/**
 * A subagent's record where it is its main-thread twin plus `agentId`, written
 * right after `after`. Prompt and assistant records differ in more than that
 * and keep lists of their own.
 */
function withAgentId(keys: readonly string[], after: string): readonly string[] {
  const at = keys.indexOf(after) + 1;
  return [...keys.slice(0, at), "agentId", ...keys.slice(at)];
}

/** Top-level keys, in the order Claude Code writes them. */
export const USER_PROMPT_KEYS = [
  "parentUuid",
  "isSidechain",
  "promptId",
  "type",
  "message",
  "uuid",
  "timestamp",
  "permissionMode",
  "promptSource",
  "sentAtMs",
  "rowSource",
  "turnOrigin",
  "turnPosition",
  "userType",
  "entrypoint",
  "cwd",
  "sessionId",
  "version",
  "gitBranch",
  "source",
] as const;

export const USER_TOOL_RESULT_KEYS = [
  "parentUuid",
  "isSidechain",
  "promptId",
  "type",
  "message",
  "uuid",
  "timestamp",
  "userType",
  "entrypoint",
  "cwd",
  "sessionId",
  "version",
  "gitBranch",
  "source",
] as const;

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
  "userType",
  "entrypoint",
  "cwd",
  "sessionId",
  "version",
  "gitBranch",
  "source",
] as const;

export const AGENT_USER_TOOL_RESULT_KEYS = withAgentId(USER_TOOL_RESULT_KEYS, "promptId");

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
  "userType",
  "entrypoint",
  "cwd",
  "sessionId",
  "version",
  "gitBranch",
  "source",
] as const;

// Its own list, not withAgentId(ASSISTANT_KEYS): a subagent's assistant record also has attributionAgent.
export const AGENT_ASSISTANT_KEYS = [
  "parentUuid",
  "isSidechain",
  "agentId",
  "message",
  "apiBlockIndex",
  "requestId",
  "requestRef",
  "requestedModel",
  "promptCacheRequested",
  "attributionAgent",
  "type",
  "uuid",
  "timestamp",
  "effort",
  "perTurnEffort",
  "madeBy",
  "userType",
  "entrypoint",
  "cwd",
  "sessionId",
  "version",
  "gitBranch",
  "source",
] as const;

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
  "userType",
  "entrypoint",
  "cwd",
  "sessionId",
  "version",
  "gitBranch",
  "source",
] as const;

export const AGENT_ATTACHMENT_KEYS = withAgentId(ATTACHMENT_KEYS, "isSidechain");

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
