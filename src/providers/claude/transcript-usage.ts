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
import { closeSync, constants, fstatSync } from "node:fs";
import { openRegularSync } from "../../core/fsutil.ts";
import type { Usage } from "../../core/schemas.ts";
import { scanCompleteLines } from "../read-lines.ts";

export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export interface TranscriptUsage {
  message_id: string;
  /** When Claude wrote a transcript line of the message (the last one read: each content block has one). */
  timestamp?: string;
  model?: string;
  request_id?: string;
  usage: Usage;
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
  let fd: number;
  try {
    // Claude's own file, so a symlink is followed; but a FIFO planted there must not block the hook.
    fd = openRegularSync(transcriptPath, constants.O_RDONLY, undefined, true);
  } catch {
    return { offset: fromOffset, usages: [] };
  }
  try {
    const size = fstatSync(fd).size;
    // A file smaller than our offset was rewritten or replaced: start over.
    const start = Number.isSafeInteger(fromOffset) && fromOffset >= 0 && fromOffset <= size ? fromOffset : 0;
    const window = Number.isFinite(maxBytes) && maxBytes >= 1 ? Math.floor(maxBytes) : DEFAULT_MAX_BYTES;
    const end = Math.min(size, start + window);
    const collector = new UsageCollector(seenMessageIds);
    const lineEnd = scanCompleteLines(fd, start, end, (line) => collector.add(line));
    // One line longer than the whole window would pin the offset forever.
    // Skip past the window instead; the rest of that line then fails to parse
    // as JSON on the next call and is dropped like any malformed line.
    const offset = lineEnd === start && end < size ? end : lineEnd;
    return { offset, usages: collector.result() };
  } catch {
    // Usage is best effort: a read error must never fail the hook.
    return { offset: fromOffset, usages: [] };
  } finally {
    closeSync(fd);
  }
}

class UsageCollector {
  private readonly seen: Set<string>;
  private readonly byMessage = new Map<string, TranscriptUsage>();

  constructor(seenMessageIds: Iterable<string>) {
    this.seen = new Set(seenMessageIds);
  }

  add(line: Buffer): void {
    // Cheap byte test first: most lines (attachments, request blobs, prompt
    // snapshots) are large and irrelevant, and JSON.parse dominates the cost.
    if (!line.includes('"assistant"') || !line.includes('"usage"')) return;
    const entry = usageFromRecord(parseJson(line.toString("utf8")));
    if (!entry || this.seen.has(entry.message_id)) return;
    // Map.set keeps the first insertion position but takes the later value:
    // the last block record of a message carries its final output_tokens.
    this.byMessage.set(entry.message_id, entry);
  }

  result(): TranscriptUsage[] {
    return [...this.byMessage.values()];
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function usageFromRecord(record: unknown): TranscriptUsage | undefined {
  if (!isRecord(record) || record.type !== "assistant") return undefined;
  // API error records are synthesized locally: no request was billed.
  if (record.isApiErrorMessage === true) return undefined;
  const message = record.message;
  if (!isRecord(message) || typeof message.id !== "string" || message.id === "") return undefined;
  const model = typeof message.model === "string" ? message.model : undefined;
  // Claude also writes locally generated "<synthetic>" assistant turns with zero usage.
  if (model === "<synthetic>") return undefined;
  const usage = anthropicUsage(message.usage, "claude-transcript", model, message.id);
  if (!usage) return undefined;
  const entry: TranscriptUsage = { message_id: message.id, usage };
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
  const total = count(toolResponse.totalTokens);
  if (total !== undefined) usage.total_tokens = total;
  return hasCounts(usage) ? usage : undefined;
}

type UsageCountField =
  | "input_tokens"
  | "output_tokens"
  | "cache_creation_input_tokens"
  | "cache_read_input_tokens"
  | "reasoning_output_tokens"
  | "total_tokens";

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
    const value = count(raw[field]);
    if (value !== undefined) usage[field] = value;
  }
  // Thinking tokens are a subset of output_tokens, like Codex's reasoning count.
  const details = raw.output_tokens_details;
  const thinking = isRecord(details) ? count(details.thinking_tokens) : undefined;
  if (thinking !== undefined) usage.reasoning_output_tokens = thinking;
  return hasCounts(usage) ? usage : undefined;
}

function hasCounts(usage: Usage): boolean {
  return ALL_COUNTS.some((field) => usage[field] !== undefined);
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
