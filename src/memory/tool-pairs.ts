// A tool call and its result are two events (PreToolUse, PostToolUse) and one memory item. They pair by
// tool_use_id (Claude, Codex); Gemini's hooks name no id, so there a result takes the oldest open call of
// the same tool in the same turn and agent. Codex records a failing command twice, an ordinary PostToolUse
// and later a tool_error read from its rollout with the same id: a group therefore stays open until its turn
// ends, so that error lands in the same item. Open groups are bounded: past MAX_OPEN the oldest is closed.
import type { Part, SourceEvent, ToolRole } from "./store/item-text.ts";

export type { ToolRole };

const MAX_OPEN = 256;
const ROLE_ORDER: Record<ToolRole, number> = { call: 0, result: 1, error: 2 };

interface Group {
  key: string;
  byId: boolean;
  turn: string | undefined;
  first: number;
  parts: Partial<Record<ToolRole, Part>>;
}

export class ToolPairer {
  /** In the order the groups opened. */
  private open: Group[] = [];

  /** Adds a tool event; answers the groups this closes (a duplicate role, another turn, the bound). */
  push(event: SourceEvent, role: ToolRole, part: Part): Part[][] {
    const closed = this.onEvent(event);
    const toolUseId = event.payload.tool_use_id;
    const byId = typeof toolUseId === "string" && toolUseId !== "";
    const agent = event.agent_id ?? "";
    const key = byId
      ? `id\u0000${agent}\u0000${toolUseId}`
      : `name\u0000${agent}\u0000${event.turn_id ?? ""}\u0000${String(event.payload.tool_name ?? "")}`;
    let group = this.find(key, byId, role);
    if (group?.parts[role]) {
      // The same role twice for one id: the earlier group is complete.
      closed.push(this.close(group));
      group = undefined;
    }
    if (!group) {
      group = { key, byId, turn: event.turn_id, first: event.sequence, parts: {} };
      this.open.push(group);
      if (this.open.length > MAX_OPEN) closed.push(this.close(this.open[0]!));
    }
    group.parts[role] = part;
    return closed;
  }

  /** Any event of a new turn closes the groups of the turns before it. */
  onEvent(event: SourceEvent): Part[][] {
    const turn = event.turn_id;
    if (turn === undefined) return [];
    const done = this.open.filter((g) => g.turn !== undefined && g.turn !== turn);
    return done.map((g) => this.close(g));
  }

  /** The first sequence number of the open groups: no tool item can start before it any more. */
  oldest(): number | undefined {
    return this.open.length === 0 ? undefined : Math.min(...this.open.map((g) => g.first));
  }

  finish(): Part[][] {
    const all = [...this.open].sort((a, b) => a.first - b.first);
    return all.map((g) => this.close(g));
  }

  private find(key: string, byId: boolean, role: ToolRole): Group | undefined {
    if (byId) return this.open.find((g) => g.key === key);
    // Without an id every call is a new invocation; an outcome takes the oldest call still waiting for one.
    if (role === "call") return undefined;
    return this.open.find((g) => g.key === key && !g.parts.result && !g.parts.error);
  }

  private close(group: Group): Part[] {
    this.open = this.open.filter((g) => g !== group);
    return (Object.entries(group.parts) as Array<[ToolRole, Part]>)
      .sort(([a], [b]) => ROLE_ORDER[a] - ROLE_ORDER[b])
      .map(([, part]) => part);
  }
}
