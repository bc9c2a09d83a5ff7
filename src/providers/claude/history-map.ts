// Claude Code's transcript records as the events its hooks record (`tapedeck import`). Each record becomes the
// hook payload Claude would have sent for it (a tool_use is a PreToolUse, its tool_result a PostToolUse or
// PostToolUseFailure, an API error a StopFailure, a compaction summary a PostCompact), and that payload goes
// through the hooks' own normalizer (normalize.ts): the same envelope, the same payload fields, the same ids
// where the transcript carries what the hook's id is made of (session, prompt id, tool_use_id). Usage is the
// hook path's reading (transcript-usage.ts usageFromRecord): one turn_usage per message id, the last block's
// counts, `turn_usage:<message id>`.
//
// What the transcript adds over a hook recording: every text block of an answer (hooks keep the turn's last),
// and a subagent's task prompt. What it lacks: see CLAUDE_NOT_CAPTURED.
import type { NormalizedEvent } from "../../core/archive/event.ts";
import { contentText } from "../content-text.ts";
import {
  BoundedMap,
  type HistoryFile,
  type HistorySession,
  type ImportRun,
  isoTime,
  shortString,
} from "../history.ts";
import { RecordMapper, setFields } from "../history-mapper.ts";
import { derivedId, isRecord, type Payload } from "../shared.ts";
import { normalizeClaudeHook } from "./normalize.ts";
import { dequeuedPromptFromUser, queuedPromptFromRecord } from "./transcript-queued.ts";
import { type TranscriptUsage, usageFromRecord } from "./transcript-usage.ts";

/** Calls waiting for their result across the end of a read: far more than run at once. */
const OPEN_CALLS_KEPT = 256;
/** Prompt ids whose first prompt took the hook's id; a later prompt record of the same turn takes its uuid's. */
const PROMPTS_KEPT = 256;
/** Record uuid -> turn, for records whose parent came earlier in the read. */
const TURNS_KEPT = 4096;
/** The subagent's answer is kept for its subagent_stop: bounded here, bounded again by the core. */
const LAST_TEXT_CHARS = 64 * 1024;

/**
 * Records Claude writes that hold nothing to import, by type: counted as skipped, never read into events. A
 * type not here and not mapped is an unknown record, kept as a generic event.
 */
const SKIPPED_TYPES = new Set([
  "progress",
  "file-history-snapshot",
  "queue-operation",
  "summary",
  "custom-title",
  "agent-name",
  "tag",
  "last-prompt",
  "api-request",
  "api-request-blob",
  "api-request-shape",
  "atis-latch",
  "tools-used",
  "cost-state",
  "worktree-state",
  "permission-mode",
  "mode",
  "pr-link",
]);

interface Pending {
  usage: TranscriptUsage;
  turn: string | undefined;
  agent: string | undefined;
}

interface Boundary {
  trigger?: string;
  pre_tokens?: number;
  at?: string;
}

export class ClaudeHistoryMapper extends RecordMapper {
  /** The file's subagent, if it is a subagent's file. */
  private readonly fileAgent: string | undefined;
  /** The agent of the record being mapped: the file's, or a sidechain record's in an older main transcript. */
  private agentId: string | undefined;
  private started: boolean;
  private stopped: boolean;
  private lastText: string | undefined;
  private boundary: Boundary | undefined;
  private pending: Pending | undefined;
  private readonly tools: BoundedMap<string>;
  private readonly prompts: BoundedMap<number>;
  private readonly turns = new BoundedMap<string>(TURNS_KEPT);

  constructor(
    session: HistorySession,
    private readonly file: HistoryFile,
    private readonly agentType: string | undefined,
    state: Record<string, unknown> | undefined,
    private readonly run?: ImportRun,
  ) {
    super(session.sessionId, state, session.firstAt);
    this.fileAgent = file.role === "subagent" ? file.agentId : undefined;
    this.agentId = this.fileAgent;
    this.fileTag = this.fileAgent ?? "";
    this.started = state?.started === true;
    this.stopped = state?.stopped === true;
    this.lastText =
      typeof state?.last_text === "string" ? state.last_text.slice(0, LAST_TEXT_CHARS) : undefined;
    this.boundary = isRecord(state?.boundary) ? (state.boundary as Boundary) : undefined;
    this.tools = BoundedMap.from(OPEN_CALLS_KEPT, state?.tools, (v): v is string => typeof v === "string");
    this.prompts = BoundedMap.from(PROMPTS_KEPT, state?.prompts, (v): v is number => v === 1);
  }

  /** Request blobs, snapshots and attachments are most of a transcript's bytes: their head names their type. */
  protected override provablyUnread(bytes: Buffer): string | undefined {
    return unreadByHead(bytes);
  }

  protected map(record: Payload): NormalizedEvent[] {
    const type = recordType(record);
    if (type === "system" && record.subtype !== "compact_boundary")
      return this.skip(`system:${shortString(record.subtype, 64) ?? "(none)"}`);
    if (type === "attachment") {
      const attached = isRecord(record.attachment) ? shortString(record.attachment.type, 64) : undefined;
      if (attached !== "queued_command") return this.skip(`attachment:${attached ?? "(none)"}`);
    }
    if (type !== undefined && SKIPPED_TYPES.has(type)) return this.skip(type);
    // Claude 1.x wrote a Task subagent's records into the main transcript, marked isSidechain.
    this.agentId =
      this.fileAgent ??
      (record.isSidechain === true ? (shortString(record.agentId) ?? "sidechain") : undefined);
    const out: NormalizedEvent[] = [];
    this.start(out, record);
    this.placeInTurn(record);
    if (type === "user") this.user(record, out);
    else if (type === "assistant") this.assistant(record, out);
    else if (type === "system") this.compactBoundary(record);
    else if (type === "attachment") this.queued(record, out);
    else {
      const event = this.unknown(type ?? "(no type)", record);
      out.push(this.place(event, isoTime(record.timestamp) ?? this.lastAt, this.turnOf(record)));
    }
    return out;
  }

  override end(): NormalizedEvent[] {
    this.agentId = this.fileAgent;
    const out: NormalizedEvent[] = [];
    this.flushUsage(out);
    // A compaction boundary waits (in the state) for the summary Claude writes right after it.
    if (this.fileAgent !== undefined && this.started && !this.stopped) {
      this.stopped = true;
      out.push(
        this.hook("SubagentStop", this.lastAt, {
          agent_type: this.agentType,
          agent_transcript_path: this.file.path,
          last_assistant_message: this.lastText,
        }),
      );
    }
    return out;
  }

  state(): Record<string, unknown> {
    return setFields({
      started: this.started,
      tools: this.tools.entries(),
      prompts: this.prompts.entries(),
      ...this.baseState(),
      stopped: this.stopped || undefined,
      last_text: this.fileAgent !== undefined ? this.lastText : undefined,
      boundary: this.boundary,
    });
  }

  /** The session's (or the subagent's) start, at the first record: what SessionStart / SubagentStart records. */
  private start(out: NormalizedEvent[], record: Record<string, unknown>): void {
    if (this.started) return;
    this.started = true;
    if (this.fileAgent !== undefined) {
      out.push(this.hook("SubagentStart", this.lastAt, { agent_type: this.agentType }));
      return;
    }
    const payload: Payload = { source: "import" };
    const cwd = shortString(record.cwd, 4096);
    if (cwd !== undefined) payload.cwd = cwd;
    out.push(this.hook("SessionStart", this.lastAt, payload));
  }

  /** A record belongs to its parent's turn, else to the last prompt's (records are appended in order). */
  private placeInTurn(record: Record<string, unknown>): void {
    const promptId = shortString(record.promptId);
    const parent = shortString(record.parentUuid);
    const turn = promptId ?? (parent !== undefined ? this.turns.get(parent) : undefined) ?? this.turn;
    if (record.type === "user" && promptId !== undefined) this.turn = promptId;
    const uuid = shortString(record.uuid);
    if (uuid !== undefined && turn !== undefined) this.turns.set(uuid, turn);
  }

  private turnOf(record: Record<string, unknown>): string | undefined {
    const uuid = shortString(record.uuid);
    return (uuid !== undefined ? this.turns.get(uuid) : undefined) ?? this.turn;
  }

  private user(record: Record<string, unknown>, out: NormalizedEvent[]): void {
    const at = isoTime(record.timestamp) ?? this.lastAt;
    const message = record.message;
    const content = isRecord(message) ? message.content : undefined;
    if (Array.isArray(content)) {
      for (const block of content)
        if (isRecord(block) && block.type === "tool_result") this.toolResult(record, block, at, out);
    }
    if (record.isCompactSummary === true) {
      this.flushUsage(out);
      this.compaction(out, this.boundary ?? {}, contentText(content), at);
      this.boundary = undefined;
      return;
    }
    const prompt = dequeuedPromptFromUser(record);
    if (!prompt) return;
    // The previous message is complete once a prompt follows: its usage goes with its own turn, before this one.
    this.flushUsage(out);
    const promptId = prompt.prompt_id;
    // The hook's id (promptEventId: one UserPromptSubmit per prompt id); a second prompt record of the same
    // turn, or one with no prompt id, takes its record's uuid.
    const event = this.hook("UserPromptSubmit", at, { prompt: prompt.prompt }, promptId);
    if (promptId !== undefined && !this.prompts.has(promptId)) this.prompts.set(promptId, 1);
    else event.event_id = derivedId("user_prompt", prompt.uuid);
    out.push(event);
  }

  private toolResult(
    record: Record<string, unknown>,
    block: Payload,
    at: string | undefined,
    out: NormalizedEvent[],
  ): void {
    const id = shortString(block.tool_use_id);
    if (id === undefined) return;
    const name = this.tools.get(id);
    this.tools.delete(id);
    const turn = this.turnOf(record);
    if (block.is_error === true) {
      const error =
        contentText(block.content) ??
        (typeof record.toolUseResult === "string" ? record.toolUseResult : "error");
      out.push(this.hook("PostToolUseFailure", at, { tool_name: name, tool_use_id: id, error }, turn));
      return;
    }
    const response = record.toolUseResult ?? block.content;
    out.push(
      this.hook("PostToolUse", at, { tool_name: name, tool_use_id: id, tool_response: response }, turn),
    );
  }

  private assistant(record: Record<string, unknown>, out: NormalizedEvent[]): void {
    const at = isoTime(record.timestamp) ?? this.lastAt;
    const message = isRecord(record.message) ? record.message : undefined;
    const turn = this.turnOf(record);
    if (record.isApiErrorMessage === true) {
      const error = typeof record.error === "string" ? record.error : "unknown";
      out.push(
        this.hook("StopFailure", at, { error, last_assistant_message: contentText(message?.content) }, turn),
      );
      return;
    }
    // Claude's own placeholder turns ("No response requested."): no request was made.
    if (message?.model === "<synthetic>") return;
    this.usage(record, turn, out);
    const content = message?.content;
    const blocks =
      typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
    for (const block of blocks) {
      if (!isRecord(block)) continue;
      if (block.type === "text" && typeof block.text === "string" && block.text.trim() !== "") {
        out.push(this.answer(record, block.text, at, turn, blocks.length > 1 ? blocks.indexOf(block) : 0));
      } else if (block.type === "tool_use") {
        const id = shortString(block.id);
        const name = typeof block.name === "string" ? block.name : undefined;
        if (id !== undefined && name !== undefined) this.tools.set(id, name);
        out.push(
          this.hook("PreToolUse", at, { tool_name: name, tool_input: block.input, tool_use_id: id }, turn),
        );
      }
    }
  }

  /** One text block of an answer: the hooks keep only the turn's last (Stop); the transcript has each. */
  private answer(
    record: Record<string, unknown>,
    text: string,
    at: string | undefined,
    turn: string | undefined,
    index: number,
  ): NormalizedEvent {
    if (this.fileAgent !== undefined) this.lastText = text.slice(0, LAST_TEXT_CHARS);
    const uuid = shortString(record.uuid) ?? `${at}`;
    const event: NormalizedEvent = {
      kind: "assistant_message",
      event_id: derivedId("assistant_message", `${uuid}:${index}`),
      payload: {
        text,
        message_id: isRecord(record.message) ? record.message.id : undefined,
        source: "claude-transcript",
      },
      optional_fields: ["text"],
    };
    return this.place(event, at, turn);
  }

  /**
   * A message's blocks repeat its usage; the last block read holds the final output count (as the hooks read
   * it). A message is its `message.id` with a `requestId`, as ccusage keys it: a record lacking either (an
   * exporter's, Claude's earliest) is a message of its own, counted once per record as ccusage counts it.
   * A message another session of the same run counted already (a resume or fork copies earlier messages,
   * ids and all, into its own file) is counted there, once, as ccusage's deduplication across files does.
   */
  private usage(record: Record<string, unknown>, turn: string | undefined, out: NormalizedEvent[]): void {
    const copied = isRecord(record.message) ? record.message : undefined;
    if (this.run && typeof copied?.id === "string" && typeof record.requestId === "string") {
      const key = `${copied.id}:${record.requestId}`;
      const owner = this.run.messages.get(key);
      if (owner !== undefined && owner !== this.session) return;
      this.run.messages.set(key, this.session);
    }
    const here = `${shortString(record.uuid) ?? `${this.fileTag}@${this.offset}`}`;
    const message = isRecord(record.message) ? record.message : undefined;
    const id = shortString(message?.id);
    const usage = usageFromRecord(
      id !== undefined && typeof record.requestId !== "string" && message
        ? { ...record, message: { ...message, id: `${id}@${here}` } }
        : record,
      `record:${here}`,
    );
    if (!usage) return;
    if (this.pending && this.pending.usage.message_id !== usage.message_id) this.flushUsage(out);
    const same = this.pending?.usage.message_id === usage.message_id;
    this.pending = { usage, turn: same ? this.pending!.turn : turn, agent: this.agentId };
  }

  private flushUsage(out: NormalizedEvent[]): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    const u = p.usage;
    const event: NormalizedEvent = {
      kind: "turn_usage",
      // The hook path's id: a message counted by the hooks (or the proxy) is never counted again.
      event_id: derivedId("turn_usage", u.message_id),
      payload: { message_id: u.message_id, model: u.model, request_id: u.request_id },
      usage: u.usage,
    };
    out.push(this.place(event, isoTime(u.timestamp) ?? this.lastAt, p.turn, p.agent));
  }

  private compactBoundary(record: Record<string, unknown>): void {
    const meta = isRecord(record.compactMetadata) ? record.compactMetadata : {};
    const boundary: Boundary = {};
    if (typeof meta.trigger === "string") boundary.trigger = meta.trigger;
    if (typeof meta.preTokens === "number") boundary.pre_tokens = meta.preTokens;
    const at = isoTime(record.timestamp);
    if (at !== undefined) boundary.at = at;
    this.boundary = boundary;
  }

  private compaction(
    out: NormalizedEvent[],
    b: Boundary,
    summary: string | undefined,
    at: string | undefined,
  ): void {
    const event = this.hook("PostCompact", b.at ?? at ?? this.lastAt, {
      trigger: b.trigger,
      compact_summary: summary,
    });
    if (b.pre_tokens !== undefined) event.payload.pre_tokens = b.pre_tokens;
    out.push(event);
  }

  /** A prompt typed while Claude was busy: the hook path records it the same way, from the same record. */
  private queued(record: Record<string, unknown>, out: NormalizedEvent[]): void {
    const q = queuedPromptFromRecord(record);
    if (!q) return;
    const event: NormalizedEvent = {
      kind: "user_prompt",
      event_id: derivedId("user_prompt", q.uuid),
      payload: { source: "claude-transcript", queued: true, prompt: q.prompt, queued_at: q.timestamp },
      optional_fields: ["prompt"],
    };
    out.push(this.place(event, isoTime(q.timestamp) ?? this.lastAt, this.turnOf(record)));
  }

  /** The event Claude's hook `name` would have given, through the hooks' own normalizer. */
  private hook(name: string, at: string | undefined, fields: Payload, turn?: string): NormalizedEvent {
    const payload = this.hookPayload(name, { ...fields, prompt_id: turn, agent_id: this.agentId });
    const stamp = at ?? this.lastAt;
    const event = normalizeClaudeHook(payload, {}, () => stamp ?? new Date(0).toISOString()).events[0]!;
    if (stamp === undefined) delete event.timestamp;
    if (this.agentId !== undefined) event.agent_id = this.agentId;
    return event;
  }

  private place(
    event: NormalizedEvent,
    at: string | undefined,
    turn: string | undefined,
    agent: string | undefined = this.agentId,
  ): NormalizedEvent {
    if (at !== undefined) event.timestamp = at;
    if (turn !== undefined) event.turn_id = turn;
    if (agent !== undefined) event.agent_id = agent;
    return event;
  }
}

const HEAD_BYTES = 256;
const TYPE_FIRST = Buffer.from('{"type":"');
const ATTACHMENT_TYPE = Buffer.from('"attachment":{"type":"');

/**
 * A record's type; a record without one that holds a message is of its role (exporters and ccusage's own
 * fixtures leave `type` out).
 */
function recordType(record: Payload): string | undefined {
  if (typeof record.type === "string") return record.type.slice(0, 64);
  const role = isRecord(record.message) ? record.message.role : undefined;
  if (role === "user" || role === "assistant") {
    record.type = role;
    return role;
  }
  return undefined;
}

/**
 * The skipped type a line's first bytes prove (`{"type":"api-request-blob",…}`, or an attachment that is no
 * queued prompt: `"attachment":{"type":"prompt_snapshot"` near the start), for a line that ends as an object
 * does. Anything else is parsed.
 */
function unreadByHead(bytes: Buffer): string | undefined {
  if (lastByte(bytes) !== 0x7d) return undefined;
  const head = bytes.subarray(0, HEAD_BYTES);
  if (head.subarray(0, TYPE_FIRST.length).equals(TYPE_FIRST)) {
    const type = nameAt(head, TYPE_FIRST.length);
    return type !== undefined && SKIPPED_TYPES.has(type) ? type : undefined;
  }
  const at = head.indexOf(ATTACHMENT_TYPE);
  if (at < 0) return undefined;
  const type = nameAt(head, at + ATTACHMENT_TYPE.length);
  return type !== undefined && type !== "queued_command" ? `attachment:${type}` : undefined;
}

/** The JSON string's characters from `start` to the next quote, if it ends within the head. */
function nameAt(head: Buffer, start: number): string | undefined {
  const end = head.indexOf(0x22, start);
  return end > start && end - start <= 64 ? head.toString("latin1", start, end) : undefined;
}

/** The last byte that is not whitespace. */
function lastByte(bytes: Buffer): number | undefined {
  for (let i = bytes.length - 1; i >= 0; i -= 1) {
    const b = bytes[i]!;
    if (b !== 0x20 && b !== 0x0d && b !== 0x09) return b;
  }
  return undefined;
}
