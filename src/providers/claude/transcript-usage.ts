// Token usage from Claude Code's transcript JSONL and from Agent tool responses.
//
// Claude's lifecycle hooks carry no per-turn usage, but every hook gets
// `transcript_path`. Claude writes one `assistant` record per content block,
// and each of those records repeats the message's full `usage`, so a naive
// sum over records multiplies the real count. We key by `message.id` instead.
//
// The transcript grows for the whole session and also holds big records
// (request blobs, prompt snapshots), so a hook must read only what was
// appended since its last visit: callers keep the returned offset and the
// message ids they already counted.
//
// The same pass finds which turn each message belongs to, and the prompts Claude queued (transcript-queued.ts):
// interactive Claude writes its transcript asynchronously, so the last response of a turn can reach the file
// after that turn's Stop hook read it (measured: 5 of 18 turns under a pty). The turn it is counted in must then
// come from the transcript, not from the hook that happened to read it. Each `user` record carries `promptId`
// (the hooks' prompt_id) and every record its `parentUuid`; records are appended in order, so a record belongs
// to its parent's turn or, when the parent was not parsed here, to the last prompt seen before it.
import type { Usage } from "../../core/archive/schemas.ts";
import { DEFAULT_MAX_BYTES, readAppendedLines } from "../appended-lines.ts";
import { isRecord } from "../shared.ts";
import { countOf, type UsageCountField } from "../usage-counts.ts";
import {
  dequeuedPromptFromUser,
  isDequeue,
  mayBeQueuedPrompt,
  type QueuedPrompt,
  queuedPromptFromRecord,
} from "./transcript-queued.ts";

/** Claude hands on one queued prompt per turn; a few pending cover prompts typed in a burst. */
const MAX_PENDING_DEQUEUES = 8;

export interface TranscriptUsage {
  message_id: string;
  /** When Claude wrote a transcript line of the message (the last one read: each content block has one). */
  timestamp?: string;
  model?: string;
  request_id?: string;
  usage: Usage;
}

/** Where a read starts: the offset, the ids already counted, and where the last read left the turn and queue. */
export interface TailCursor {
  offset: number;
  seen: Iterable<string>;
  turn?: string;
  /** Prompts the queue handed on whose `user` record was not read yet. */
  dequeued?: number;
}

export interface TailReadResult {
  offset: number;
  /** The prompt id of the turn the last record read belongs to, for the next read to continue from. */
  turn?: string;
  dequeued?: number;
  usages: Array<TranscriptUsage & { turn_id?: string }>;
  prompts: Array<QueuedPrompt & { turn_id?: string }>;
}

export interface UsageReadResult {
  /** Where the next call should start: just past the last complete line read. */
  offset: number;
  /** One entry per new message id, in order of first appearance. */
  usages: TranscriptUsage[];
}

/**
 * Reads usage from the records appended to a Claude transcript since `fromOffset`.
 *
 * Only complete lines are parsed; a trailing partial line (Claude may be
 * mid-write) is left for the next call. A message whose blocks straddle two
 * calls is counted by the first call that sees it, so call this at turn
 * boundaries (Stop), when every block of the turn has been written.
 */
export function readNewUsage(
  transcriptPath: string,
  fromOffset: number,
  seenMessageIds: Iterable<string>,
  maxBytes: number = DEFAULT_MAX_BYTES,
): UsageReadResult {
  const read = readTranscriptTail(transcriptPath, { offset: fromOffset, seen: seenMessageIds }, maxBytes);
  return { offset: read.offset, usages: read.usages.map(({ turn_id: _turn, ...usage }) => usage) };
}

/**
 * Reads the usage, the turn of each message and the queued prompts from the records appended since
 * `from.offset`, at most `maxBytes` of them.
 */
export function readTranscriptTail(
  transcriptPath: string,
  from: TailCursor,
  maxBytes: number = DEFAULT_MAX_BYTES,
): TailReadResult {
  const nothing: TailReadResult = { offset: from.offset, usages: [], prompts: [] };
  if (from.turn !== undefined) nothing.turn = from.turn;
  if (from.dequeued !== undefined) nothing.dequeued = from.dequeued;
  const read = readAppendedLines(
    transcriptPath,
    from.offset,
    maxBytes,
    (start) => new TailCollector(start === from.offset ? from : { offset: start, seen: from.seen }),
  );
  return read ? { offset: read.offset, ...read.sink.result() } : nothing;
}

class TailCollector {
  private readonly seen: Set<string>;
  private readonly byMessage = new Map<string, TranscriptUsage & { turn_id?: string }>();
  private readonly prompts: Array<QueuedPrompt & { turn_id?: string }> = [];
  /** The turn of each record parsed in this read, by uuid, for the records that name it as their parent. */
  private readonly turnOf = new Map<string, string>();
  private turn: string | undefined;
  private dequeued: number;

  constructor(from: TailCursor) {
    this.seen = new Set(from.seen);
    this.turn = from.turn;
    // Bounded: a state file can say anything.
    this.dequeued = Math.min(MAX_PENDING_DEQUEUES, Math.max(0, Math.floor(from.dequeued ?? 0)));
  }

  add(line: Buffer): void {
    // Cheap byte tests first: most lines (attachments, request blobs, prompt
    // snapshots) are large and irrelevant, and JSON.parse dominates the cost.
    const usage = line.includes('"assistant"') && line.includes('"usage"');
    const user = line.includes('"promptId"') && line.includes('"user"');
    if (!usage && !user && !mayBeQueuedPrompt(line)) return;
    const record = parseJson(line.toString("utf8"));
    if (!isRecord(record)) return;
    if (isDequeue(record)) {
      this.dequeued = Math.min(MAX_PENDING_DEQUEUES, this.dequeued + 1);
      return;
    }
    if (record.type === "user") {
      this.addUser(record);
      return;
    }
    const parent = typeof record.parentUuid === "string" ? this.turnOf.get(record.parentUuid) : undefined;
    const turn = parent ?? this.turn;
    if (typeof record.uuid === "string" && turn !== undefined) this.turnOf.set(record.uuid, turn);
    const entry = usageFromRecord(record);
    if (entry) {
      this.addUsage(entry, turn);
      return;
    }
    const queued = queuedPromptFromRecord(record);
    if (queued) this.prompts.push(turn === undefined ? queued : { ...queued, turn_id: turn });
  }

  private addUser(record: Record<string, unknown>): void {
    if (typeof record.promptId !== "string" || record.promptId === "") return;
    this.turn = record.promptId;
    if (typeof record.uuid === "string") this.turnOf.set(record.uuid, record.promptId);
    if (this.dequeued === 0) return;
    // The first user record after a dequeue is the prompt handed on (measured); whatever it is, the dequeue is
    // spent, so a stale one can never turn a later, hooked prompt into a second user_prompt.
    this.dequeued--;
    const prompt = dequeuedPromptFromUser(record);
    if (prompt) this.prompts.push({ ...prompt, turn_id: record.promptId });
  }

  private addUsage(entry: TranscriptUsage, turn: string | undefined): void {
    if (this.seen.has(entry.message_id)) return;
    // A message belongs to the turn of its first block record. Map.set keeps the first insertion position but
    // takes the later value: the last block record of a message carries its final output_tokens.
    const turnId = this.byMessage.get(entry.message_id)?.turn_id ?? turn;
    this.byMessage.set(entry.message_id, turnId === undefined ? entry : { ...entry, turn_id: turnId });
  }

  result(): Omit<TailReadResult, "offset"> {
    const out: Omit<TailReadResult, "offset"> = {
      usages: [...this.byMessage.values()],
      prompts: this.prompts,
    };
    if (this.turn !== undefined) out.turn = this.turn;
    if (this.dequeued > 0) out.dequeued = this.dequeued;
    return out;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The usage of one `assistant` record (each content block repeats its message's): also what `tapedeck import` maps. */
/**
 * `idWhenNone`: the key of a message that has no `message.id` (exporters and Claude's earliest records leave it
 * out): without it, such a record counts nothing (the hook path, which keys its reads by message id).
 */
export function usageFromRecord(record: unknown, idWhenNone?: string): TranscriptUsage | undefined {
  if (!isRecord(record) || record.type !== "assistant") return undefined;
  // API error records are synthesized locally: no request was billed.
  if (record.isApiErrorMessage === true) return undefined;
  const message = record.message;
  if (!isRecord(message)) return undefined;
  const id = typeof message.id === "string" && message.id !== "" ? message.id : idWhenNone;
  if (id === undefined) return undefined;
  const model = typeof message.model === "string" ? message.model : undefined;
  // Claude also writes locally generated "<synthetic>" assistant turns with zero usage.
  if (model === "<synthetic>") return undefined;
  const usage = anthropicUsage(message.usage, "claude-transcript", model, id);
  if (!usage) return undefined;
  // Every record names the Claude Code that wrote it: what `usage --breakdown version` compares.
  if (typeof record.version === "string" && /^[\w.+-]{1,64}$/.test(record.version))
    usage.agent_version = record.version;
  const entry: TranscriptUsage = { message_id: id, usage };
  if (model !== undefined) entry.model = model;
  if (typeof record.requestId === "string") entry.request_id = record.requestId;
  if (typeof record.timestamp === "string") entry.timestamp = record.timestamp;
  return entry;
}

/**
 * Usage of a finished Agent (formerly Task) tool call from its PostToolUse
 * `tool_response`. A background launch (`status: "async_launched"`) carries
 * no usage yet, which yields undefined.
 */
export function agentUsageFromToolResponse(toolResponse: unknown): Usage | undefined {
  if (!isRecord(toolResponse)) return undefined;
  const model =
    typeof toolResponse.resolvedModel === "string"
      ? toolResponse.resolvedModel
      : typeof toolResponse.model === "string"
        ? toolResponse.model
        : undefined;
  const usage = anthropicUsage(toolResponse.usage, "hook-payload", model) ?? { source: "hook-payload" };
  // Claude's own figure; kept as reported rather than recomputed.
  const total = countOf(toolResponse.totalTokens);
  if (total !== undefined) usage.total_tokens = total;
  return hasCounts(usage) ? usage : undefined;
}

const ANTHROPIC_COUNTS = [
  "input_tokens",
  "output_tokens",
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
] as const satisfies readonly UsageCountField[];

const ALL_COUNTS: readonly UsageCountField[] = [
  ...ANTHROPIC_COUNTS,
  "reasoning_output_tokens",
  "total_tokens",
];

/** Maps an Anthropic `usage` object; undefined when it holds no token counts. */
function anthropicUsage(
  raw: unknown,
  source: Usage["source"],
  model?: string,
  messageId?: string,
): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const usage: Usage = { source };
  if (model !== undefined) usage.model = model;
  if (messageId !== undefined) usage.message_id = messageId;
  for (const field of ANTHROPIC_COUNTS) {
    const value = countOf(raw[field]);
    if (value !== undefined) usage[field] = value;
  }
  // Thinking tokens are a subset of output_tokens, like Codex's reasoning count.
  const details = raw.output_tokens_details;
  const thinking = isRecord(details) ? countOf(details.thinking_tokens) : undefined;
  if (thinking !== undefined) usage.reasoning_output_tokens = thinking;
  return hasCounts(usage) ? usage : undefined;
}

function hasCounts(usage: Usage): boolean {
  return ALL_COUNTS.some((field) => usage[field] !== undefined);
}
