// Which call started a subagent. SubagentStart names the agent, never the call, so the call is inferred from
// the turn's calls (the subagent's own calls included, for an agent started by a subagent), latest first:
//   1. a spawner tool (the provider's subagentTools) still running with no agent yet, the oldest of them:
//      several started at once start their agents in order, and an agent's spawner already has it;
//   2. a spawner still running (one call that starts several agents);
//   3. a spawner that has answered but has no agent yet (a spawn tool may return before the child's
//      SubagentStart fires);
//   4. any call still running.
import type { CallNode } from "./nodes.ts";

/** The provider's tool names that start a subagent, compared without case. */
export function spawnerNames(names: readonly string[]): ReadonlySet<string> {
  return new Set(names.map((n) => n.toLowerCase()));
}

export function pickSpawner(calls: readonly CallNode[], spawners: ReadonlySet<string>): CallNode | undefined {
  const spawns = (c: CallNode) => spawners.has(c.name.toLowerCase());
  const oldestFresh = calls.find((c) => spawns(c) && !c.done && c.agents.length === 0);
  if (oldestFresh) return oldestFresh;
  return (
    latest(calls, (c) => spawns(c) && !c.done) ??
    latest(calls, (c) => spawns(c) && c.agents.length === 0) ??
    latest(calls, (c) => !c.done)
  );
}

function latest(calls: readonly CallNode[], pred: (c: CallNode) => boolean): CallNode | undefined {
  for (let i = calls.length - 1; i >= 0; i -= 1) if (pred(calls[i]!)) return calls[i];
  return undefined;
}
