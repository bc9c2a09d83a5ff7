// Codex CLI's rollout records as the events its hooks record (`tapedeck import`). Each record becomes the hook
// payload Codex would have sent (a user message is a UserPromptSubmit, a function call a PreToolUse, its
// CommandExecution or output a PostToolUse, a compaction a PostCompact) and goes through the hooks' normalizer
// (normalize.ts): the same envelope and, where the rollout carries what the hook's id is made of (thread, turn,
// call id), the same ids. Usage and failed commands are the hook path's own events (rollout-events.ts): one
// turn_usage per token_usage_record (a response's own count, never the running totals), one tool_error per
// command that exited non-zero or never ran.
//
// A subagent's rollout (its session_meta names the root thread in `session_id` and its own in `id`) is read
// into the root's session, its events carrying the child thread id as agent_id, as the hooks record them.
// Rollouts older than token_usage_record (Codex before it wrote one per response) have only `token_count`
// events, whose `last_token_usage` is read instead, once per change of the running total.
import { basename } from "node:path";
import type { NormalizedEvent } from "../../core/archive/event.ts";
import { contentText } from "../content-text.ts";
import { BoundedMap, type HistoryFile, type HistorySession, isoTime, shortString } from "../history.ts";
import { RecordMapper, setFields } from "../history-mapper.ts";
import { derivedId, digest, isRecord, type Payload } from "../shared.ts";
import { normalizeCodexHook } from "./normalize.ts";
import {
  codexUsage,
  type RolloutUsage,
  rolloutCommand,
  rolloutStartFailure,
  rolloutUsage,
} from "./rollout.ts";
import { errorEvent, type ReadScope, usageEvent } from "./rollout-events.ts";

const OPEN_CALLS_KEPT = 256;
const TURNS_KEPT = 256;
/** Call ids whose result was recorded from their CommandExecution: their function_call_output adds nothing. */
const DONE_KEPT = 1024;
/** Messages read, by turn and text: Codex writes each twice (its UI's event_msg and the model's response_item). */
const MESSAGES_KEPT = 1024;

/** The rollout's record types the mapper reads; any other is an unknown record, kept as a generic event. */
const RECORD_TYPES = new Set([
  "session_meta",
  "turn_context",
  "event_msg",
  "response_item",
  "token_usage_record",
  "compacted",
]);

/**
 * Codex's UI events that hold nothing the import keeps (reasoning deltas, the command's begin and end that its
 * function_call and output also carry, settings), counted as skipped. Another event_msg type is unknown.
 */
const SKIPPED_EVENTS = new Set([
  "agent_reasoning",
  "agent_reasoning_raw_content",
  "agent_reasoning_section_break",
  "agent_reasoning_delta",
  "agent_message_delta",
  "exec_command_begin",
  "exec_command_end",
  "exec_command_output_delta",
  "exec_approval_request",
  "apply_patch_approval_request",
  "patch_apply_begin",
  "patch_apply_end",
  "mcp_tool_call_begin",
  "mcp_tool_call_end",
  "web_search_begin",
  "web_search_end",
  "image_generation_begin",
  "image_generation_end",
  "view_image_tool_call",
  "context_compacted",
  "thread_settings_applied",
  "session_configured",
  "entered_review_mode",
  "exited_review_mode",
  "turn_diff",
  "plan_update",
  "background_event",
  "stream_error",
  "guardian_assessment",
  "sub_agent_activity",
  "item_started",
  "mcp_list_tools_response",
  "list_custom_prompts_response",
  "get_history_entry_response",
  "shutdown_complete",
  "user_message_delta",
  "thread_name_updated",
  "undo_started",
  "undo_completed",
]);

/** What Codex puts in the conversation as a user message that the user never typed. */
const CONTEXT_MESSAGE =
  /^\s*(<environment_context>|<user_instructions>|<permissions instructions>|<collaboration_mode>|<turn_aborted>|<user_shell_command>|# AGENTS\.md instructions)/;

export class CodexHistoryMapper extends RecordMapper {
  private readonly agentId: string | undefined;
  private model: string | undefined;
  private started: boolean;
  private stopped: boolean;
  /** A token_usage_record was seen: the file's token_count events repeat running totals, never read then. */
  private usageRecords: boolean;
  private lastTotal: number | undefined;
  private readonly calls: BoundedMap<string>;
  private readonly done: BoundedMap<number>;
  private readonly prompted: BoundedMap<number>;
  private readonly messages: BoundedMap<number>;
  /** An older rollout's last token_count without running totals: a repeat of it is the same response. */
  private lastCount: string | undefined;

  constructor(
    session: HistorySession,
    private readonly file: HistoryFile,
    state: Record<string, unknown> | undefined,
  ) {
    super(session.sessionId, state, file.firstAt ?? session.firstAt);
    this.agentId = file.role === "subagent" ? file.agentId : undefined;
    this.model = shortString(state?.model);
    this.started = state?.started === true;
    this.stopped = state?.stopped === true;
    this.usageRecords = state?.usage_records === true;
    this.lastTotal = typeof state?.last_total === "number" ? state.last_total : undefined;
    this.calls = BoundedMap.from(OPEN_CALLS_KEPT, state?.calls, (v): v is string => typeof v === "string");
    this.done = BoundedMap.from(DONE_KEPT, state?.done, (v): v is number => v === 1);
    this.prompted = BoundedMap.from(TURNS_KEPT, state?.prompted, (v): v is number => v === 1);
    this.messages = BoundedMap.from(MESSAGES_KEPT, state?.messages, (v): v is number => v === 1);
    this.lastCount = shortString(state?.last_count, 128);
    this.fileTag = this.agentId ?? basename(file.path);
  }

  protected map(record: Payload): NormalizedEvent[] {
    const type = shortString(record.type, 64);
    // Codex 0.14x's snapshot of the environment between turns: nothing of the conversation.
    if (type === "world_state") return this.skip(type);
    if (type === undefined && typeof record.id === "string" && "instructions" in record)
      return this.skip("session header (Codex 0.1x)");
    if (type === undefined || !RECORD_TYPES.has(type))
      return [this.place(this.unknown(type ?? "(no type)", record), this.turn)];
    const p = isRecord(record.payload) ? record.payload : undefined;
    if (!p) return this.skip(`${type}:(no payload)`);
    const out: NormalizedEvent[] = [];
    // A rollout without session_meta starts at its first record all the same.
    if (!this.started && type !== "session_meta") this.sessionMeta({}, out);
    switch (type) {
      case "session_meta":
        this.sessionMeta(p, out);
        break;
      case "turn_context":
        this.turnContext(p);
        break;
      case "event_msg":
        this.eventMsg(p, record, out);
        break;
      case "response_item":
        this.responseItem(p, record, out);
        break;
      case "token_usage_record":
        this.usageRecords = true;
        this.usage(rolloutUsage(p, this.lastAt), out);
        break;
      default:
        this.compacted(p, out);
        break;
    }
    return out;
  }

  state(): Record<string, unknown> {
    return setFields({
      started: this.started,
      calls: this.calls.entries(),
      done: this.done.entries(),
      prompted: this.prompted.entries(),
      messages: this.messages.entries(),
      last_count: this.lastCount,
      ...this.baseState(),
      model: this.model,
      stopped: this.stopped || undefined,
      usage_records: this.usageRecords || undefined,
      last_total: this.lastTotal,
    });
  }

  private sessionMeta(p: Payload, out: NormalizedEvent[]): void {
    if (this.started) return;
    this.started = true;
    if (this.agentId !== undefined) {
      const role = shortString(p.agent_role) ?? "default";
      out.push(this.hook("SubagentStart", { agent_type: role, agent_transcript_path: this.file.path }));
      return;
    }
    const fields: Payload = { source: "import" };
    const cwd = shortString(p.cwd, 4096);
    if (cwd !== undefined) fields.cwd = cwd;
    out.push(this.hook("SessionStart", fields));
  }

  private turnContext(p: Payload): void {
    this.model = shortString(p.model) ?? this.model;
    this.turn = shortString(p.turn_id) ?? this.turn;
  }

  private eventMsg(p: Payload, record: Payload, out: NormalizedEvent[]): void {
    const turn = shortString(p.turn_id);
    const type = shortString(p.type, 64) ?? "(no type)";
    if (type === "task_started") this.turn = turn ?? this.turn;
    else if (type === "item_completed" && isRecord(p.item)) this.item(p, p.item, turn ?? this.turn, out);
    else if (type === "user_message" && typeof p.message === "string")
      this.message("user", p.message, undefined, out);
    else if (type === "agent_message" && typeof p.message === "string")
      this.message("agent", p.message, undefined, out);
    else if (type === "token_count") {
      if (!this.usageRecords) this.tokenCount(p, out);
    } else if (type === "task_complete") this.taskComplete(p, out);
    else if (type === "turn_aborted") out.push(this.hook("Interrupt", { reason: p.reason }, turn));
    else if (type === "error" && typeof p.message === "string") {
      out.push(this.generic("turn_error", { failure: true, error: p.message }, turn));
    } else if (SKIPPED_EVENTS.has(type)) this.skip(`event_msg:${type}`);
    else out.push(this.place(this.unknown(`event_msg:${type}`, record), turn ?? this.turn));
  }

  private item(p: Payload, item: Payload, turn: string | undefined, out: NormalizedEvent[]): void {
    if (item.type === "UserMessage")
      this.message("user", contentText(item.content), shortString(item.id), out, turn);
    else if (item.type === "AgentMessage")
      this.message("agent", contentText(item.content), shortString(item.id), out, turn);
    else if (item.type === "CommandExecution") {
      const command = rolloutCommand(p, this.lastAt);
      if (!command) return;
      this.calls.delete(command.call_id);
      this.done.set(command.call_id, 1);
      const fields: Payload = {
        tool_name: "Bash",
        tool_use_id: command.call_id,
        tool_response: command.output ?? "",
      };
      out.push(this.hook("PostToolUse", fields, command.turn_id ?? turn));
      // Codex has no failure hook: the hook path records a failed command from this record too.
      if ((command.exit_code !== null && command.exit_code !== 0) || command.start_error !== undefined)
        out.push(this.stamp(errorEvent(command, this.scope(turn))));
    }
  }

  private responseItem(p: Payload, record: Payload, out: NormalizedEvent[]): void {
    const turn = turnOfItem(p) ?? this.turn;
    const type = shortString(p.type, 64) ?? "(no type)";
    if (type === "function_call" || type === "custom_tool_call" || type === "local_shell_call") {
      const id = shortString(p.call_id) ?? shortString(p.id);
      const { name, input } = toolCall(p);
      if (id !== undefined && name !== undefined) this.calls.set(id, name);
      out.push(this.hook("PreToolUse", { tool_name: name, tool_input: input, tool_use_id: id }, turn));
      return;
    }
    if (type === "function_call_output" || type === "custom_tool_call_output") {
      this.callOutput(p, turn, out);
      return;
    }
    if (type === "message") {
      this.responseMessage(p, out, turn);
      return;
    }
    if (type === "reasoning" || type === "ghost_snapshot" || type === "compaction_summary") {
      this.skip(`response_item:${type}`);
      return;
    }
    // A hosted tool (web_search_call, image_generation_call, tool_search_call, and those to come): the call
    // and its result in one item, run by the API rather than by Codex.
    if (type.endsWith("_call")) {
      this.hostedCall(type, p, turn, out);
      return;
    }
    if (type.endsWith("_call_output")) {
      this.callOutput(p, turn, out);
      return;
    }
    out.push(this.place(this.unknown(`response_item:${type}`, record), turn));
  }

  private callOutput(p: Payload, turn: string | undefined, out: NormalizedEvent[]): void {
    const id = shortString(p.call_id) ?? shortString(p.id);
    if (id === undefined || this.done.has(id)) return;
    const failed = rolloutStartFailure(p, this.lastAt);
    if (failed) {
      out.push(this.stamp(errorEvent(failed, this.scope(turn))));
      return;
    }
    const name = this.calls.get(id);
    this.calls.delete(id);
    this.done.set(id, 1);
    out.push(
      this.hook(
        "PostToolUse",
        { tool_name: name, tool_use_id: id, tool_response: outputText(p.output) },
        turn,
      ),
    );
  }

  /** A hosted tool's item: its call (what it was asked: the action, the query) and, once done, its result. */
  private hostedCall(type: string, p: Payload, turn: string | undefined, out: NormalizedEvent[]): void {
    const name = type.slice(0, -"_call".length);
    const id = shortString(p.call_id) ?? shortString(p.id) ?? `${this.fileTag}@${this.offset}`;
    const { type: _t, id: _i, call_id: _c, status, result, output, ...input } = p;
    out.push(this.hook("PreToolUse", { tool_name: name, tool_input: input, tool_use_id: id }, turn));
    if (this.done.has(id)) return;
    const response: Payload = {};
    if (status !== undefined) response.status = status;
    if (result !== undefined) response.result = result;
    if (output !== undefined) response.output = output;
    if (status === "in_progress" || status === "searching" || status === "generating") {
      this.calls.set(id, name);
      return;
    }
    this.done.set(id, 1);
    this.calls.delete(id);
    out.push(this.hook("PostToolUse", { tool_name: name, tool_use_id: id, tool_response: response }, turn));
  }

  /** The model's conversation item: a prompt or an answer, unless its UI event already gave it. */
  private responseMessage(p: Payload, out: NormalizedEvent[], turn: string | undefined): void {
    const role = shortString(p.role, 32);
    const text = contentText(p.content);
    if (role !== "user" && role !== "assistant") {
      this.skip(`response_item:message:${role ?? "(no role)"}`);
      return;
    }
    if (text === undefined || text.trim() === "") return;
    if (role === "user" && CONTEXT_MESSAGE.test(text)) {
      this.skip("response_item:message:context");
      return;
    }
    this.message(role === "user" ? "user" : "agent", text, shortString(p.id), out, turn);
  }

  /** The user's message (a prompt) or the agent's (an answer) in `turn`; a blank one is neither. */
  private message(
    from: "user" | "agent",
    text: string | undefined,
    id: string | undefined,
    out: NormalizedEvent[],
    turn: string | undefined = this.turn,
  ): void {
    if (text === undefined || text.trim() === "") return;
    const key = `${this.agentId ?? ""}:${turn ?? ""}:${from}:${digest(text.trim()).slice(0, 32)}`;
    if (this.messages.has(key)) return;
    this.messages.set(key, 1);
    out.push(from === "user" ? this.prompt(text, id, turn) : this.answer(text, id, turn));
  }

  private prompt(text: string, id: string | undefined, turn: string | undefined): NormalizedEvent {
    const event = this.hook("UserPromptSubmit", { prompt: text }, turn);
    // The hook's id is one per turn; a second message in the turn (a steer) keeps one of its own.
    if (turn === undefined || this.prompted.has(`${this.agentId ?? ""}:${turn}`))
      event.event_id = derivedId("user_prompt", id ?? `${this.file.path}@${this.lastAt}`);
    else this.prompted.set(`${this.agentId ?? ""}:${turn}`, 1);
    return event;
  }

  private answer(text: string, id: string | undefined, turn: string | undefined): NormalizedEvent {
    const event: NormalizedEvent = {
      kind: "assistant_message",
      event_id: derivedId("assistant_message", id ?? `${this.file.path}@${this.lastAt}`),
      payload: { text, source: "codex-rollout", ...(id !== undefined ? { message_id: id } : {}) },
      optional_fields: ["text"],
    };
    return this.place(event, turn);
  }

  private taskComplete(p: Payload, out: NormalizedEvent[]): void {
    if (this.agentId === undefined || this.stopped) return;
    this.stopped = true;
    const last = typeof p.last_agent_message === "string" ? p.last_agent_message : undefined;
    const fields: Payload = {
      agent_type: "default",
      agent_transcript_path: this.file.path,
      last_assistant_message: last,
    };
    out.push(this.hook("SubagentStop", fields, shortString(p.turn_id) ?? this.turn));
  }

  private usage(entry: RolloutUsage | undefined, out: NormalizedEvent[]): void {
    if (!entry) return;
    if (this.model !== undefined && entry.model === undefined) {
      entry.model = this.model;
      entry.usage.model = this.model;
    }
    out.push(this.stamp(usageEvent(entry, this.scope(entry.turn_id ?? this.turn)), entry.timestamp));
  }

  /** An older rollout's usage: `last_token_usage` whenever the running total moved (repeats leave it). */
  private tokenCount(p: Payload, out: NormalizedEvent[]): void {
    const info = isRecord(p.info) ? p.info : undefined;
    const total = isRecord(info?.total_token_usage) ? info.total_token_usage.total_tokens : undefined;
    let id: string;
    if (typeof total === "number") {
      if (total === this.lastTotal) return;
      this.lastTotal = total;
      id = `${this.agentId ?? this.session}:total-${total}`;
    } else {
      // Only last_token_usage (some Codex 0.4x-0.5x builds): Codex writes a response's count once or twice in
      // a row; a count equal to the one just before is that repeat, any other a response of its own.
      if (!isRecord(info?.last_token_usage)) return;
      const count = digest(info.last_token_usage).slice(0, 32);
      if (count === this.lastCount) return;
      this.lastCount = count;
      id = `${this.agentId ?? this.session}:last-${this.fileTag}@${this.offset}`;
    }
    const usage = codexUsage(info?.last_token_usage, id);
    if (!usage) return;
    const entry: RolloutUsage = { response_id: id, usage };
    if (this.lastAt !== undefined) entry.timestamp = this.lastAt;
    if (this.turn !== undefined) entry.turn_id = this.turn;
    if (this.agentId !== undefined) entry.thread_id = this.agentId;
    entry.session_id = this.session;
    this.usage(entry, out);
  }

  private compacted(p: Payload, out: NormalizedEvent[]): void {
    const event = this.hook("PostCompact", {}, this.turn);
    if (typeof p.message === "string") event.payload.compact_summary = p.message;
    event.optional_fields = ["compact_summary"];
    out.push(event);
  }

  private scope(turn: string | undefined): ReadScope {
    return { turnId: turn, agentId: this.agentId, rootThreadId: this.session };
  }

  /** The event Codex's hook `name` would have given, through the hooks' own normalizer. */
  private hook(name: string, fields: Payload, turn?: string): NormalizedEvent {
    const payload = this.hookPayload(name, {
      ...fields,
      turn_id: turn,
      agent_id: this.agentId,
      model: name === "SessionStart" ? this.model : undefined,
    });
    const event = normalizeCodexHook(payload, {}).events[0]!;
    return this.stamp(event);
  }

  private generic(type: string, fields: Payload, turn: string | undefined): NormalizedEvent {
    const event: NormalizedEvent = {
      kind: "provider_event",
      event_id: derivedId(
        "provider_event",
        `${type}:${this.agentId ?? this.session}:${this.lastAt}:${String(fields.error)}`,
      ),
      payload: { type, ...fields },
    };
    return this.place(event, turn);
  }

  private place(event: NormalizedEvent, turn: string | undefined): NormalizedEvent {
    if (turn !== undefined) event.turn_id = turn;
    if (this.agentId !== undefined) event.agent_id = this.agentId;
    return this.stamp(event);
  }

  private stamp(event: NormalizedEvent, at = this.lastAt): NormalizedEvent {
    const time = isoTime(at) ?? this.lastAt;
    if (time !== undefined) event.timestamp = time;
    else delete event.timestamp;
    return event;
  }
}

/** The tool name and input the hooks report: Codex's shell tools are "Bash" with `{command}`. */
function toolCall(p: Payload): { name: string | undefined; input: unknown } {
  const name = shortString(p.name);
  const args = parseArguments(p.arguments ?? p.input);
  if (p.type === "local_shell_call" && isRecord(p.action))
    return { name: "Bash", input: { command: commandText(p.action.command) } };
  if (name === "exec_command" && isRecord(args) && typeof args.cmd === "string")
    return { name: "Bash", input: { command: args.cmd } };
  if ((name === "shell" || name === "container.exec") && isRecord(args))
    return { name: "Bash", input: { command: commandText(args.command) } };
  // A namespaced tool is named as the hooks name it: the namespace glued to the name.
  const namespace = shortString(p.namespace);
  return { name: namespace !== undefined && name !== undefined ? `${namespace}${name}` : name, input: args };
}

function parseArguments(value: unknown): unknown {
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/** argv (older Codex: ["bash", "-lc", "..."]) as the one command line the hooks show. */
function commandText(value: unknown): unknown {
  if (!Array.isArray(value)) return value;
  const argv = value.filter((v): v is string => typeof v === "string");
  if (argv.length === 3 && /(^|\/)(ba|z|)sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2];
  return argv.join(" ");
}

function turnOfItem(p: Payload): string | undefined {
  const meta = p.internal_chat_message_metadata_passthrough;
  return isRecord(meta) ? shortString(meta.turn_id) : undefined;
}

/** A function_call_output's output: a string, or (newer Codex) content items. */
function outputText(value: unknown): unknown {
  if (typeof value === "string" || value === undefined) return value ?? "";
  if (isRecord(value) && typeof value.content === "string") return value.content;
  return contentText(value) ?? value;
}
