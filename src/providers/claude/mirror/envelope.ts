// Shapes mirror records like Claude Code's own transcript records, so that a
// reader of `~/.claude/projects/<slug>/<session>.jsonl` (record.message.content
// and friends) can read a mirror file unchanged.
//
// Key sets: Claude Code's own, per record type (../transcript-keys.ts).
//
// Synthetic or null, and why (the proxy sees HTTP, not Claude Code's state):
//   uuid, parentUuid   synthetic: sha256(sessionId+timestamp+messageId) as 8-4-4-4-12, a linear chain per
//                      file (the real tree is not visible on the wire). Version/variant bits are not RFC-valid,
//                      which is honest about the origin.
//   cwd, gitBranch     null: not on the wire (restore fills cwd, which resume needs).
//   promptId           null: Claude Code's prompt grouping is internal.
//   permissionMode, promptSource, rowSource, turnOrigin, turnPosition
//                      null: harness state that never reaches the API.
//   sentAtMs           the proxy's arrival time of the request, a close upper bound of the real send time.
//   apiBlockIndex      null: a mirror record holds the whole message, not one block (restore splits).
//   requestRef         null: points at Claude Code's own `api-request` record, which the mirror has not.
//   promptCacheRequested, attributionAgent   null: harness-internal.
//   requestedModel, effort, perTurnEffort   from the request body (`model`, `output_config.effort`);
//                      perTurnEffort repeats effort, the only effort the request carries.
//   madeBy             "model": every mirrored assistant record is a model response.
//   userType           from the user-agent `claude-cli/<v> (<userType>, <entrypoint>)`, else "external".
//   entrypoint, version   "tapedeck-mirror" and "tapedeck/<version>": provenance, with `source`.
// Omitted: toolUseResult, sourceToolAssistantUUID, sandboxed, permissionDecision on tool-result records
// (Claude Code's enriched tool objects and permission state cannot be rebuilt from a request body;
// restore derives sourceToolAssistantUUID), and the per-block timing keys thinkingDurationMs,
// thinkingDisplay, toolInputStreamMs (present on some real records only).
// Added: `source: "tapedeck-mirror"`, the one field that tells a mirror record from a real one.
// Also written: `attachment` records (key set of the real ones) holding the request's system-role
// messages, which Claude Code replays from `rendered` on resume (see ATTACHMENT_KEYS).
import { createHash } from "node:crypto";
import { type RedactionRules, redactText, redactValue } from "@tapedeck/redact";
import { storedId } from "../../../core/archive/identity.ts";
import { type Json, type JsonObject, setOwn } from "../../../core/base/json.ts";
import { VERSION } from "../../../core/base/version.ts";
import { isRecord } from "../../shared.ts";
import {
  AGENT_ASSISTANT_KEYS,
  AGENT_ATTACHMENT_KEYS,
  AGENT_USER_PROMPT_KEYS,
  AGENT_USER_TOOL_RESULT_KEYS,
  ASSISTANT_KEYS,
  ATTACHMENT_KEYS,
  inKeyOrder,
  USER_PROMPT_KEYS,
  USER_TOOL_RESULT_KEYS,
} from "../transcript-keys.ts";
import type { AccumulatedMessage } from "./accumulator.ts";

export const MIRROR_SOURCE = "tapedeck-mirror";
export const MIRROR_ENTRYPOINT = "tapedeck-mirror";
/** The `version` field of every mirror record: package.json's, written in by the build. */
export const MIRROR_VERSION = `tapedeck/${VERSION}`;

export const MIRRORED_SYSTEM_ATTACHMENT = "mirrored_system_message";

/** What the records of one request share. */
export interface RecordContext {
  sessionId: string;
  /** `x-claude-code-agent-id` of a subagent request, else null. */
  agentId: string | null;
  userType: string;
  requestedModel: string | null;
  effort: string | null;
}

export interface ContentOptions {
  redact: boolean;
  includeThinking: boolean;
  /** The project's own rules (.tapedeck/redaction.json), as on the hook path. */
  rules?: RedactionRules;
}

export type MirrorRecord = JsonObject & {
  type: "user" | "assistant";
  uuid: string;
  parentUuid: string | null;
};

/** sha256(sessionId + timestamp + messageId), first 32 hex digits, dashed 8-4-4-4-12. */
export function syntheticUuid(sessionId: string, timestamp: string, messageId: string): string {
  const h = createHash("sha256")
    .update(sessionId + timestamp + messageId)
    .digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** Claude Code's user-agent is `claude-cli/<version> (<userType>, <entrypoint>)`. */
export function userTypeFromUserAgent(ua: string | undefined): string {
  const m = ua ? /^claude-cli\/\S+ \(([a-z-]+)[,)]/.exec(ua) : null;
  return m?.[1] ?? "external";
}

const BYTE_SOURCES = new Set(["image", "document"]);

/**
 * Content blocks as they are worth keeping: base64 images and documents
 * become `{type:"reference", sha256, media_type}` (the bytes are large and
 * recoverable from the user's files, the hash identifies them), and
 * `cache_control` markers go, since Claude Code moves them between requests
 * and its own transcript never stores them. Walks into tool_result content;
 * never into tool inputs, which are the model's data.
 */
export function referenceBlocks(content: unknown): Json {
  if (!Array.isArray(content)) return (content ?? null) as Json;
  return content.map((block) => {
    if (!isRecord(block)) return block as Json;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(block)) {
      if (k === "cache_control") continue;
      setOwn(out, k, v);
    }
    const source = block.source;
    if (
      typeof block.type === "string" &&
      BYTE_SOURCES.has(block.type) &&
      isRecord(source) &&
      source.type === "base64" &&
      typeof source.data === "string"
    ) {
      out.source = {
        type: "reference",
        sha256: createHash("sha256").update(Buffer.from(source.data, "base64")).digest("hex"),
        media_type: typeof source.media_type === "string" ? source.media_type : null,
      };
    }
    if (block.type === "tool_result" && Array.isArray(block.content))
      out.content = referenceBlocks(block.content);
    return out;
  });
}

const THINKING_TYPES = new Set(["thinking", "redacted_thinking"]);

function finishContent(content: Json, opts: ContentOptions, path: string): Json {
  return opts.redact ? redactValue(content, path, opts.rules).value : content;
}

export function prepareUserContent(content: unknown, opts: ContentOptions): Json {
  return finishContent(referenceBlocks(content), opts, "message.content");
}

export function prepareAssistantContent(blocks: JsonObject[], opts: ContentOptions): JsonObject[] {
  const kept = opts.includeThinking
    ? blocks
    : blocks.filter((b) => !(typeof b.type === "string" && THINKING_TYPES.has(b.type)));
  return finishContent(referenceBlocks(kept), opts, "message.content") as JsonObject[];
}

/**
 * What a record says besides its content that came off the wire as it was sent (the session and agent
 * headers, the model and effort of the body, the response's ids, its stop sequence, its other fields), as
 * redaction leaves it: an id in the form the archive stores ids in (`redacted-<hash>` for one that holds a
 * credential, identity.ts), any other text redacted as content is. Restore writes the session id it is given.
 */
export function prepareRecordContext(ctx: RecordContext, opts: ContentOptions): RecordContext {
  if (!opts.redact) return ctx;
  return {
    ...ctx,
    sessionId: storedId(ctx.sessionId),
    agentId: ctx.agentId === null ? null : storedId(ctx.agentId),
    requestedModel: redactedText(ctx.requestedModel, opts),
    effort: redactedText(ctx.effort, opts),
  };
}

/** The response's request id, as prepareRecordContext leaves the request's. */
export function prepareRequestId(id: string | null, opts: ContentOptions): string | null {
  return opts.redact && id !== null ? storedId(id) : id;
}

/** The assistant message: its content (prepareAssistantContent) and every other field, as prepareRecordContext. */
export function prepareAssistantMessage(m: AccumulatedMessage, opts: ContentOptions): AccumulatedMessage {
  const content = prepareAssistantContent(m.content, opts);
  if (!opts.redact) return { ...m, content };
  const rest = (v: Json, path: string) => redactValue(v, path, opts.rules).value as Json;
  return {
    ...m,
    id: m.id === null ? null : storedId(m.id),
    model: redactedText(m.model, opts),
    content,
    stop_reason: redactedText(m.stop_reason, opts),
    stop_sequence: redactedText(m.stop_sequence, opts),
    stop_details: rest(m.stop_details, "message.stop_details"),
    usage: rest(m.usage, "message.usage") as JsonObject,
    extra: rest(m.extra, "message") as JsonObject,
  };
}

function redactedText(text: string | null, opts: ContentOptions): string | null {
  return text === null ? null : redactText(text, opts.rules).text;
}

/**
 * A system message's content as attachment renderings: one `{content}` per
 * text block (Claude Code joins renderings itself). Non-text blocks are kept
 * as their JSON text rather than dropped.
 */
export function prepareSystemRendering(content: unknown, opts: ContentOptions): Json {
  const blocks = typeof content === "string" ? [content] : Array.isArray(content) ? content : [];
  const rendered = blocks.map((b) => ({
    content:
      typeof b === "string"
        ? b
        : isRecord(b) && b.type === "text" && typeof b.text === "string"
          ? b.text
          : JSON.stringify(b),
  }));
  return finishContent(rendered, opts, "rendered");
}

export function hasToolResult(content: unknown): boolean {
  return Array.isArray(content) && content.some((b) => isRecord(b) && b.type === "tool_result");
}

export interface UserRecordInput {
  /** Already prepared (prepareUserContent). */
  content: Json;
  /** Position among the request's user-role messages: makes the synthetic id unique per record. */
  ordinal: number;
  timestamp: string;
  sentAtMs: number;
  parentUuid: string | null;
}

export function shapeUserRecord(ctx: RecordContext, input: UserRecordInput): MirrorRecord {
  const key = `user:${ctx.agentId ?? ""}:${input.ordinal}`;
  const uuid = syntheticUuid(ctx.sessionId, input.timestamp, key);
  const toolResult = hasToolResult(input.content);
  const agent = ctx.agentId !== null;
  const values: JsonObject = {
    ...common(ctx, input),
    type: "user",
    message: { role: "user", content: input.content },
    uuid,
    sentAtMs: input.sentAtMs,
  };
  const keys = agent
    ? toolResult
      ? AGENT_USER_TOOL_RESULT_KEYS
      : AGENT_USER_PROMPT_KEYS
    : toolResult
      ? USER_TOOL_RESULT_KEYS
      : USER_PROMPT_KEYS;
  return inKeyOrder(values, keys) as MirrorRecord;
}

export interface AttachmentRecordInput {
  /** Already prepared (prepareSystemRendering). */
  rendered: Json;
  /** The user message it follows, and its position after it. */
  ordinal: number;
  index: number;
  timestamp: string;
  parentUuid: string | null;
}

export function shapeSystemAttachment(ctx: RecordContext, input: AttachmentRecordInput): MirrorRecord {
  const key = `system:${ctx.agentId ?? ""}:${input.ordinal}:${input.index}`;
  const values: JsonObject = {
    ...common(ctx, input),
    attachment: { type: MIRRORED_SYSTEM_ATTACHMENT },
    type: "attachment",
    uuid: syntheticUuid(ctx.sessionId, input.timestamp, key),
    rendered: input.rendered,
    renderedRole: "system",
  };
  return inKeyOrder(values, ctx.agentId !== null ? AGENT_ATTACHMENT_KEYS : ATTACHMENT_KEYS) as MirrorRecord;
}

export interface AssistantRecordInput {
  /** Content already prepared (prepareAssistantContent). */
  message: AccumulatedMessage;
  requestId: string | null;
  timestamp: string;
  parentUuid: string | null;
}

export function shapeAssistantRecord(ctx: RecordContext, input: AssistantRecordInput): MirrorRecord {
  const m = input.message;
  // A message without an id (a stream cut before message_start finished) still needs a unique key.
  const uuid = syntheticUuid(ctx.sessionId, input.timestamp, m.id ?? `assistant:${ctx.agentId ?? ""}`);
  const message: JsonObject = {
    id: m.id,
    type: "message",
    role: "assistant",
    model: m.model,
    content: m.content,
    stop_reason: m.stop_reason,
    stop_sequence: m.stop_sequence,
    usage: m.usage,
    stop_details: m.stop_details,
    ...m.extra,
  };
  const agent = ctx.agentId !== null;
  const values: JsonObject = {
    ...common(ctx, input),
    message,
    requestId: input.requestId,
    requestedModel: ctx.requestedModel,
    type: "assistant",
    uuid,
    effort: ctx.effort,
    perTurnEffort: ctx.effort,
    madeBy: "model",
  };
  return inKeyOrder(values, agent ? AGENT_ASSISTANT_KEYS : ASSISTANT_KEYS) as MirrorRecord;
}

/**
 * What every mirror record says of where it stands and where it comes from (the header says why each is what it
 * is); inKeyOrder keeps those its type has, and writes null for the harness state the mirror cannot know.
 */
function common(ctx: RecordContext, at: { timestamp: string; parentUuid: string | null }): JsonObject {
  return {
    parentUuid: at.parentUuid,
    isSidechain: ctx.agentId !== null,
    agentId: ctx.agentId,
    timestamp: at.timestamp,
    userType: ctx.userType,
    entrypoint: MIRROR_ENTRYPOINT,
    cwd: null,
    sessionId: ctx.sessionId,
    version: MIRROR_VERSION,
    gitBranch: null,
    source: MIRROR_SOURCE,
  };
}
