// The one turn model every reader of the archive shares (the viewer and `show`, the OTLP export, memory
// promotion): events, in archive order, folded into turns, each tool call paired with its results, each
// subagent under the call that started it, usage counted per turn and per subagent, each response once.
// It decides structure only; what a reader shows or sends of an event is the reader's. Fed one event at a
// time, it holds the turn being built and nothing of the turns before it but the message ids it counted.
//
// A turn starts at the main agent's prompt. Events before the first prompt open a turn of their own, which
// the prompt takes over while it holds only lifecycle events (a session start, a compaction, usage): a
// resumed session's start belongs to the turn it opens. A session start after a prompt or an answer opens
// a turn too. A prompt with an agent_id is a subagent's own (a client may fire UserPromptSubmit in the
// child thread): part of its parent's turn, never a turn of its own.
import type { AgentNode, CallNode, Placement, TurnEvent, TurnNode } from "./nodes.ts";
import { ToolPairs } from "./pairing.ts";
import { pickSpawner, spawnerNames } from "./spawner.ts";
import { addUsage, emptyUsage, mergeUsage, type Usage } from "./usage.ts";

export interface TurnModelOptions {
  /** The session's provider's tool names that start a subagent (its catalog entry's subagentTools). */
  subagentTools?: readonly string[];
  /** Called with each turn as the next one starts, and with the last at finish(). */
  onTurnEnd?: (turn: TurnNode) => void;
}

/** Message ids remembered for counting a response once; past it they are forgotten, a bound on memory. */
const MAX_MESSAGE_IDS = 100_000;
/** Subagents a turn nests at most; a later one's events are the main agent's. */
const MAX_AGENTS = 4096;

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** The main agent's usage in the turn and every subagent's. */
export function turnUsage(turn: TurnNode): Usage {
  const total = emptyUsage();
  mergeUsage(total, turn.usage);
  for (const a of turn.agents) mergeUsage(total, a.usage);
  return total;
}

export class TurnModel {
  private current: TurnNode | null = null;
  private index = 0;
  private readonly pairs = new ToolPairs();
  /** the turn's calls in order, subagents' included: where a subagent's spawner is looked for */
  private calls: CallNode[] = [];
  private readonly agents = new Map<string, AgentNode>();
  private readonly seenMessages = new Set<string>();
  private readonly spawners: ReadonlySet<string>;

  constructor(private readonly options: TurnModelOptions = {}) {
    this.spawners = spawnerNames(options.subagentTools ?? []);
  }

  /** Whether `e` would start a new turn (a reader that stops between turns asks before adding it). */
  startsTurn(e: TurnEvent): boolean {
    const t = this.current;
    if (!t) return true;
    if (e.kind === "user_prompt" && !e.agent_id) return t.prompted || t.answered || t.busy;
    if (e.kind === "session_start") return t.prompted || t.answered;
    return false;
  }

  add(e: TurnEvent): Placement {
    const opens = this.startsTurn(e);
    if (opens) this.open(e);
    const turn = this.current!;
    if (!turn.turn_id && e.turn_id) turn.turn_id = e.turn_id;
    const agent = e.agent_id ? this.agents.get(e.agent_id) : undefined;
    const placed = { turn, opens, agent };
    switch (e.kind) {
      case "user_prompt": {
        const main = !e.agent_id;
        if (main) {
          turn.prompted = true;
          if (e.turn_id) turn.turn_id = e.turn_id;
        }
        return { ...placed, role: "prompt", main };
      }
      case "tool_call":
        return { ...placed, role: "call", call: this.call(e, turn) };
      case "tool_result":
      case "tool_error":
        return this.result(e, placed);
      case "subagent_start":
        return { ...placed, role: "agent_start", started: this.start(e, turn) };
      case "subagent_stop":
        return { ...placed, role: "agent_stop", stopped: this.stop(e) };
      case "turn_usage":
        return { ...placed, role: "usage", counted: this.usage(e, turn, agent) };
      case "assistant_message":
        if (!agent) turn.answered = true;
        return { ...placed, role: "answer" };
      default:
        if (e.kind !== "session_end" && e.kind !== "compaction" && e.payload.failure === true)
          turn.busy = true;
        return { ...placed, role: "other" };
    }
  }

  /** Ends the turn being built (the events are over). */
  finish(): void {
    this.end();
  }

  private open(e: TurnEvent): void {
    this.end();
    this.index += 1;
    this.current = {
      index: this.index,
      turn_id: e.turn_id ?? null,
      prompted: false,
      answered: false,
      busy: false,
      usage: emptyUsage(),
      agents: [],
      tool_calls: 0,
      tool_errors: 0,
    };
  }

  private end(): void {
    const t = this.current;
    if (!t) return;
    this.current = null;
    this.pairs.clear();
    this.calls = [];
    this.agents.clear();
    this.options.onTurnEnd?.(t);
  }

  private newCall(e: TurnEvent, recorded: boolean): CallNode {
    const call: CallNode = {
      tool_use_id: nonEmpty(e.payload.tool_use_id) ?? null,
      name: nonEmpty(e.payload.tool_name) ?? "tool",
      ...(e.agent_id ? { agent_id: e.agent_id } : {}),
      recorded,
      done: false,
      failed: false,
      agents: [],
    };
    this.calls.push(call);
    // The spawner search looks at the latest calls; the bound keeps the oldest out of it.
    if (this.calls.length > 4 * 4096) this.calls.shift();
    return call;
  }

  private call(e: TurnEvent, turn: TurnNode): CallNode {
    turn.busy = true;
    turn.tool_calls += 1;
    const call = this.newCall(e, true);
    this.pairs.remember(call);
    return call;
  }

  private result(e: TurnEvent, placed: Omit<Placement, "role">): Placement {
    const turn = placed.turn;
    turn.busy = true;
    const failed = e.kind === "tool_error" || e.payload.success === false;
    let call = this.pairs.take(e);
    const orphan = call === undefined;
    if (!call) {
      call = this.newCall(e, false);
      this.pairs.remember(call);
    }
    const repeat = call.done;
    // An error counts once per call: a failing second report of a call that succeeded makes it one.
    if (failed && !call.failed) turn.tool_errors += 1;
    call.done = true;
    if (failed) call.failed = true;
    return { ...placed, role: "result", call, orphan, repeat, failed };
  }

  private start(e: TurnEvent, turn: TurnNode): AgentNode {
    turn.busy = true;
    const parent = pickSpawner(this.calls, this.spawners) ?? null;
    const agent: AgentNode = {
      agent_id: e.agent_id ?? nonEmpty(e.payload.agent_id) ?? `#${e.sequence}`,
      agent_type: nonEmpty(e.payload.agent_type) ?? null,
      parent,
      stopped: false,
      usage: emptyUsage(),
    };
    parent?.agents.push(agent);
    if (turn.agents.length < MAX_AGENTS) {
      turn.agents.push(agent);
      this.agents.set(agent.agent_id, agent);
    }
    return agent;
  }

  private stop(e: TurnEvent): AgentNode | undefined {
    const id = e.agent_id ?? nonEmpty(e.payload.agent_id);
    const agent = id ? this.agents.get(id) : undefined;
    if (agent) agent.stopped = true;
    return agent;
  }

  /** Counts a response's usage once, for its subagent or the main agent; false for one already counted. */
  private usage(e: TurnEvent, turn: TurnNode, agent: AgentNode | undefined): boolean {
    const u = e.usage;
    if (!u) return false;
    const messageId = nonEmpty(u.message_id);
    if (messageId) {
      if (this.seenMessages.has(messageId)) return false;
      if (this.seenMessages.size >= MAX_MESSAGE_IDS) this.seenMessages.clear();
      this.seenMessages.add(messageId);
    }
    addUsage(agent ? agent.usage : turn.usage, u);
    return true;
  }
}
