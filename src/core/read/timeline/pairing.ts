// A tool call and its result are two events (PreToolUse, PostToolUse). They pair by tool_use_id; a client
// whose hooks name no id gets a result paired with the oldest unanswered call of the same tool and agent. A
// call is remembered until its turn ends, answered or not: a client may report a failing command twice, an
// ordinary PostToolUse and later a tool_error read from its own log with the same id, and that second report
// belongs to the same call. A turn of thousands of calls is bounded: past MAX_REMEMBERED the oldest is
// forgotten, and a result for it is one whose call was not recorded.
import type { CallNode, TurnEvent } from "./nodes.ts";

const MAX_REMEMBERED = 4096;

function nonEmpty(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

export class ToolPairs {
  private readonly byId = new Map<string, CallNode>();
  /** Calls without an id, oldest first per tool and agent: a queue each, so pairing stays O(1) per result. */
  private readonly waiting = new Map<string, CallNode[]>();

  private static key(name: string, agent: string | undefined): string {
    return `${agent ?? ""}\u0000${name}`;
  }

  /** Remembers a call (a recorded one, or one made up for a result) until the turn ends. */
  remember(call: CallNode): void {
    if (call.tool_use_id !== null) {
      // A second call with the same id is a new invocation: later results are its.
      this.byId.delete(call.tool_use_id);
      this.byId.set(call.tool_use_id, call);
      if (this.byId.size > MAX_REMEMBERED) this.byId.delete(this.byId.keys().next().value!);
      return;
    }
    if (call.done) return;
    const key = ToolPairs.key(call.name, call.agent_id);
    const queue = this.waiting.get(key) ?? [];
    queue.push(call);
    if (queue.length > MAX_REMEMBERED) queue.shift();
    this.waiting.set(key, queue);
    if (this.waiting.size > MAX_REMEMBERED) this.waiting.delete(this.waiting.keys().next().value!);
  }

  /** The call a result or error belongs to; undefined when none is remembered. */
  take(e: TurnEvent): CallNode | undefined {
    const id = nonEmpty(e.payload.tool_use_id);
    if (id) return this.byId.get(id);
    const key = ToolPairs.key(nonEmpty(e.payload.tool_name) ?? "tool", e.agent_id);
    const queue = this.waiting.get(key);
    const call = queue?.shift();
    if (queue && queue.length === 0) this.waiting.delete(key);
    return call;
  }

  clear(): void {
    this.byId.clear();
    this.waiting.clear();
  }
}
