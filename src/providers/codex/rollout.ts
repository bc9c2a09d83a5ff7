// Reads what the hooks do not carry from a Codex rollout file
// (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`):
//
// (a) Token usage per API response. Each response writes one
//     `token_usage_record` line: `{response_id, turn_id, thread_id,
//     session_id, usage{...}, turn_token_usage, thread_token_usage}`. Only
//     `usage` is that response's own count; `turn_token_usage` and
//     `thread_token_usage` are running totals (as are `token_count` events and
//     `codex exec --json`'s `turn.completed.usage`), so they are never used.
//
// (b) Exit codes of shell commands. Codex has no failure hook: a command that
//     exits non-zero gets an ordinary PostToolUse. The rollout's
//     `event_msg` / `item_completed` line with a `CommandExecution` item has
//     `exit_code`, `command` (argv), `duration{secs,nanos}` and `status`, and
//     its item `id` IS the Responses `call_id` of the model's `function_call`
//     (`exec_command`), which is also the hooks' `tool_use_id`. So the link is
//     direct; nothing is inferred from order.
//
// (c) Commands that never ran. A command the user declined (or that could
//     not be started) gets no CommandExecution and no PostToolUse, only the
//     model's `function_call_output` with the call id, whose output reads
//     `exec_command failed: CreateProcess { message: "Rejected(\"rejected by
//     user\")" }` (measured with Codex 0.171's app-server). It is reported
//     as a command with no exit code and a `start_error`.
//
// A rollout grows for the whole session (resume appends to the same file) and
// holds big lines (session_meta with the base instructions, world_state,
// compacted history), so callers keep the returned offset and read only what
// was appended since. Only complete lines are parsed.
import type { Usage } from "../../core/archive/schemas.ts";
import { DEFAULT_MAX_BYTES, readAppendedLines } from "../appended-lines.ts";
import { isRecord } from "../shared.ts";
import { countOf, type UsageCountField } from "../usage-counts.ts";

export interface RolloutUsage {
  response_id: string;
  /** When Codex wrote the record. */
  timestamp?: string;
  turn_id?: string;
  /** The thread that made the request: the child's thread id inside a subagent. */
  thread_id?: string;
  /** The root thread (the hooks' session_id). */
  session_id?: string;
  model?: string;
  usage: Usage;
}

export interface RolloutCommand {
  /** The CommandExecution item id = the function_call's call_id = the hooks' tool_use_id. */
  call_id: string;
  /** When Codex wrote the record. */
  timestamp?: string;
  turn_id?: string;
  thread_id?: string;
  exit_code: number | null;
  /** As Codex wrote it: usually argv, e.g. ["/bin/bash", "-lc", "echo hello"]. */
  command?: unknown;
  duration_ms?: number;
  status?: string;
  source?: string;
  output?: string;
  /** Why the command never ran (declined, or it could not be started): the function_call_output's text. */
  start_error?: string;
}

export interface RolloutCursor {
  /** Byte offset just past the last complete line read. */
  offset: number;
  /** Response ids already reported (a restart from 0 must not report them again). */
  seen?: Iterable<string>;
  /** The model of the last turn_context read, for usage whose turn context came in an earlier read. */
  model?: string;
}

export interface RolloutRead {
  /** Where the next call should start. */
  offset: number;
  /** The model of the last turn_context seen so far (this read or the cursor's). */
  model?: string;
  /** One entry per new response id, in file order. */
  usages: RolloutUsage[];
  /** One entry per CommandExecution call id completed in this read, in file order. */
  commands: RolloutCommand[];
}

/**
 * Reads the records appended to a rollout since `cursor.offset`.
 *
 * A file now smaller than the offset was rewritten or replaced: reading
 * restarts at 0 (response ids in `cursor.seen` are still skipped). A trailing
 * partial line (Codex may be mid-write) is left for the next call. Never
 * throws: an unreadable file leaves the cursor where it was.
 */
export function readRollout(
  path: string,
  cursor: RolloutCursor = { offset: 0 },
  maxBytes: number = DEFAULT_MAX_BYTES,
): RolloutRead {
  const fromOffset = cursor.offset;
  const unchanged: RolloutRead = { offset: fromOffset, usages: [], commands: [] };
  if (cursor.model !== undefined) unchanged.model = cursor.model;
  const read = readAppendedLines(
    path,
    fromOffset,
    maxBytes,
    (start) => new RolloutCollector(cursor.seen ?? [], start === fromOffset ? cursor.model : undefined),
  );
  return read ? { offset: read.offset, ...read.sink.result() } : unchanged;
}

const TOKEN_USAGE_MARK = Buffer.from('"token_usage_record"');
const COMMAND_MARK = Buffer.from('"CommandExecution"');
const TURN_CONTEXT_MARK = Buffer.from('"turn_context"');
const START_FAILED_PREFIX = "exec_command failed: ";
const START_FAILED_MARK = Buffer.from(START_FAILED_PREFIX);

class RolloutCollector {
  private readonly seen: Set<string>;
  private readonly usages = new Map<string, { entry: RolloutUsage; modelAtLine: string | undefined }>();
  private readonly commands = new Map<string, RolloutCommand>();
  private readonly turnModels = new Map<string, string>();
  private model: string | undefined;

  constructor(seenResponseIds: Iterable<string>, model: string | undefined) {
    this.seen = new Set(seenResponseIds);
    this.model = model;
  }

  add(line: Buffer): void {
    // Cheap byte tests first: most lines are irrelevant, some are large, and
    // JSON.parse dominates the cost.
    if (
      !line.includes(TOKEN_USAGE_MARK) &&
      !line.includes(COMMAND_MARK) &&
      !line.includes(TURN_CONTEXT_MARK) &&
      !line.includes(START_FAILED_MARK)
    ) {
      return;
    }
    const record = parseJson(line.toString("utf8"));
    if (!isRecord(record) || !isRecord(record.payload)) return;
    const payload = record.payload;
    const at = nonEmptyString(record.timestamp);
    if (record.type === "token_usage_record") this.addUsage(payload, at);
    else if (record.type === "event_msg") this.addCommand(payload, at);
    else if (record.type === "turn_context") this.addTurnContext(payload);
    else if (record.type === "response_item") this.addStartFailure(payload, at);
  }

  private addStartFailure(p: Record<string, unknown>, at: string | undefined): void {
    const command = rolloutStartFailure(p, at);
    // A command that ran has its CommandExecution: that record says more.
    if (command === undefined || this.commands.has(command.call_id)) return;
    this.commands.set(command.call_id, command);
  }

  private addUsage(p: Record<string, unknown>, at: string | undefined): void {
    const responseId = nonEmptyString(p.response_id);
    if (responseId === undefined || this.seen.has(responseId) || this.usages.has(responseId)) return;
    const entry = rolloutUsage(p, at);
    if (!entry) return;
    // The first record of a response wins; a repeat (e.g. after a resume) is not counted twice.
    this.usages.set(responseId, { entry, modelAtLine: this.model });
  }

  private addCommand(p: Record<string, unknown>, at: string | undefined): void {
    const command = rolloutCommand(p, at);
    if (command === undefined) return;
    // A call completes once; should it appear again, the later state is the final one.
    this.commands.delete(command.call_id);
    this.commands.set(command.call_id, command);
  }

  private addTurnContext(p: Record<string, unknown>): void {
    const model = nonEmptyString(p.model);
    if (model === undefined) return;
    this.model = model;
    const turnId = nonEmptyString(p.turn_id);
    if (turnId !== undefined) this.turnModels.set(turnId, model);
  }

  result(): Omit<RolloutRead, "offset"> {
    const usages = [...this.usages.values()].map(({ entry, modelAtLine }) => {
      // A compaction turn writes its usage before its turn_context, so the
      // turn's own context (from anywhere in this read) wins over the last one seen.
      const model =
        (entry.turn_id !== undefined ? this.turnModels.get(entry.turn_id) : undefined) ?? modelAtLine;
      if (model !== undefined) {
        entry.model = model;
        entry.usage.model = model;
      }
      return entry;
    });
    const out: Omit<RolloutRead, "offset"> = { usages, commands: [...this.commands.values()] };
    if (this.model !== undefined) out.model = this.model;
    return out;
  }
}

/** A `token_usage_record` payload: that one response's own usage (never the running totals beside it). */
export function rolloutUsage(p: Record<string, unknown>, at: string | undefined): RolloutUsage | undefined {
  const responseId = nonEmptyString(p.response_id);
  if (responseId === undefined) return undefined;
  const usage = codexUsage(p.usage, responseId);
  if (!usage) return undefined;
  const entry: RolloutUsage = { response_id: responseId, usage };
  if (at !== undefined) entry.timestamp = at;
  setString(entry, "turn_id", p.turn_id);
  setString(entry, "thread_id", p.thread_id);
  setString(entry, "session_id", p.session_id);
  return entry;
}

/** An `event_msg` payload that completes a CommandExecution item: its call id, exit code, output. */
export function rolloutCommand(
  p: Record<string, unknown>,
  at: string | undefined,
): RolloutCommand | undefined {
  if (p.type !== "item_completed" || !isRecord(p.item) || p.item.type !== "CommandExecution")
    return undefined;
  const item = p.item;
  const callId = nonEmptyString(item.id);
  if (callId === undefined) return undefined;
  const command: RolloutCommand = { call_id: callId, exit_code: integer(item.exit_code) ?? null };
  if (at !== undefined) command.timestamp = at;
  setString(command, "turn_id", p.turn_id);
  setString(command, "thread_id", p.thread_id);
  if (item.command !== undefined) command.command = item.command;
  const duration = durationMs(item.duration);
  if (duration !== undefined) command.duration_ms = duration;
  setString(command, "status", item.status);
  setString(command, "source", item.source);
  if (typeof item.aggregated_output === "string") command.output = item.aggregated_output;
  return command;
}

/** A `function_call_output` saying the command could not be started (declined, or no process). */
export function rolloutStartFailure(
  p: Record<string, unknown>,
  at: string | undefined,
): RolloutCommand | undefined {
  if (p.type !== "function_call_output" || typeof p.output !== "string") return undefined;
  if (!p.output.startsWith(START_FAILED_PREFIX)) return undefined;
  const callId = nonEmptyString(p.call_id);
  if (callId === undefined) return undefined;
  const command: RolloutCommand = { call_id: callId, exit_code: null, start_error: p.output };
  if (at !== undefined) command.timestamp = at;
  const meta = p.internal_chat_message_metadata_passthrough;
  if (isRecord(meta)) setString(command, "turn_id", meta.turn_id);
  return command;
}

/**
 * Maps a Codex (OpenAI Responses) usage object. Note the OpenAI semantics:
 * `input_tokens` includes the cached tokens (`cached_input_tokens` is a
 * subset), `output_tokens` includes `reasoning_output_tokens`, and
 * `total_tokens` = input + output. Counts are kept as reported.
 */
export function codexUsage(raw: unknown, responseId?: string): Usage | undefined {
  if (!isRecord(raw)) return undefined;
  const usage: Usage = { source: "codex-transcript" };
  if (responseId !== undefined) usage.message_id = responseId;
  let any = false;
  for (const [from, to] of USAGE_FIELDS) {
    const value = countOf(raw[from]);
    if (value === undefined) continue;
    usage[to] = value;
    any = true;
  }
  return any ? usage : undefined;
}

const USAGE_FIELDS: ReadonlyArray<readonly [string, UsageCountField]> = [
  ["input_tokens", "input_tokens"],
  ["cached_input_tokens", "cache_read_input_tokens"],
  ["cache_write_input_tokens", "cache_creation_input_tokens"],
  ["output_tokens", "output_tokens"],
  ["reasoning_output_tokens", "reasoning_output_tokens"],
  ["total_tokens", "total_tokens"],
];

/** Rust's Duration as serialized by Codex: `{secs, nanos}`; to milliseconds with microsecond precision. */
function durationMs(value: unknown): number | undefined {
  if (!isRecord(value)) return undefined;
  const secs = countOf(value.secs);
  const nanos = countOf(value.nanos);
  if (secs === undefined || nanos === undefined) return undefined;
  return Math.round(secs * 1e6 + nanos / 1e3) / 1e3;
}

function setString<T extends object>(target: T, key: keyof T & string, value: unknown): void {
  const text = nonEmptyString(value);
  if (text !== undefined) (target as Record<string, unknown>)[key] = text;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function integer(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) ? value : undefined;
}

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
