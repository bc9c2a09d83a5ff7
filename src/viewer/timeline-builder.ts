// The viewer's turns: the core turn model (core/timeline) decides which turn, call and subagent each event
// belongs to; this gives them the viewer's shape, with excerpts of their text, marks for lifecycle events and
// the estimated cost of each turn and subagent.
import { injectionLine, injectionOf } from "../core/ports/injection.ts";
import type { AgentNode, CallNode, Placement, TurnNode } from "../core/read/timeline/nodes.ts";
import { type Placed, type PlacementReader, readPlaced } from "../core/read/timeline/reader.ts";
import { TurnModel, turnUsage } from "../core/read/timeline/turns.ts";
import { inMeaning } from "../core/read/timeline/usage.ts";
import { PLAIN_USAGE_FACTS, type UsageFacts } from "../core/read/usage-facts.ts";
import { CostAccumulator } from "../usage/pricing.ts";
import {
  between,
  compactJson,
  excerpt,
  exitCode,
  inputSummary,
  oneLine,
  resultText,
  str,
} from "./tool-text.ts";
import type {
  Agent,
  Excerpt,
  TimelineEvent,
  TimelineOptions,
  ToolCall,
  Turn,
  TurnItem,
} from "./turn-shape.ts";

const DEFAULT_EXCERPT = 600;

/**
 * Folds events into turns, one at a time; a finished turn is handed to `onTurn` as soon as the next one
 * starts, so only the turn being built is held. Events come in through `add`; the reader's steps (prompt,
 * call, ...) are what `add` hands each one to, once the turn model has placed it.
 */
export class TimelineBuilder implements PlacementReader<TimelineEvent, void> {
  private readonly model: TurnModel;
  private current: Turn | null = null;
  private readonly calls = new Map<CallNode, ToolCall>();
  private readonly agents = new Map<AgentNode, Agent>();
  private readonly agentCosts = new Map<Agent, CostAccumulator>();
  /** A subagent's latest message while nothing followed it: its answer unless it goes on. */
  private readonly agentSaid = new Map<Agent, { sequence: number; at: string | null; text: Excerpt }>();
  private turnCost: CostAccumulator;
  private readonly max: number | null;
  private readonly facts: UsageFacts;

  constructor(
    private readonly onTurn: (turn: Turn) => void,
    private readonly options: TimelineOptions & { continued?: boolean } = {},
  ) {
    this.max = options.full ? null : (options.excerptChars ?? DEFAULT_EXCERPT);
    this.facts = options.facts ?? PLAIN_USAGE_FACTS;
    this.turnCost = new CostAccumulator(options.prices);
    this.model = new TurnModel({
      ...(options.subagentTools ? { subagentTools: options.subagentTools } : {}),
      onTurnEnd: (t) => this.finishTurn(t),
    });
  }

  add(e: TimelineEvent): void {
    const placed = this.model.add(e);
    if (placed.opens || !this.current) this.current = this.newTurn(e, placed.turn);
    const turn = this.current;
    if (e.timestamp) turn.ended_at = e.timestamp;
    turn.turn_id = placed.turn.turn_id;
    readPlaced(this, e, placed);
  }

  /** Hands over the turn being built; call at the end of the events. */
  finish(): void {
    this.model.finish();
  }

  private newTurn(e: TimelineEvent, node: TurnNode): Turn {
    return {
      index: node.index,
      turn_id: node.turn_id,
      prompt: null,
      items: [],
      answer: null,
      usage: node.usage,
      total_usage: node.usage,
      cost: new CostAccumulator(this.options.prices).result(),
      started_at: e.timestamp,
      ended_at: e.timestamp,
      tool_calls: 0,
      tool_errors: 0,
      failure: null,
      first_offset: e.offset,
      continued:
        node.index === 1 &&
        this.options.continued === true &&
        e.kind !== "user_prompt" &&
        e.kind !== "session_start",
    };
  }

  private finishTurn(node: TurnNode): void {
    const t = this.current;
    if (!t) return;
    t.tool_calls = node.tool_calls;
    t.tool_errors = node.tool_errors;
    // The counts in the one meaning every command shows, once, here: the turn, its subagents, their total.
    t.usage = inMeaning(node.usage, this.facts);
    t.total_usage = inMeaning(turnUsage(node), this.facts);
    const cost = new CostAccumulator(this.options.prices);
    cost.merge(this.turnCost.result());
    for (const a of node.agents) {
      const agent = this.agents.get(a);
      if (!agent) continue;
      agent.usage = inMeaning(a.usage, this.facts);
      agent.cost = this.agentCosts.get(agent)?.result() ?? agent.cost;
      cost.merge(agent.cost);
    }
    t.cost = cost.result();
    this.current = null;
    this.calls.clear();
    this.agents.clear();
    this.agentCosts.clear();
    this.agentSaid.clear();
    this.turnCost = new CostAccumulator(this.options.prices);
    this.onTurn(t);
  }

  /** The items list an event goes to: its subagent's, or its turn's. */
  private itemsFor(placed: Placement): TurnItem[] {
    const agent = placed.agent ? this.agents.get(placed.agent) : undefined;
    return agent ? agent.items : this.current!.items;
  }

  prompt(e: TimelineEvent, placed: Placed<"prompt">): void {
    const text = str(e.payload.prompt) ?? resultText(e.payload.prompt);
    if (placed.main) {
      this.current!.prompt = {
        sequence: e.sequence,
        offset: e.offset,
        at: e.timestamp,
        text: excerpt(text, this.max),
      };
      return;
    }
    const agent = placed.agent ? this.agents.get(placed.agent) : undefined;
    // A subagent's own prompt (Codex fires UserPromptSubmit in the child thread): part of its parent's turn.
    if (agent) agent.prompt ??= excerpt(str(e.payload.prompt) ?? "", this.max);
    else this.mark(e, placed, `subagent ${e.agent_id} prompt: ${oneLine(text, 200)}`);
  }

  call(e: TimelineEvent, placed: Placed<"call">): void {
    const call = this.newCall(e, true);
    this.push(placed, call);
    this.calls.set(placed.call, call);
  }

  /**
   * An item that follows what the agent said: that text was not its answer (it went on), so it becomes an item
   * where it happened, before this one. The answer is what is said after the last call.
   */
  private push(placed: Placement, item: TurnItem): void {
    const agent = placed.agent ? this.agents.get(placed.agent) : undefined;
    const owner = agent ?? this.current!;
    const said = agent ? this.agentSaid.get(agent) : this.current!.answer;
    if (said) {
      owner.items.push({
        type: "text",
        sequence: said.sequence,
        at: said.at,
        text: said.text,
        ...(agent ? { agent_id: agent.agent_id } : {}),
      });
      owner.answer = null;
      if (agent) this.agentSaid.delete(agent);
    }
    owner.items.push(item);
  }

  private newCall(e: TimelineEvent, recorded: boolean): ToolCall {
    const p = e.payload;
    return {
      type: "tool",
      tool_use_id: str(p.tool_use_id) ?? null,
      name: str(p.tool_name) ?? "tool",
      input: inputSummary(recorded ? p.tool_input : (p.tool_input ?? p.command)),
      sequence: recorded ? e.sequence : null,
      offset: recorded ? e.offset : null,
      at: recorded ? e.timestamp : null,
      ...(e.agent_id ? { agent_id: e.agent_id } : {}),
      result: null,
      agents: [],
    };
  }

  result(e: TimelineEvent, placed: Placed<"result">): void {
    const p = e.payload;
    const text = resultText(e.kind === "tool_error" ? (p.error ?? p.tool_response) : p.tool_response);
    let call = this.calls.get(placed.call);
    if (!call) {
      call = this.newCall(e, false);
      this.push(placed, call);
      this.calls.set(placed.call, call);
    }
    if (call.result) {
      // A second report of a finished call (Codex: the rollout's exit code after PostToolUse).
      if (placed.failed) call.result.ok = false;
      call.result.exit_code ??= exitCode(p);
      call.result.duration_ms ??= typeof p.duration_ms === "number" ? p.duration_ms : null;
      if (call.result.excerpt.text === "" && text) call.result.excerpt = excerpt(text, this.max);
      return;
    }
    call.result = {
      sequence: e.sequence,
      offset: e.offset,
      at: e.timestamp,
      ok: !placed.failed,
      exit_code: exitCode(p),
      duration_ms: typeof p.duration_ms === "number" ? p.duration_ms : between(call.at, e.timestamp),
      excerpt: excerpt(text, this.max),
    };
  }

  agentStart(e: TimelineEvent, placed: Placed<"agent_start">): void {
    const node = placed.started;
    const agent: Agent = {
      type: "agent",
      agent_id: node.agent_id,
      agent_type: node.agent_type,
      sequence: e.sequence,
      at: e.timestamp,
      stopped_at: null,
      prompt: null,
      items: [],
      answer: null,
      usage: node.usage,
      cost: new CostAccumulator(this.options.prices).result(),
    };
    const parent = node.parent ? this.calls.get(node.parent) : undefined;
    if (parent) parent.agents.push(agent);
    else this.push({ ...placed, agent: undefined }, agent);
    this.agents.set(node, agent);
    this.agentCosts.set(agent, new CostAccumulator(this.options.prices));
  }

  agentStop(e: TimelineEvent, placed: Placed<"agent_stop">): void {
    const agent = placed.stopped ? this.agents.get(placed.stopped) : undefined;
    if (!agent) {
      this.mark(e, placed, `subagent ${e.agent_id ?? str(e.payload.agent_id) ?? "?"} stopped`);
      return;
    }
    agent.stopped_at = e.timestamp ?? agent.at;
    const text = str(e.payload.last_assistant_message);
    if (text) agent.answer = excerpt(text, this.max);
  }

  answer(e: TimelineEvent, placed: Placed<"answer">): void {
    const text = str(e.payload.text) ?? str(e.payload.last_assistant_message) ?? "";
    const agent = placed.agent ? this.agents.get(placed.agent) : undefined;
    if (agent) {
      agent.answer = excerpt(text, this.max);
      this.agentSaid.set(agent, { sequence: e.sequence, at: e.timestamp, text: agent.answer });
      return;
    }
    const turn = this.current!;
    // Several messages in a row (no call between them): the answer is all of them, in order.
    const joined = turn.answer ? `${turn.answer.text.text}\n\n${text}` : text;
    const omitted = turn.answer?.text.omitted_chars ?? 0;
    const cut = excerpt(joined, this.max);
    turn.answer = {
      sequence: turn.answer?.sequence ?? e.sequence,
      at: e.timestamp,
      text: { text: cut.text, omitted_chars: cut.omitted_chars + omitted },
    };
  }

  /**
   * The model counted the tokens (each response once); the cost is estimated from each model's sum over the
   * turn in the one meaning (a Gemini response's cache reads reach the archive as a record after its input).
   */
  usage(e: TimelineEvent, placed: Placed<"usage">): void {
    const u = e.usage;
    if (!u || !placed.counted) return;
    const agent = placed.agent ? this.agents.get(placed.agent) : undefined;
    const cost = agent ? this.agentCosts.get(agent) : this.turnCost;
    cost?.addRecorded(str(u.model), u, this.facts);
  }

  other(e: TimelineEvent, placed: Placed<"other">): void {
    const p = e.payload;
    const name = str(p.hook_event_name);
    if (e.kind === "session_start") {
      this.mark(e, placed, `session start${str(p.source) ? ` (${str(p.source)})` : ""}`);
      return;
    }
    if (e.kind === "session_end") {
      this.mark(e, placed, `session end${str(p.reason) ? ` (${str(p.reason)})` : ""}`);
      return;
    }
    if (e.kind === "compaction") {
      const phase = str(p.phase) ? ` ${str(p.phase)}` : "";
      this.mark(e, placed, `compaction${phase}${str(p.trigger) ? ` (${str(p.trigger)})` : ""}`);
      return;
    }
    if (p.failure === true) {
      const error = oneLine(str(p.error) ?? compactJson(p.error ?? "failed"), 200);
      this.current!.failure ??= error;
      this.mark(e, placed, `turn failed: ${error}`, true);
      return;
    }
    if (p.interrupted === true) {
      this.mark(e, placed, "interrupted");
      return;
    }
    if (p.error !== undefined) {
      this.mark(e, placed, `${name ?? e.kind}: ${oneLine(str(p.error) ?? compactJson(p.error), 200)}`);
      return;
    }
    if (p.task_notification === true) {
      // The agent's own event: what it said before the report was not its answer, it goes on after it.
      this.mark(e, placed, taskNotice(str(p.prompt) ?? ""), false, true);
      return;
    }
    // What tapedeck itself added to the agent's context is part of the turn, never an unlabelled event.
    const injection = injectionOf(e);
    if (injection) this.mark(e, placed, injectionLine(injection));
    // Other provider events (notifications, batches, expansions) are in the event list, not the turn view.
  }

  private mark(e: TimelineEvent, placed: Placement, text: string, failure = false, settles = false): void {
    const item: TurnItem = {
      type: "mark",
      kind: e.kind,
      sequence: e.sequence,
      offset: e.offset,
      at: e.timestamp,
      text,
      failure,
      ...(e.agent_id ? { agent_id: e.agent_id } : {}),
    };
    if (settles) this.push(placed, item);
    else this.itemsFor(placed).push(item);
  }
}

/** `task notification: Agent "x" finished (completed)`: a background task's report, from its tags. */
function taskNotice(text: string): string {
  const tag = (name: string) =>
    new RegExp(`<${name}>([^<]{0,400})</${name}>`).exec(text.slice(0, 8192))?.[1]?.trim() || undefined;
  const summary = tag("summary") ?? "a background task reported back";
  const status = tag("status");
  return `task notification: ${oneLine(summary, 200)}${status ? ` (${oneLine(status, 40)})` : ""}`;
}
