// The timeline model `show`, the Markdown export and the local viewer share:
// archive events folded into turns (the prompt, each tool call paired with its
// result, subagents under the call that spawned them, the answer, usage per
// turn with its source). It reads only the archive, line by line from a byte
// offset, so a session of 100,000 events is paged, never loaded whole.

import { closeSync, fstatSync } from "node:fs";
import { join } from "node:path";
import { injectionLine, injectionOf } from "../core/injection.ts";
import { openForScan, scanLines } from "../core/scan.ts";
import { CostAccumulator, type CostEstimate, type PriceTable } from "../usage/pricing.ts";

export const EVENTS_FILE = "events.jsonl";

/** One archive line as the timeline sees it: an envelope, or a line that is not one. */
export interface TimelineEvent {
  sequence: number;
  /** byte offset of the line in events.jsonl: where to read the whole event again */
  offset: number;
  bytes: number;
  kind: string;
  timestamp: string | null;
  turn_id?: string;
  agent_id?: string;
  payload: Record<string, unknown>;
  usage?: Record<string, unknown>;
  redactions: number;
  truncations: number;
  omitted: number;
}

export interface BadLine {
  offset: number;
  bytes: number;
  reason: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** where the counts come from (claude-transcript, hook-payload, proxy, ...) */
  sources: string[];
  models: string[];
}

export interface Excerpt {
  text: string;
  /** characters of the recorded text left out of the excerpt */
  omitted_chars: number;
}

export interface ToolResult {
  sequence: number;
  offset: number;
  at: string | null;
  ok: boolean;
  exit_code: number | null;
  duration_ms: number | null;
  excerpt: Excerpt;
}

export interface ToolCall {
  type: "tool";
  tool_use_id: string | null;
  name: string;
  /** the command, path or pattern the call was made with, one line */
  input: string;
  /** null for a result whose call was not recorded (or is on an earlier page) */
  sequence: number | null;
  offset: number | null;
  at: string | null;
  agent_id?: string;
  result: ToolResult | null;
  /** subagents this call spawned */
  agents: Agent[];
}

export interface Agent {
  type: "agent";
  agent_id: string;
  agent_type: string | null;
  sequence: number;
  at: string | null;
  stopped_at: string | null;
  /** the task it was given, when its client records one */
  prompt: Excerpt | null;
  items: TurnItem[];
  answer: Excerpt | null;
  usage: Usage;
  cost: CostEstimate;
}

/** A session start or end, a compaction, a failed turn, or another provider event worth a line. */
export interface Mark {
  type: "mark";
  kind: string;
  sequence: number;
  offset: number;
  at: string | null;
  text: string;
  failure: boolean;
  agent_id?: string;
}

export type TurnItem = ToolCall | Agent | Mark;

export interface Turn {
  /** 1-based over the session (over the page when it did not start at offset 0) */
  index: number;
  turn_id: string | null;
  prompt: { sequence: number; offset: number; at: string | null; text: Excerpt } | null;
  items: TurnItem[];
  answer: { sequence: number; at: string | null; text: Excerpt } | null;
  /** the turn's own usage: its subagents' usage is on each agent (and in `total_usage`) */
  usage: Usage;
  total_usage: Usage;
  cost: CostEstimate;
  started_at: string | null;
  ended_at: string | null;
  tool_calls: number;
  tool_errors: number;
  failure: string | null;
  first_offset: number;
  /** true when the turn began before the page did */
  continued: boolean;
}

export interface TimelineOptions {
  /** characters of a prompt, answer or tool output kept in an excerpt (default 600) */
  excerptChars?: number;
  /** keep every recorded character */
  full?: boolean;
  prices?: PriceTable;
}

export interface PageOptions extends TimelineOptions {
  fromOffset?: number;
  /** events per page (default 500) */
  limit?: number;
}

export interface TimelinePage {
  fromOffset: number;
  /** where the next page starts; null at the end of the file */
  nextOffset: number | null;
  /** just past the last complete line read */
  endOffset: number;
  events: TimelineEvent[];
  turns: Turn[];
  bad_lines: BadLine[];
  /** a final line without its newline: a write in progress, or one cut short */
  partial_tail: BadLine | null;
}

const DEFAULT_EXCERPT = 600;
const DEFAULT_LIMIT = 500;
/** A line this long is not parsed for the timeline (the recorder caps events at 256 KB); it is reported. */
const MAX_LINE_BYTES = 8 * 1024 * 1024;
/** Calls remembered for pairing a late result or a second report of one (Codex's derived tool_error). */
const MAX_REMEMBERED_CALLS = 4096;

function emptyUsage(): Usage {
  return {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    sources: [],
    models: [],
  };
}

function count(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : 0;
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function addUnique(list: string[], v: string | undefined): void {
  if (v && !list.includes(v) && list.length < 16) list.push(v);
}

function addUsage(into: Usage, u: Record<string, unknown>): void {
  into.input_tokens += count(u.input_tokens);
  into.output_tokens += count(u.output_tokens);
  into.cache_read_input_tokens += count(u.cache_read_input_tokens);
  into.cache_creation_input_tokens += count(u.cache_creation_input_tokens);
  addUnique(into.sources, str(u.source));
  addUnique(into.models, str(u.model));
}

function mergeUsage(into: Usage, from: Usage): void {
  into.input_tokens += from.input_tokens;
  into.output_tokens += from.output_tokens;
  into.cache_read_input_tokens += from.cache_read_input_tokens;
  into.cache_creation_input_tokens += from.cache_creation_input_tokens;
  for (const s of from.sources) addUnique(into.sources, s);
  for (const m of from.models) addUnique(into.models, m);
}

export function usageTokens(u: Usage): number {
  return u.input_tokens + u.output_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens;
}

/** A text cut to `max` characters (never inside a surrogate pair), with how much was left out. */
export function excerpt(text: string, max: number | null): Excerpt {
  if (max === null || text.length <= max) return { text, omitted_chars: 0 };
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), omitted_chars: text.length - end };
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function compactJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? "";
  } catch {
    return "";
  }
}

/** What a tool was called with, as one line: the command, path, pattern or prompt when it names one. */
export function inputSummary(input: unknown, max = 160): string {
  if (typeof input === "string") return oneLine(input, max);
  if (input === null || typeof input !== "object") return "";
  const i = input as Record<string, unknown>;
  const command = i.command ?? i.cmd;
  if (Array.isArray(command)) return oneLine(command.map(String).join(" "), max);
  for (const key of [
    "command",
    "cmd",
    "file_path",
    "path",
    "pattern",
    "url",
    "query",
    "description",
    "prompt",
  ]) {
    const v = key === "command" || key === "cmd" ? command : i[key];
    if (typeof v === "string" && v.length > 0) {
      const extra = key === "file_path" || key === "path" ? (str(i.pattern) ?? "") : "";
      return oneLine(extra ? `${v} ${extra}` : v, max);
    }
  }
  return oneLine(compactJson(input), max);
}

/** The text a tool returned: stdout and stderr, text blocks, or the JSON of whatever else it is. */
export function resultText(response: unknown): string {
  if (response === undefined || response === null) return "";
  if (typeof response === "string") return response;
  if (Array.isArray(response)) {
    const texts = response.map((b) =>
      b && typeof b === "object" ? str((b as { text?: unknown }).text) : undefined,
    );
    if (texts.every((t) => t !== undefined)) return texts.join("\n");
    return JSON.stringify(response, null, 2);
  }
  if (typeof response === "object") {
    const r = response as Record<string, unknown>;
    const stdout = str(r.stdout);
    const stderr = str(r.stderr);
    if (stdout !== undefined || stderr !== undefined) {
      return [stdout, stderr ? `[stderr]\n${stderr}` : undefined].filter((s) => s).join("\n");
    }
    const file = fileResultText(r);
    if (file !== undefined) return file;
    if (Array.isArray(r.content)) return resultText(r.content);
    for (const key of ["output", "text", "result", "message"]) if (typeof r[key] === "string") return r[key];
  }
  return JSON.stringify(response, null, 2) ?? "";
}

function lineCount(text: string): number {
  return text === "" ? 0 : text.replace(/\n$/, "").split("\n").length;
}

/**
 * Claude Code's file tools answer with objects (Write: {type, filePath, content, structuredPatch,
 * originalFile}; Edit: {filePath, oldString, newString, structuredPatch}; Read: {type, file{filePath,
 * numLines, startLine, totalLines}}): a line that says what happened to which file, and for a change its
 * hunks, instead of the object's raw JSON.
 */
function fileResultText(r: Record<string, unknown>): string | undefined {
  const read = r.file as Record<string, unknown> | undefined;
  if (read && typeof read === "object" && typeof read.filePath === "string") {
    const start = typeof read.startLine === "number" ? read.startLine : 1;
    const n = typeof read.numLines === "number" ? read.numLines : lineCount(str(read.content) ?? "");
    const total = typeof read.totalLines === "number" ? ` of ${read.totalLines}` : "";
    return `read ${read.filePath} (lines ${start}–${start + Math.max(0, n - 1)}${total})`;
  }
  const path = str(r.filePath);
  if (path === undefined || !(Array.isArray(r.structuredPatch) || r.type === "create")) return undefined;
  if (r.type === "create") return `created ${path} (${lineCount(str(r.content) ?? "")} lines)`;
  const hunks = (Array.isArray(r.structuredPatch) ? r.structuredPatch : []).flatMap((h) =>
    h && typeof h === "object" && Array.isArray((h as { lines?: unknown }).lines)
      ? ((h as { lines: unknown[] }).lines.filter((l) => typeof l === "string") as string[])
      : [],
  );
  const added = hunks.filter((l) => l.startsWith("+")).length;
  const removed = hunks.filter((l) => l.startsWith("-")).length;
  return [`updated ${path}: +${added} −${removed} line${added + removed === 1 ? "" : "s"}`, ...hunks].join(
    "\n",
  );
}

/** An exit code the payload states, or the one in Claude's "Exit code N" error text. */
export function exitCode(p: Record<string, unknown>): number | null {
  if (typeof p.exit_code === "number" && Number.isInteger(p.exit_code)) return p.exit_code;
  const r = p.tool_response as Record<string, unknown> | undefined;
  if (r && typeof r === "object" && typeof r.exit_code === "number") return r.exit_code as number;
  const m = /^Exit code:? (-?\d{1,10})\b/i.exec(str(p.error) ?? "");
  return m ? Number.parseInt(m[1]!, 10) : null;
}

function ms(at: string | null): number {
  return at ? Date.parse(at) : Number.NaN;
}

/** The milliseconds between two timestamps; null when either is missing. */
export function between(a: string | null, b: string | null): number | null {
  const d = ms(b) - ms(a);
  return Number.isFinite(d) ? d : null;
}

/** An archive line as a TimelineEvent; a reason string when it is not an event. */
export function parseTimelineLine(bytes: Buffer, offset: number): TimelineEvent | string {
  if (bytes.length === 0) return "empty line";
  if (bytes.length > MAX_LINE_BYTES) return "line too large to show";
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString("utf8"));
  } catch {
    return "not JSON";
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "not a JSON event envelope";
  const e = v as Record<string, unknown>;
  if (typeof e.sequence !== "number" || typeof e.kind !== "string") return "not a JSON event envelope";
  const payload =
    e.payload && typeof e.payload === "object" && !Array.isArray(e.payload)
      ? (e.payload as Record<string, unknown>)
      : {};
  const len = (x: unknown) => (Array.isArray(x) ? x.length : 0);
  return {
    sequence: e.sequence,
    offset,
    bytes: bytes.length + 1,
    kind: e.kind,
    timestamp: str(e.timestamp) ?? null,
    ...(typeof e.turn_id === "string" ? { turn_id: e.turn_id } : {}),
    ...(typeof e.agent_id === "string" ? { agent_id: e.agent_id } : {}),
    payload,
    ...(e.usage && typeof e.usage === "object" ? { usage: e.usage as Record<string, unknown> } : {}),
    redactions: len(e.redactions),
    truncations: len(e.truncations),
    omitted: len(e.omitted),
  };
}

/** The tool names that start a subagent: Claude's Agent (Task before 2.1), Codex's spawn_agent. */
const SPAWNERS = /^(agent|task|spawn_agent)$/i;

/**
 * Folds events into turns, one at a time; a finished turn is handed to `onTurn` as soon as the next one
 * starts, so only the turn being built is held.
 */
export class TimelineBuilder {
  private current: Turn | null = null;
  private index = 0;
  private readonly calls = new Map<string, ToolCall>();
  private readonly openWithoutId = new Map<string, ToolCall[]>();
  private readonly agents = new Map<string, Agent>();
  /** message ids already counted: the same API response can be reported by the transcript and the proxy */
  private readonly seenMessages = new Set<string>();
  private turnCost: CostAccumulator;
  private readonly agentCosts = new Map<Agent, CostAccumulator>();
  private readonly max: number | null;

  constructor(
    private readonly onTurn: (turn: Turn) => void,
    private readonly options: TimelineOptions & { continued?: boolean } = {},
  ) {
    this.max = options.full ? null : (options.excerptChars ?? DEFAULT_EXCERPT);
    this.turnCost = new CostAccumulator(options.prices);
  }

  add(e: TimelineEvent): void {
    switch (e.kind) {
      case "user_prompt":
        this.prompt(e);
        return;
      case "session_start":
        // A resumed session's start belongs to the turn it opens, not to the one before it.
        if (this.current && (this.current.prompt || this.current.answer)) this.finishTurn();
        this.mark(e, `session start${str(e.payload.source) ? ` (${str(e.payload.source)})` : ""}`);
        return;
      case "tool_call":
        this.toolCall(e);
        return;
      case "tool_result":
      case "tool_error":
        this.toolResult(e);
        return;
      case "subagent_start":
        this.subagentStart(e);
        return;
      case "subagent_stop":
        this.subagentStop(e);
        return;
      case "assistant_message":
        this.answer(e);
        return;
      case "turn_usage":
        this.usage(e);
        return;
      default:
        this.otherEvent(e);
    }
  }

  /** Hands over the turn being built; call at the end of the events. */
  finish(): void {
    if (this.current) this.finishTurn();
  }

  private newTurn(e: TimelineEvent): Turn {
    this.index += 1;
    return {
      index: this.index,
      turn_id: e.turn_id ?? null,
      prompt: null,
      items: [],
      answer: null,
      usage: emptyUsage(),
      total_usage: emptyUsage(),
      cost: new CostAccumulator(this.options.prices).result(),
      started_at: e.timestamp,
      ended_at: e.timestamp,
      tool_calls: 0,
      tool_errors: 0,
      failure: null,
      first_offset: e.offset,
      continued:
        this.index === 1 &&
        this.options.continued === true &&
        e.kind !== "user_prompt" &&
        e.kind !== "session_start",
    };
  }

  private turn(e: TimelineEvent): Turn {
    if (!this.current) this.current = this.newTurn(e);
    const t = this.current;
    if (e.timestamp) t.ended_at = e.timestamp;
    if (!t.turn_id && e.turn_id) t.turn_id = e.turn_id;
    return t;
  }

  private finishTurn(): void {
    const t = this.current;
    if (!t) return;
    const total = emptyUsage();
    mergeUsage(total, t.usage);
    const cost = new CostAccumulator(this.options.prices);
    cost.merge(this.turnCost.result());
    const visit = (items: TurnItem[]) => {
      for (const item of items) {
        const agents = item.type === "agent" ? [item] : item.type === "tool" ? item.agents : [];
        for (const a of agents) {
          a.cost = this.agentCosts.get(a)?.result() ?? a.cost;
          mergeUsage(total, a.usage);
          cost.merge(a.cost);
          visit(a.items);
        }
      }
    };
    visit(t.items);
    t.total_usage = total;
    t.cost = cost.result();
    this.current = null;
    this.turnCost = new CostAccumulator(this.options.prices);
    this.onTurn(t);
  }

  /** The items list an event goes to: its subagent's, or its turn's. */
  private itemsFor(e: TimelineEvent): TurnItem[] {
    const agent = e.agent_id ? this.agents.get(e.agent_id) : undefined;
    return agent ? agent.items : this.turn(e).items;
  }

  private prompt(e: TimelineEvent): void {
    const agent = e.agent_id ? this.agents.get(e.agent_id) : undefined;
    if (agent) {
      // A subagent's own prompt (Codex fires UserPromptSubmit in the child thread): part of its parent's turn.
      agent.prompt ??= excerpt(str(e.payload.prompt) ?? "", this.max);
      this.turn(e);
      return;
    }
    const t = this.current;
    // A turn holding only a session start takes the prompt; anything else was a turn of its own.
    const adopt = t && !t.prompt && !t.answer && t.items.every((i) => i.type === "mark" && !i.failure);
    if (t && !adopt) this.finishTurn();
    const turn = this.turn(e);
    if (e.turn_id) turn.turn_id = e.turn_id;
    turn.prompt = {
      sequence: e.sequence,
      offset: e.offset,
      at: e.timestamp,
      text: excerpt(str(e.payload.prompt) ?? resultText(e.payload.prompt), this.max),
    };
  }

  private toolCall(e: TimelineEvent): void {
    const p = e.payload;
    const call: ToolCall = {
      type: "tool",
      tool_use_id: str(p.tool_use_id) ?? null,
      name: str(p.tool_name) ?? "tool",
      input: inputSummary(p.tool_input),
      sequence: e.sequence,
      offset: e.offset,
      at: e.timestamp,
      ...(e.agent_id ? { agent_id: e.agent_id } : {}),
      result: null,
      agents: [],
    };
    this.itemsFor(e).push(call);
    this.turn(e).tool_calls += 1;
    if (call.tool_use_id) this.remember(call.tool_use_id, call);
    else this.queueOpen(call);
  }

  private static openKey(name: string | undefined, agent: string | undefined): string {
    return `${agent ?? ""}\u0000${name ?? ""}`;
  }

  /** Calls without an id, oldest first per tool and agent: a queue each, so pairing stays O(1) per result. */
  private queueOpen(call: ToolCall): void {
    const key = TimelineBuilder.openKey(call.name, call.agent_id);
    const queue = this.openWithoutId.get(key) ?? [];
    queue.push(call);
    if (queue.length > MAX_REMEMBERED_CALLS) queue.shift();
    this.openWithoutId.set(key, queue);
    if (this.openWithoutId.size > MAX_REMEMBERED_CALLS)
      this.openWithoutId.delete(this.openWithoutId.keys().next().value!);
  }

  private remember(key: string, call: ToolCall): void {
    this.calls.set(key, call);
    if (this.calls.size > MAX_REMEMBERED_CALLS) this.calls.delete(this.calls.keys().next().value!);
  }

  /** A result's call: by tool_use_id, else the oldest open call of the same tool and agent (Gemini names no id). */
  private findCall(e: TimelineEvent): ToolCall | undefined {
    const id = str(e.payload.tool_use_id);
    if (id) return this.calls.get(id);
    const key = TimelineBuilder.openKey(str(e.payload.tool_name), e.agent_id);
    const queue = this.openWithoutId.get(key);
    const call = queue?.shift();
    if (queue && queue.length === 0) this.openWithoutId.delete(key);
    return call;
  }

  private toolResult(e: TimelineEvent): void {
    const p = e.payload;
    const failed = e.kind === "tool_error" || p.success === false;
    const text = resultText(e.kind === "tool_error" ? (p.error ?? p.tool_response) : p.tool_response);
    let call = this.findCall(e);
    if (!call) {
      call = {
        type: "tool",
        tool_use_id: str(p.tool_use_id) ?? null,
        name: str(p.tool_name) ?? "tool",
        input: inputSummary(p.tool_input ?? p.command),
        sequence: null,
        offset: null,
        at: null,
        ...(e.agent_id ? { agent_id: e.agent_id } : {}),
        result: null,
        agents: [],
      };
      this.itemsFor(e).push(call);
      if (call.tool_use_id) this.remember(call.tool_use_id, call);
    }
    const turn = this.turn(e);
    if (call.result) {
      // A second report of a finished call (Codex: the rollout's exit code after PostToolUse).
      if (failed && call.result.ok) {
        call.result.ok = false;
        turn.tool_errors += 1;
      }
      call.result.exit_code ??= exitCode(p);
      call.result.duration_ms ??= typeof p.duration_ms === "number" ? p.duration_ms : null;
      if (call.result.excerpt.text === "" && text) call.result.excerpt = excerpt(text, this.max);
      return;
    }
    if (failed) turn.tool_errors += 1;
    call.result = {
      sequence: e.sequence,
      offset: e.offset,
      at: e.timestamp,
      ok: !failed,
      exit_code: exitCode(p),
      duration_ms: typeof p.duration_ms === "number" ? p.duration_ms : between(call.at, e.timestamp),
      excerpt: excerpt(text, this.max),
    };
  }

  /**
   * The call that spawned a subagent: the latest spawner without a result; else the latest spawner that has
   * no agent yet (Codex's spawn_agent returns before the child's SubagentStart fires); else the latest open call.
   */
  private spawner(items: TurnItem[]): ToolCall | undefined {
    let finished: ToolCall | undefined;
    let open: ToolCall | undefined;
    for (let i = items.length - 1; i >= 0; i -= 1) {
      const item = items[i]!;
      if (item.type !== "tool") continue;
      const spawns = SPAWNERS.test(item.name);
      if (spawns && !item.result) return item;
      if (spawns && item.agents.length === 0) finished ??= item;
      if (!item.result) open ??= item;
    }
    return finished ?? open;
  }

  private subagentStart(e: TimelineEvent): void {
    const id = e.agent_id ?? str(e.payload.agent_id) ?? `#${e.sequence}`;
    const agent: Agent = {
      type: "agent",
      agent_id: id,
      agent_type: str(e.payload.agent_type) ?? null,
      sequence: e.sequence,
      at: e.timestamp,
      stopped_at: null,
      prompt: null,
      items: [],
      answer: null,
      usage: emptyUsage(),
      cost: new CostAccumulator(this.options.prices).result(),
    };
    const turn = this.turn(e);
    const parent = this.spawner(turn.items) ?? this.spawnerInAgents(turn.items);
    if (parent) parent.agents.push(agent);
    else turn.items.push(agent);
    this.agents.set(id, agent);
    this.agentCosts.set(agent, new CostAccumulator(this.options.prices));
  }

  /** A subagent started from inside another subagent: the open call in a running agent. */
  private spawnerInAgents(items: TurnItem[]): ToolCall | undefined {
    for (const agent of this.agents.values()) {
      if (agent.stopped_at) continue;
      if (!items.some((i) => i === agent || (i.type === "tool" && i.agents.includes(agent)))) {
        const found = this.spawner(agent.items);
        if (found) return found;
      }
    }
    for (const agent of this.agents.values()) {
      if (agent.stopped_at) continue;
      const found = this.spawner(agent.items);
      if (found) return found;
    }
    return undefined;
  }

  private subagentStop(e: TimelineEvent): void {
    const id = e.agent_id ?? str(e.payload.agent_id);
    const agent = id ? this.agents.get(id) : undefined;
    this.turn(e);
    if (!agent) {
      this.mark(e, `subagent ${id ?? "?"} stopped`);
      return;
    }
    agent.stopped_at = e.timestamp ?? agent.at;
    const text = str(e.payload.last_assistant_message);
    if (text) agent.answer = excerpt(text, this.max);
  }

  private answer(e: TimelineEvent): void {
    const text = str(e.payload.text) ?? str(e.payload.last_assistant_message) ?? "";
    const agent = e.agent_id ? this.agents.get(e.agent_id) : undefined;
    if (agent) {
      agent.answer = excerpt(text, this.max);
      return;
    }
    const turn = this.turn(e);
    // Several messages in one turn (Codex, Gemini): the answer is all of them, in order.
    const joined = turn.answer ? `${turn.answer.text.text}\n\n${text}` : text;
    const omitted = turn.answer?.text.omitted_chars ?? 0;
    const cut = excerpt(joined, this.max);
    turn.answer = {
      sequence: turn.answer?.sequence ?? e.sequence,
      at: e.timestamp,
      text: { text: cut.text, omitted_chars: cut.omitted_chars + omitted },
    };
  }

  private usage(e: TimelineEvent): void {
    const u = e.usage;
    if (!u) return;
    const messageId = str(u.message_id);
    if (messageId) {
      // The same response reported twice (transcript and proxy) is counted once, first report wins.
      if (this.seenMessages.has(messageId)) return;
      this.seenMessages.add(messageId);
      if (this.seenMessages.size > 100_000) this.seenMessages.clear();
    }
    const agent = e.agent_id ? this.agents.get(e.agent_id) : undefined;
    const tokens = {
      input_tokens: count(u.input_tokens),
      output_tokens: count(u.output_tokens),
      cache_read_input_tokens: count(u.cache_read_input_tokens),
      cache_creation_input_tokens: count(u.cache_creation_input_tokens),
    };
    const turn = this.turn(e);
    if (agent) {
      addUsage(agent.usage, u);
      this.agentCosts.get(agent)?.add(str(u.model), tokens);
    } else {
      addUsage(turn.usage, u);
      this.turnCost.add(str(u.model), tokens);
    }
  }

  private otherEvent(e: TimelineEvent): void {
    const p = e.payload;
    const name = str(p.hook_event_name);
    if (e.kind === "session_end") {
      this.mark(e, `session end${str(p.reason) ? ` (${str(p.reason)})` : ""}`);
      return;
    }
    if (e.kind === "compaction") {
      this.mark(
        e,
        `compaction${str(p.phase) ? ` ${str(p.phase)}` : ""}${str(p.trigger) ? ` (${str(p.trigger)})` : ""}`,
      );
      return;
    }
    if (p.failure === true) {
      const error = oneLine(str(p.error) ?? compactJson(p.error ?? "failed"), 200);
      const turn = this.turn(e);
      turn.failure ??= error;
      this.mark(e, `turn failed: ${error}`, true);
      return;
    }
    if (p.interrupted === true) {
      this.mark(e, "interrupted");
      return;
    }
    if (p.error !== undefined) {
      this.mark(e, `${name ?? e.kind}: ${oneLine(str(p.error) ?? compactJson(p.error), 200)}`);
      return;
    }
    // What tapedeck itself added to the agent's context is part of the turn, never an unlabelled event.
    const injection = injectionOf(e);
    if (injection) {
      this.mark(e, injectionLine(injection));
      return;
    }
    // Other provider events (notifications, batches, expansions) are in the event list, not the turn view.
    this.turn(e);
  }

  private mark(e: TimelineEvent, text: string, failure = false): void {
    this.itemsFor(e).push({
      type: "mark",
      kind: e.kind,
      sequence: e.sequence,
      offset: e.offset,
      at: e.timestamp,
      text,
      failure,
      ...(e.agent_id ? { agent_id: e.agent_id } : {}),
    });
  }
}

export interface ReadHandlers {
  onEvent?: (e: TimelineEvent) => void;
  onBadLine?: (b: BadLine) => void;
}

/**
 * Reads complete lines from `fromOffset`, at most `limit` events; returns where it stopped, the partial final
 * line (if any) and whether the end of the file was reached.
 */
export function readEventLines(
  sessionDir: string,
  fromOffset: number,
  limit: number,
  handlers: ReadHandlers,
): { endOffset: number; atEnd: boolean; partial: BadLine | null } {
  const fd = openEvents(sessionDir);
  // A session whose first event is still being written has no events file yet: nothing to read.
  if (fd === null) return { endOffset: fromOffset, atEnd: true, partial: null };
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, Math.min(fromOffset, size));
    let endOffset = start;
    let seen = 0;
    let partial: BadLine | null = null;
    let stoppedEarly = false;
    scanLines(fd, start, (line) => {
      if (!line.terminated) {
        partial = { offset: line.offset, bytes: line.bytes.length, reason: "final line without a newline" };
        return false;
      }
      if (seen >= limit) {
        stoppedEarly = true;
        return false;
      }
      endOffset = line.offset + line.bytes.length + 1;
      const parsed = parseTimelineLine(line.bytes, line.offset);
      if (typeof parsed === "string")
        handlers.onBadLine?.({ offset: line.offset, bytes: line.bytes.length, reason: parsed });
      else {
        seen += 1;
        handlers.onEvent?.(parsed);
      }
      return true;
    });
    return { endOffset, atEnd: !stoppedEarly, partial };
  } finally {
    closeSync(fd);
  }
}

/** events.jsonl for reading; null when there is none. A symlink, FIFO or device throws UnsafePathError. */
function openEvents(sessionDir: string): number | null {
  try {
    return openForScan(join(sessionDir, EVENTS_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** Throws what reading the session's events would (UnsafePathError for a planted link or FIFO), reading nothing. */
export function checkEventsReadable(sessionDir: string): void {
  const fd = openEvents(sessionDir);
  if (fd !== null) closeSync(fd);
}

/**
 * One page of the timeline: up to `limit` events from `fromOffset` (a line boundary: 0 or a page's
 * nextOffset), and the turns they make. A turn cut by the page's start is marked `continued`.
 */
export function readTimelinePage(sessionDir: string, options: PageOptions = {}): TimelinePage {
  const fromOffset = options.fromOffset ?? 0;
  const limit = Math.max(1, Math.floor(options.limit ?? DEFAULT_LIMIT));
  const events: TimelineEvent[] = [];
  const turns: Turn[] = [];
  const bad: BadLine[] = [];
  const builder = new TimelineBuilder((t) => turns.push(t), { ...options, continued: fromOffset > 0 });
  const read = readEventLines(sessionDir, fromOffset, limit, {
    onEvent: (e) => {
      events.push(e);
      builder.add(e);
    },
    onBadLine: (b) => bad.push(b),
  });
  builder.finish();
  return {
    fromOffset,
    nextOffset: read.atEnd ? null : read.endOffset,
    endOffset: read.endOffset,
    events,
    turns,
    bad_lines: bad,
    partial_tail: read.partial,
  };
}

export interface StreamResult {
  endOffset: number;
  events: number;
  bad_lines: BadLine[];
  partial_tail: BadLine | null;
}

/** Every turn of a session, handed over one at a time (only the turn being built is held). */
export function streamTurns(
  sessionDir: string,
  onTurn: (t: Turn) => void,
  options: TimelineOptions & { onEvent?: (e: TimelineEvent) => void } = {},
): StreamResult {
  const builder = new TimelineBuilder(onTurn, options);
  const bad: BadLine[] = [];
  let events = 0;
  const read = readEventLines(sessionDir, 0, Number.POSITIVE_INFINITY, {
    onEvent: (e) => {
      events += 1;
      options.onEvent?.(e);
      builder.add(e);
    },
    onBadLine: (b) => bad.push(b),
  });
  builder.finish();
  return { endOffset: read.endOffset, events, bad_lines: bad, partial_tail: read.partial };
}

// The per-session summary lives in its own module: list loads it without the timeline.
export { type SessionSummaryLine, summarizeManifest } from "./session-summary.ts";
