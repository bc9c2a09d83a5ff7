// One turn's archive events as GenAI spans: an `invoke_agent` root opened by the user prompt, a `chat {model}`
// child per model response (from turn_usage), an `execute_tool {tool}` child per tool call closed by its
// result or error, subagents as nested `invoke_agent` under the call that spawned them, and session starts,
// ends and compactions as span events. Only named, content-free fields become attributes; prompts, answers
// and tool input/output go out only with the content opt-in, from the (already redacted) archive text.

import type { AgentNode, CallNode, Placement } from "../core/read/timeline/nodes.ts";
import { type Placed, type PlacementReader, readPlaced } from "../core/read/timeline/reader.ts";
import { completedSource, type UsageFacts } from "../core/read/usage-facts.ts";
import { usageFactsOf } from "../providers/usage-facts.ts";
import type { Attributes, Span } from "./model.ts";
import { spanIdFor, traceIdFor } from "./model.ts";
import type { ArchiveEvent } from "./read.ts";
import { AGENT_NAME, ATTR, EVENT, OPERATION, PROVIDER_NAME } from "./semconv.ts";
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
  content: boolean;
  /** turn number over the session, 1-based */
  index: number;
}

/** A text field sent with the content opt-in is cut here: the archive bounds strings at 16 KB already. */
const MAX_CONTENT_CHARS = 16 * 1024;
/** A span name or a non-content attribute value is cut here. */
const MAX_NAME_CHARS = 256;

interface ToolState {
  span: Span;
  done: boolean;
}

interface Scope {
  span: Span;
  /** the time of the scope's latest event: where its next chat span starts */
  lastMs: number;
  prompt?: string;
  answer?: string;
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

function usageAttrs(u: GenAiUsage): Attributes {
  const out: Attributes = {};
  if (u.input !== undefined) out[ATTR.inputTokens] = u.input;
  if (u.output !== undefined) out[ATTR.outputTokens] = u.output;
  if (u.cacheRead !== undefined) out[ATTR.cacheReadTokens] = u.cacheRead;
  if (u.cacheCreation !== undefined) out[ATTR.cacheCreationTokens] = u.cacheCreation;
  if (u.reasoning !== undefined) out[ATTR.reasoningTokens] = u.reasoning;
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
    const agentName = AGENT_NAME[facts.provider] ?? facts.provider;
    const span = this.newSpan(opener, undefined, `${OPERATION.invokeAgent} ${agentName}`, "internal");
    span.startMs = first.timeMs;
    Object.assign(span.attributes, {
      [ATTR.operationName]: OPERATION.invokeAgent,
      [ATTR.agentName]: agentName,
      [ATTR.agentId]: facts.conversationId,
      "tapedeck.turn.index": options.index,
    });
    if (opener.turnId) span.attributes["tapedeck.turn.id"] = opener.turnId;
    this.root = { span, lastMs: first.timeMs, awaiting: [], usage: {} };
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
        [ATTR.providerName]: PROVIDER_NAME[this.facts.provider] ?? this.facts.provider,
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
    this.tools.set(placed.call, { span, done: false });
    if (this.options.content && e.payload.tool_input !== undefined) {
      span.events.push({
        name: EVENT.operationDetails,
        timeMs: e.timeMs,
        attributes: { [ATTR.toolArguments]: clip(json(e.payload.tool_input)) },
      });
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
      span.events = [];
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
    if (this.options.content) {
      const text = resultText(e.kind === "tool_error" ? (p.error ?? p.tool_response) : p.tool_response);
      span.events.push({
        name: EVENT.operationDetails,
        timeMs: e.timeMs,
        attributes: { [ATTR.toolResult]: clip(text) },
      });
    }
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
    Object.assign(span.attributes, {
      [ATTR.operationName]: OPERATION.invokeAgent,
      [ATTR.agentId]: id,
      [ATTR.agentName]: type ?? "subagent",
    });
    const scope: Scope = { span, lastMs: e.timeMs, awaiting: [], usage: {} };
    if (parentTool && this.options.content) {
      const input = parentTool.span.events.find((ev) => ev.attributes[ATTR.toolArguments] !== undefined);
      // Claude's Agent call carries the task; Codex's child thread records its own prompt.
      const task = input ? str(safeParse(input.attributes[ATTR.toolArguments])?.prompt) : undefined;
      if (task) scope.prompt = task;
    }
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
      ...usageAttrs(usage),
      "tapedeck.usage.source": source ?? "unknown",
    });
    if (source !== undefined && this.completedSources.has(source))
      scope.awaiting.push({ source, span, usage });
    this.addToScopes(scope, usage);
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
    Object.assign(pending.span.attributes, usageAttrs(pending.usage));
    const added: GenAiUsage = {};
    for (const k of Object.keys(pending.usage) as Array<keyof GenAiUsage>)
      if (before[k] === undefined) added[k] = pending.usage[k];
    this.addToScopes(scope, added);
    return pending.span;
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
    Object.assign(scope.span.attributes, usageAttrs(scope.usage));
    if (!this.options.content || (scope.prompt === undefined && scope.answer === undefined)) return;
    const attrs: Attributes = {};
    if (scope.prompt !== undefined)
      attrs[ATTR.inputMessages] = json([
        { role: "user", parts: [{ type: "text", content: clip(scope.prompt) }] },
      ]);
    if (scope.answer !== undefined)
      attrs[ATTR.outputMessages] = json([
        { role: "assistant", parts: [{ type: "text", content: clip(scope.answer) }], finish_reason: "stop" },
      ]);
    scope.span.events.push({ name: EVENT.operationDetails, timeMs: scope.span.endMs, attributes: attrs });
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

function safeParse(v: unknown): Record<string, unknown> | undefined {
  if (typeof v !== "string") return undefined;
  try {
    const o = JSON.parse(v);
    return o && typeof o === "object" ? o : undefined;
  } catch {
    return undefined;
  }
}
