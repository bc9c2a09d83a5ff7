// One turn's archive events as GenAI spans: an `invoke_agent` root opened by the user prompt, a `chat {model}`
// child per model response (from turn_usage), an `execute_tool {tool}` child per tool call closed by its
// result or error, subagents as nested `invoke_agent` under the call that spawned them, and session starts,
// ends and compactions as span events. Only named, content-free fields become attributes; prompts, answers
// and tool input/output go out only with the content opt-in, from the (already redacted) archive text: as
// the conventions' JSON-string span attributes, or as `gen_ai.client.inference.operation.details` log
// records correlated with the span (one per agent scope: its prompt, tool calls, tool results and answer).

import type { AgentNode, CallNode, Placement } from "../core/read/timeline/nodes.ts";
import { type Placed, type PlacementReader, readPlaced } from "../core/read/timeline/reader.ts";
import { completedSource, type UsageFacts } from "../core/read/usage-facts.ts";
import { usageFactsOf } from "../providers/usage-facts.ts";
import type { AnyValue, Attributes, ContentMode, LogRecord, ModelUsage, Span } from "./model.ts";
import { spanIdFor, traceIdFor } from "./model.ts";
import type { ArchiveEvent } from "./read.ts";
import { AGENT_NAME, ATTR, EVENT, OPERATION, PROMPT_ID_PROVIDERS, PROVIDER_NAME } from "./semconv.ts";
import { addUsage, fillUsage, type GenAiUsage, normalizeUsage } from "./usage.ts";

export interface SessionFacts {
  /** the archive's session id (`claude:<uuid>`) */
  sessionId: string;
  provider: string;
  /** the client's own id: what its native telemetry calls session.id */
  conversationId: string;
  /** attributes every span carries (conversation, session, run and arm) */
  common: Attributes;
  /** the session's model when its events name one (Codex's SessionStart does) */
  model?: string;
}

export interface TurnOptions {
  content: ContentMode;
  /** also write the usage attribute names the conventions renamed (OTEL_SEMCONV_STABILITY_OPT_IN dup) */
  legacyNames?: boolean;
  /** turn number over the session, 1-based */
  index: number;
}

/** A text field sent with the content opt-in is cut here: the archive bounds strings at 16 KB already. */
const MAX_CONTENT_CHARS = 16 * 1024;
/** A span name or a non-content attribute value is cut here. */
const MAX_NAME_CHARS = 256;
/** A log record's content in all: past it, further tool calls are left out of the record (and it says so). */
const MAX_RECORD_CHARS = 256 * 1024;

interface ToolState {
  span: Span;
  done: boolean;
  /** the call as a message part (content modes only) */
  part?: ToolPart;
}

interface ToolPart {
  id: string;
  name: string;
  arguments?: unknown;
  result?: string;
}

interface Scope {
  span: Span;
  /** the time of the scope's latest event: where its next chat span starts */
  lastMs: number;
  prompt?: string;
  answer?: string;
  /** its tool calls, in order, for the operation-details record */
  tools: ToolPart[];
  /** records another source completes, in order (Gemini's hook records await its chat file's counts) */
  awaiting: Array<{ source: string; span: Span; usage: GenAiUsage }>;
  usage: GenAiUsage;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function clip(text: string): string {
  return text.length > MAX_CONTENT_CHARS ? text.slice(0, MAX_CONTENT_CHARS) : text;
}

function json(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return "";
  }
}

/** The text a tool returned: stdout and stderr, text blocks, or the JSON of whatever else it is. */
function resultText(response: unknown): string {
  if (response === undefined || response === null) return "";
  if (typeof response === "string") return response;
  const r = response as Record<string, unknown>;
  if (typeof r.stdout === "string" || typeof r.stderr === "string") {
    return [r.stdout, r.stderr].filter((s) => typeof s === "string" && s !== "").join("\n");
  }
  if (Array.isArray(r.content)) {
    const texts = r.content.map((b) =>
      b && typeof b === "object" ? (b as { text?: unknown }).text : undefined,
    );
    if (texts.every((t) => typeof t === "string")) return texts.join("\n");
  }
  return json(response);
}

/** A chat span's usage: every count the client reported, under the conventions' current names. */
function usageAttrs(u: GenAiUsage, legacyNames: boolean): Attributes {
  const out: Attributes = {};
  if (u.input !== undefined) out[ATTR.inputTokens] = u.input;
  if (u.output !== undefined) out[ATTR.outputTokens] = u.output;
  if (u.cacheRead !== undefined) out[ATTR.cacheReadTokens] = u.cacheRead;
  if (u.cacheWrite !== undefined) {
    out[ATTR.cacheWriteTokens] = u.cacheWrite;
    if (legacyNames) out[ATTR.cacheCreationTokensLegacy] = u.cacheWrite;
  }
  if (u.reasoning !== undefined) out[ATTR.reasoningTokens] = u.reasoning;
  return out;
}

/** An invoke_agent span's usage: input and output only (the cache counts left these spans in #469). */
function agentUsageAttrs(u: GenAiUsage): Attributes {
  const out: Attributes = {};
  if (u.input !== undefined) out[ATTR.inputTokens] = u.input;
  if (u.output !== undefined) out[ATTR.outputTokens] = u.output;
  return out;
}

function bumpCount(span: Span, key: string, n: number): void {
  if (n <= 0) return;
  span.attributes[key] = ((span.attributes[key] as number | undefined) ?? 0) + n;
}

/**
 * One turn's spans, an event at a time through `add`: the reader's steps (prompt, call, ...) each map one
 * role of event and answer the span it went into, for its redaction counts.
 */
export class TurnMapper implements PlacementReader<ArchiveEvent, Span> {
  private readonly spans: Span[] = [];
  private readonly root: Scope;
  private readonly agents = new Map<AgentNode, Scope>();
  private readonly tools = new Map<CallNode, ToolState>();
  private readonly traceId: string;
  private endMs: number;
  private redactions = 0;
  private truncations = 0;
  private model: string | undefined;
  /** a compaction was recorded in the turn: the responses after it answered a compacted conversation */
  private compacted = false;
  private readonly promptId: string | undefined;
  private readonly logs: LogRecord[] = [];
  private readonly byModel = new Map<string, ModelUsage>();
  private readonly usageFacts: UsageFacts;
  /** the sources whose records another source's complete */
  private readonly completedSources: Set<string>;

  constructor(
    private readonly facts: SessionFacts,
    first: ArchiveEvent,
    prompt: ArchiveEvent | undefined,
    private readonly options: TurnOptions,
  ) {
    const opener = prompt ?? first;
    this.traceId = traceIdFor(facts.sessionId, opener.turnId ?? opener.eventId);
    this.endMs = first.timeMs;
    this.model = facts.model ?? str(prompt?.payload.model);
    this.usageFacts = usageFactsOf(facts.provider);
    this.completedSources = new Set(Object.values(this.usageFacts.completes ?? {}));
    if (PROMPT_ID_PROVIDERS.has(facts.provider) && opener.turnId) this.promptId = opener.turnId;
    const agentName = AGENT_NAME[facts.provider] ?? facts.provider;
    const span = this.newSpan(opener, undefined, `${OPERATION.invokeAgent} ${agentName}`, "internal");
    span.startMs = first.timeMs;
    Object.assign(span.attributes, {
      [ATTR.operationName]: OPERATION.invokeAgent,
      [ATTR.agentName]: agentName,
      "tapedeck.turn.index": options.index,
    });
    if (opener.turnId) span.attributes["tapedeck.turn.id"] = opener.turnId;
    this.root = { span, lastMs: first.timeMs, awaiting: [], usage: {}, tools: [] };
  }

  get id(): string {
    return this.traceId;
  }

  private newSpan(from: ArchiveEvent, parent: Span | undefined, name: string, kind: Span["kind"]): Span {
    const span: Span = {
      traceId: this.traceId,
      spanId: spanIdFor(this.facts.sessionId, from.eventId),
      ...(parent ? { parentSpanId: parent.spanId } : {}),
      name,
      kind,
      startMs: Number.NaN,
      endMs: Number.NaN,
      attributes: {
        ...this.facts.common,
        ...(this.promptId ? { [ATTR.promptId]: this.promptId } : {}),
        // The archive line it starts at. Not the event id: some ids hash the unredacted payload.
        "tapedeck.event.sequence": from.sequence,
      },
      events: [],
      status: { code: "unset" },
    };
    this.spans.push(span);
    return span;
  }

  /** The subagent's scope (the model names the running subagent an event belongs to), else the turn's. */
  private scopeOf(placed: Placement): Scope {
    return (placed.agent ? this.agents.get(placed.agent) : undefined) ?? this.root;
  }

  /** One event of the turn, where the turn model placed it. */
  add(e: ArchiveEvent, placed: Placement): void {
    if (Number.isFinite(e.timeMs)) this.endMs = Math.max(this.endMs, e.timeMs);
    this.redactions += e.redactions;
    this.truncations += e.truncations;
    const target = readPlaced(this, e, placed);
    bumpCount(target, "tapedeck.redaction.count", e.redactions);
    bumpCount(target, "tapedeck.truncation.count", e.truncations);
    const scope = this.scopeOf(placed);
    if (Number.isFinite(e.timeMs)) scope.lastMs = e.timeMs;
  }

  prompt(e: ArchiveEvent, placed: Placement): Span {
    const scope = this.scopeOf(placed);
    const text = str(e.payload.prompt);
    if (text !== undefined) scope.prompt = scope.prompt === undefined ? text : `${scope.prompt}\n\n${text}`;
    if (scope === this.root && Number.isFinite(e.timeMs) && !(this.root.span.startMs <= e.timeMs))
      this.root.span.startMs = e.timeMs;
    return scope.span;
  }

  answer(e: ArchiveEvent, placed: Placement): Span {
    const scope = this.scopeOf(placed);
    const text = str(e.payload.text) ?? str(e.payload.last_assistant_message);
    // Several messages in one turn (Codex, Gemini): the answer is all of them, in order.
    if (text !== undefined) scope.answer = scope.answer === undefined ? text : `${scope.answer}\n\n${text}`;
    return scope.span;
  }

  call(e: ArchiveEvent, placed: Placed<"call"> | Placed<"result">): Span {
    const scope = this.scopeOf(placed);
    const name = str(e.payload.tool_name) ?? "tool";
    const span = this.newSpan(e, scope.span, `${OPERATION.executeTool} ${name}`, "internal");
    span.startMs = e.timeMs;
    span.endMs = e.timeMs;
    const toolUseId = str(e.payload.tool_use_id);
    Object.assign(span.attributes, {
      [ATTR.operationName]: OPERATION.executeTool,
      [ATTR.toolName]: name,
      [ATTR.toolType]: "function",
      ...(toolUseId ? { [ATTR.toolCallId]: toolUseId } : {}),
    });
    const state: ToolState = { span, done: false };
    this.tools.set(placed.call, state);
    if (this.options.content !== "off") {
      state.part = { id: toolUseId ?? span.spanId, name };
      if (e.payload.tool_input !== undefined) state.part.arguments = e.payload.tool_input;
      scope.tools.push(state.part);
    }
    return span;
  }

  result(e: ArchiveEvent, placed: Placed<"result">): Span {
    const p = e.payload;
    const failed = placed.failed;
    let tool = this.tools.get(placed.call);
    if (!tool) {
      // A result whose call was not recorded: the span starts its stated duration before the result.
      const span = this.call({ ...e, kind: "tool_call" }, placed);
      tool = this.tools.get(placed.call)!;
      const duration = typeof p.duration_ms === "number" && p.duration_ms >= 0 ? p.duration_ms : 0;
      span.startMs = e.timeMs - duration;
      if (tool.part) delete tool.part.arguments;
    }
    const span = tool.span;
    const exit = typeof p.exit_code === "number" && Number.isInteger(p.exit_code) ? p.exit_code : undefined;
    if (exit !== undefined) span.attributes["tapedeck.tool.exit_code"] = exit;
    if (failed) {
      span.status = { code: "error" };
      span.attributes[ATTR.errorType] = e.kind === "tool_error" ? "tool_error" : "tool_failed";
    }
    // A second report of a finished call (Codex: the rollout's exit code after PostToolUse) only adds facts.
    if (tool.done) return span;
    tool.done = true;
    if (Number.isFinite(e.timeMs)) span.endMs = Math.max(span.startMs, e.timeMs);
    if (tool.part)
      tool.part.result = resultText(e.kind === "tool_error" ? (p.error ?? p.tool_response) : p.tool_response);
    return span;
  }

  agentStart(e: ArchiveEvent, placed: Placed<"agent_start">): Span {
    const started = placed.started;
    const id = started.agent_id;
    // The call that started it, as the turn model found it; the turn's root when none could have.
    const parentTool = started.parent ? this.tools.get(started.parent) : undefined;
    const parent = parentTool?.span ?? this.root.span;
    const type = started.agent_type ?? undefined;
    const span = this.newSpan(e, parent, `${OPERATION.invokeAgent} ${type ?? "subagent"}`, "internal");
    span.startMs = e.timeMs;
    span.endMs = e.timeMs;
    // The subagent's id is the client's instance id: not gen_ai.agent.id, which now names a hosted agent.
    Object.assign(span.attributes, {
      [ATTR.operationName]: OPERATION.invokeAgent,
      [ATTR.agentName]: type ?? "subagent",
      "tapedeck.agent.id": id,
    });
    const scope: Scope = { span, lastMs: e.timeMs, awaiting: [], usage: {}, tools: [] };
    const args = parentTool?.part?.arguments;
    // Claude's Agent call carries the task; Codex's child thread records its own prompt.
    const task = args && typeof args === "object" ? str((args as Record<string, unknown>).prompt) : undefined;
    if (task) scope.prompt = task;
    this.agents.set(started, scope);
    return span;
  }

  agentStop(e: ArchiveEvent, placed: Placed<"agent_stop">): Span {
    const scope = placed.stopped ? this.agents.get(placed.stopped) : undefined;
    if (!scope) return this.other(e, placed);
    if (Number.isFinite(e.timeMs)) scope.span.endMs = Math.max(scope.span.startMs, e.timeMs);
    const text = str(e.payload.last_assistant_message);
    if (text) scope.answer = text;
    scope.span.attributes["tapedeck.agent.stopped"] = true;
    return scope.span;
  }

  usage(e: ArchiveEvent, placed: Placed<"usage">): Span {
    const scope = this.scopeOf(placed);
    const u = e.usage;
    // Each response once: the transcript and the proxy can report the same one (the model counts ids).
    if (!u || !placed.counted) return scope.span;
    const messageId = str(u.message_id);
    const usage = normalizeUsage(this.facts.provider, u);
    const source = str(u.source);
    const completed = completedSource(this.usageFacts, source);
    const filled = completed !== undefined ? this.complete(scope, completed, usage) : undefined;
    if (filled) return filled;
    const model = str(u.model) ?? str(e.payload.model) ?? this.model ?? "unknown";
    this.model ??= model;
    const span = this.newSpan(e, scope.span, `${OPERATION.chat} ${model}`, "client");
    span.startMs = Math.min(scope.lastMs, e.timeMs);
    span.endMs = e.timeMs;
    const responseId = messageId ?? str(e.payload.response_id);
    const finish = str(e.payload.finish_reason);
    Object.assign(span.attributes, {
      [ATTR.operationName]: OPERATION.chat,
      [ATTR.requestModel]: model,
      [ATTR.responseModel]: model,
      ...(responseId ? { [ATTR.responseId]: responseId } : {}),
      ...(finish ? { [ATTR.finishReasons]: [finish.toLowerCase()] } : {}),
      ...(this.compacted ? { [ATTR.conversationCompacted]: true } : {}),
      [ATTR.providerName]: PROVIDER_NAME[this.facts.provider] ?? this.facts.provider,
      ...usageAttrs(usage, this.options.legacyNames === true),
      "tapedeck.usage.source": source ?? "unknown",
    });
    if (source !== undefined && this.completedSources.has(source))
      scope.awaiting.push({ source, span, usage });
    this.addToScopes(scope, usage);
    this.countModel(model, usage);
    return span;
  }

  /**
   * Another record of a response already reported (Gemini's chat file's): its counts fill the gaps of the
   * oldest record of the source it completes; undefined when none awaits it.
   */
  private complete(scope: Scope, source: string, usage: GenAiUsage): Span | undefined {
    const at = scope.awaiting.findIndex((a) => a.source === source);
    if (at < 0) return undefined;
    const [pending] = scope.awaiting.splice(at, 1);
    if (!pending) return undefined;
    const before = { ...pending.usage };
    fillUsage(pending.usage, usage);
    Object.assign(pending.span.attributes, usageAttrs(pending.usage, this.options.legacyNames === true));
    const added: GenAiUsage = {};
    for (const k of Object.keys(pending.usage) as Array<keyof GenAiUsage>)
      if (before[k] === undefined) added[k] = pending.usage[k];
    this.addToScopes(scope, added);
    this.countModel(str(pending.span.attributes[ATTR.requestModel]) ?? "unknown", added);
    return pending.span;
  }

  /** A response's counts for the usage counters, per model. */
  private countModel(model: string, u: GenAiUsage): void {
    const m = this.byModel.get(model) ?? {
      model,
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 0,
    };
    m.input += u.input ?? 0;
    m.output += u.output ?? 0;
    m.cacheRead += u.cacheRead ?? 0;
    m.cacheWrite += u.cacheWrite ?? 0;
    m.reasoning += u.reasoning ?? 0;
    this.byModel.set(model, m);
  }

  /** The turn's usage per model, once finished. */
  get usageByModel(): ModelUsage[] {
    return [...this.byModel.values()];
  }

  /** The turn's content as log records (the `logs` content mode), once finished. */
  get logRecords(): LogRecord[] {
    return this.logs;
  }

  /** A response's usage counts for its agent and for the turn's root. */
  private addToScopes(scope: Scope, usage: GenAiUsage): void {
    addUsage(scope.usage, usage);
    if (scope !== this.root) addUsage(this.root.usage, usage);
  }

  other(e: ArchiveEvent, placed: Placement): Span {
    const scope = this.scopeOf(placed);
    const p = e.payload;
    const at = e.timeMs;
    if (e.kind === "session_start") {
      scope.span.events.push({
        name: "tapedeck.session.start",
        timeMs: at,
        attributes: str(p.source) ? { "tapedeck.session.source": str(p.source)! } : {},
      });
      this.model ??= str(p.model);
    } else if (e.kind === "session_end") {
      scope.span.events.push({
        name: "tapedeck.session.end",
        timeMs: at,
        attributes: str(p.reason) ? { "tapedeck.session.end_reason": str(p.reason)! } : {},
      });
    } else if (e.kind === "compaction") {
      const attrs: Attributes = {};
      if (str(p.trigger)) attrs["tapedeck.compaction.trigger"] = str(p.trigger)!;
      if (str(p.phase)) attrs["tapedeck.compaction.phase"] = str(p.phase)!;
      this.compacted = true;
      scope.span.events.push({ name: "tapedeck.compaction", timeMs: at, attributes: attrs });
    } else if (p.failure === true) {
      this.root.span.status = { code: "error" };
      this.root.span.attributes[ATTR.errorType] = "turn_failed";
      scope.span.events.push({ name: "tapedeck.turn.failure", timeMs: at, attributes: {} });
    }
    return scope.span;
  }

  /** The turn's spans, every open one ended at the turn's last event. */
  finish(): Span[] {
    this.close();
    for (const s of this.spans) boundNames(s);
    return this.spans;
  }

  private close(): void {
    for (const s of this.spans) {
      if (!Number.isFinite(s.startMs)) s.startMs = this.root.span.startMs;
      if (!Number.isFinite(s.endMs) || s.endMs < s.startMs) s.endMs = Math.max(s.startMs, this.endMs);
    }
    for (const t of this.tools.values()) {
      if (t.done) continue;
      t.span.endMs = Math.max(t.span.startMs, this.endMs);
      t.span.attributes["tapedeck.tool.unfinished"] = true;
    }
    for (const scope of this.agents.values()) {
      if (scope.span.attributes["tapedeck.agent.stopped"] !== true)
        scope.span.endMs = Math.max(scope.span.startMs, this.endMs);
      this.finishScope(scope);
    }
    const root = this.root.span;
    root.endMs = Math.max(root.startMs, this.endMs);
    if (this.model) root.attributes[ATTR.requestModel] = this.model;
    root.attributes["tapedeck.turn.redaction.count"] = this.redactions;
    root.attributes["tapedeck.turn.truncation.count"] = this.truncations;
    this.finishScope(this.root);
  }

  private finishScope(scope: Scope): void {
    Object.assign(scope.span.attributes, agentUsageAttrs(scope.usage));
    if (this.options.content === "attributes") this.contentAttributes(scope);
    else if (this.options.content === "logs") this.contentLog(scope);
  }

  /** Content as the conventions' JSON-string span attributes: messages on the agent, calls on the tool. */
  private contentAttributes(scope: Scope): void {
    if (scope.prompt !== undefined)
      scope.span.attributes[ATTR.inputMessages] = json([
        { role: "user", parts: [{ type: "text", content: clip(scope.prompt) }] },
      ]);
    if (scope.answer !== undefined)
      scope.span.attributes[ATTR.outputMessages] = json([
        { role: "assistant", parts: [{ type: "text", content: clip(scope.answer) }] },
      ]);
    for (const tool of this.tools.values()) {
      if (!tool.part || !scope.tools.includes(tool.part)) continue;
      if (tool.part.arguments !== undefined)
        tool.span.attributes[ATTR.toolArguments] = clip(json(tool.part.arguments));
      if (tool.part.result !== undefined) tool.span.attributes[ATTR.toolResult] = clip(tool.part.result);
    }
  }

  /**
   * Content as one operation-details log record for the agent's span, in structured form: the prompt and
   * each tool result as input messages, each tool call and the answer as the output message, bounded.
   */
  private contentLog(scope: Scope): void {
    if (scope.prompt === undefined && scope.answer === undefined && scope.tools.length === 0) return;
    let budget = MAX_RECORD_CHARS;
    const take = (text: string): string => {
      const t = clip(text).slice(0, Math.max(0, budget));
      budget -= t.length;
      return t;
    };
    const input: AnyValue[] = [];
    const calls: AnyValue[] = [];
    if (scope.prompt !== undefined)
      input.push({ role: "user", parts: [{ type: "text", content: take(scope.prompt) }] });
    let left = 0;
    for (const t of scope.tools) {
      if (budget <= 0) {
        left += 1;
        continue;
      }
      calls.push({ type: "tool_call", id: t.id, name: t.name, arguments: take(json(t.arguments ?? {})) });
      if (t.result !== undefined)
        input.push({
          role: "tool",
          parts: [{ type: "tool_call_response", id: t.id, response: take(t.result) }],
        });
    }
    const answer = scope.answer !== undefined ? [{ type: "text", content: take(scope.answer) }] : [];
    const attributes: Record<string, AnyValue> = {
      ...(this.promptId ? { [ATTR.promptId]: this.promptId } : {}),
      [ATTR.conversationId]: this.facts.conversationId,
      [ATTR.sessionId]: this.facts.conversationId,
    };
    if (input.length > 0) attributes[ATTR.inputMessages] = input;
    if (calls.length > 0 || answer.length > 0)
      attributes[ATTR.outputMessages] = [{ role: "assistant", parts: [...calls, ...answer] }];
    if (left > 0) attributes["tapedeck.content.tool_calls_left_out"] = left;
    this.logs.push({
      traceId: this.traceId,
      spanId: scope.span.spanId,
      timeMs: scope.span.endMs,
      eventName: EVENT.operationDetails,
      attributes,
    });
  }
}

/** Content fields keep their own, larger bound (MAX_CONTENT_CHARS). */
const CONTENT_ATTRS = new Set<string>([
  ATTR.inputMessages,
  ATTR.outputMessages,
  ATTR.toolArguments,
  ATTR.toolResult,
]);

function cut(v: string): string {
  return v.length > MAX_NAME_CHARS ? `${v.slice(0, MAX_NAME_CHARS - 1)}…` : v;
}

function boundAttrs(attrs: Attributes): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (CONTENT_ATTRS.has(k)) continue;
    if (typeof v === "string") attrs[k] = cut(v);
    else if (Array.isArray(v)) attrs[k] = v.slice(0, 16).map(cut);
  }
}

/**
 * Names and identifiers come from the client's payload (a tool name, a model, an agent type) and are
 * bounded by the archive at 16 KB only; a span name that long breaks a trace view, so they are cut here.
 */
function boundNames(span: Span): void {
  span.name = cut(span.name);
  boundAttrs(span.attributes);
  for (const e of span.events) boundAttrs(e.attributes);
}
