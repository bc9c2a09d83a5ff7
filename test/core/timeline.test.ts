import { describe, expect, it } from "vitest";
import type { Placement, TurnEvent, TurnNode } from "../../src/core/read/timeline/nodes.ts";
import { TurnModel, turnUsage } from "../../src/core/read/timeline/turns.ts";

let seq = 0;
function ev(kind: string, payload: Record<string, unknown> = {}, extra: Partial<TurnEvent> = {}): TurnEvent {
  seq += 1;
  return { sequence: seq, kind, payload, ...extra };
}

function fold(events: TurnEvent[], subagentTools: string[] = []): { turns: TurnNode[]; placed: Placement[] } {
  const turns: TurnNode[] = [];
  const model = new TurnModel({ subagentTools, onTurnEnd: (t) => turns.push(t) });
  const placed = events.map((e) => model.add(e));
  model.finish();
  return { turns, placed };
}

const call = (id: string | undefined, name = "Bash", extra: Partial<TurnEvent> = {}) =>
  ev("tool_call", { tool_name: name, ...(id ? { tool_use_id: id } : {}) }, extra);
const result = (
  id: string | undefined,
  name = "Bash",
  extra: Partial<TurnEvent> = {},
  kind = "tool_result",
) => ev(kind, { tool_name: name, ...(id ? { tool_use_id: id } : {}) }, extra);

function asResult(p: Placement) {
  if (p.role !== "result") throw new Error(`not a result: ${p.role}`);
  return p;
}

describe("the turn model", () => {
  it("starts a turn at each main prompt; a session start before the first prompt is part of its turn", () => {
    const { turns, placed } = fold([
      ev("session_start"),
      ev("user_prompt", { prompt: "one" }, { turn_id: "t1" }),
      ev("assistant_message", { text: "a" }),
      ev("user_prompt", { prompt: "two" }, { turn_id: "t2" }),
      ev("session_start", { source: "resume" }),
      ev("user_prompt", { prompt: "three" }),
    ]);
    expect(turns.map((t) => t.index)).toEqual([1, 2, 3]);
    expect(turns.map((t) => t.turn_id)).toEqual(["t1", "t2", null]);
    expect(placed.map((p) => p.opens)).toEqual([true, false, false, true, true, false]);
  });

  it("a subagent's own prompt (an agent_id) stays in its parent's turn", () => {
    const { turns, placed } = fold([
      ev("user_prompt", { prompt: "go" }),
      ev("tool_call", { tool_name: "spawn_agent", tool_use_id: "s1" }),
      ev("user_prompt", { prompt: "child task" }, { agent_id: "child" }),
    ]);
    expect(turns).toHaveLength(1);
    expect(placed[2]).toMatchObject({ role: "prompt", main: false, opens: false });
  });

  it("pairs results with calls by tool_use_id in any order, and a result with no call gets one made up", () => {
    const { turns, placed } = fold([
      ev("user_prompt"),
      call("a"),
      call("b"),
      result("b"),
      result("a"),
      result("ghost", "Read"),
    ]);
    const rb = asResult(placed[3]!);
    const ra = asResult(placed[4]!);
    const ghost = asResult(placed[5]!);
    expect(rb.call).toBe((placed[2] as Extract<Placement, { role: "call" }>).call);
    expect(ra.call).toBe((placed[1] as Extract<Placement, { role: "call" }>).call);
    expect([ra.orphan, rb.orphan, ghost.orphan]).toEqual([false, false, true]);
    expect(ghost.call).toMatchObject({ name: "Read", tool_use_id: "ghost", recorded: false, done: true });
    expect(turns[0]).toMatchObject({ tool_calls: 2, tool_errors: 0 });
  });

  it("without an id a result takes the oldest unanswered call of the same tool and agent", () => {
    const { placed } = fold([
      ev("user_prompt"),
      call(undefined, "read_file"),
      call(undefined, "read_file"),
      call(undefined, "read_file", { agent_id: "sub" }),
      result(undefined, "read_file"),
      result(undefined, "read_file"),
      result(undefined, "read_file"),
    ]);
    const calls = placed.slice(1, 4).map((p) => (p as Extract<Placement, { role: "call" }>).call);
    const results = placed.slice(4).map(asResult);
    expect(results[0]!.call).toBe(calls[0]);
    expect(results[1]!.call).toBe(calls[1]);
    // The subagent's call is not the main agent's: a third result of the main agent has no call.
    expect(results[2]!.orphan).toBe(true);
    expect(calls[2]!.done).toBe(false);
  });

  it("a failed call counts one error, its second report (Codex's rollout tool_error) lands on the same call", () => {
    const { turns, placed } = fold([
      ev("user_prompt"),
      call("c1"),
      ev("tool_result", { tool_name: "Bash", tool_use_id: "c1", success: false }),
      result("c1", "Bash", {}, "tool_error"),
      call("c2"),
      result("c2"),
      result("c2", "Bash", {}, "tool_error"),
    ]);
    const first = asResult(placed[2]!);
    const second = asResult(placed[3]!);
    expect([first.failed, first.repeat]).toEqual([true, false]);
    expect([second.failed, second.repeat, second.call]).toEqual([true, true, first.call]);
    // c2 succeeded, then its rollout says it failed: one error more.
    expect(asResult(placed[6]!).repeat).toBe(true);
    expect(turns[0]).toMatchObject({ tool_calls: 2, tool_errors: 2 });
  });

  it("forgets the calls of a turn when the next starts: a late result is one with no call", () => {
    const { placed } = fold([ev("user_prompt"), call("x"), ev("user_prompt"), result("x")]);
    expect(asResult(placed[3]!).orphan).toBe(true);
  });

  it("nests subagents under the spawner call that started them, a subagent's subagent under its own call", () => {
    const { turns, placed } = fold(
      [
        ev("user_prompt"),
        call("t1", "Agent"),
        ev("subagent_start", { agent_type: "explore" }, { agent_id: "A" }),
        call("in1", "Bash", { agent_id: "A" }),
        call("t2", "Task", { agent_id: "A" }),
        ev("subagent_start", {}, { agent_id: "B" }),
        call("b1", "Read", { agent_id: "B" }),
        ev("subagent_stop", {}, { agent_id: "B" }),
        ev("subagent_stop", {}, { agent_id: "A" }),
        result("t1", "Agent"),
      ],
      ["Agent", "Task"],
    );
    const outer = (placed[1] as Extract<Placement, { role: "call" }>).call;
    const inner = (placed[4] as Extract<Placement, { role: "call" }>).call;
    const a = (placed[2] as Extract<Placement, { role: "agent_start" }>).started;
    const b = (placed[5] as Extract<Placement, { role: "agent_start" }>).started;
    expect(a).toMatchObject({ agent_id: "A", agent_type: "explore", parent: outer });
    expect(b.parent).toBe(inner);
    expect(outer.agents).toEqual([a]);
    expect(inner.agents).toEqual([b]);
    expect(placed[6]!.agent).toBe(b);
    expect(placed[3]!.agent).toBe(a);
    expect(placed[7]).toMatchObject({ role: "agent_stop", stopped: b });
    expect([a.stopped, b.stopped]).toEqual([true, true]);
    expect(turns[0]!.agents).toEqual([a, b]);
  });

  it("several spawners running at once start their agents in order; spawner names are the provider's", () => {
    const events = [
      ev("user_prompt"),
      call("x", "spawn_agent"),
      call("y", "spawn_agent"),
      call("z", "Bash"),
      ev("subagent_start", {}, { agent_id: "one" }),
      ev("subagent_start", {}, { agent_id: "two" }),
    ];
    const named = fold(events, ["spawn_agent"]).placed;
    const parents = [4, 5].map(
      (i) => (named[i] as Extract<Placement, { role: "agent_start" }>).started.parent,
    );
    expect(parents.map((p) => p?.tool_use_id)).toEqual(["x", "y"]);
    // A provider that names no spawner: the latest running call is the best guess.
    const unnamed = fold(events).placed;
    expect((unnamed[4] as Extract<Placement, { role: "agent_start" }>).started.parent?.tool_use_id).toBe("z");
  });

  it("a spawner that answered before its subagent started (Codex's spawn_agent) still gets the agent", () => {
    const { placed } = fold(
      [
        ev("user_prompt"),
        call("s", "spawn_agent"),
        result("s", "spawn_agent"),
        ev("subagent_start", {}, { agent_id: "k" }),
      ],
      ["spawn_agent"],
    );
    expect((placed[3] as Extract<Placement, { role: "agent_start" }>).started.parent?.tool_use_id).toBe("s");
  });

  it("counts usage per turn and per subagent, each message id once", () => {
    const usage = (n: number, extra: Record<string, unknown> = {}) => ({
      input_tokens: n,
      output_tokens: 1,
      source: "proxy",
      model: "m",
      ...extra,
    });
    const { turns, placed } = fold(
      [
        ev("user_prompt"),
        ev("turn_usage", {}, { usage: usage(10, { message_id: "r1" }) }),
        ev("turn_usage", {}, { usage: usage(10, { message_id: "r1", source: "claude-transcript" }) }),
        call("t", "Agent"),
        ev("subagent_start", {}, { agent_id: "S" }),
        ev("turn_usage", {}, { agent_id: "S", usage: usage(5) }),
        ev("user_prompt"),
        ev("turn_usage", {}, { usage: usage(7, { cache_read_input_tokens: 100, output_tokens: -3 }) }),
        ev("turn_usage", {}, { usage: usage(99, { message_id: "r1" }) }),
      ],
      ["Agent"],
    );
    expect(placed.filter((p) => p.role === "usage").map((p) => (p as { counted: boolean }).counted)).toEqual([
      true,
      false,
      true,
      true,
      false,
    ]);
    expect(turns[0]!.usage).toMatchObject({ input_tokens: 10, output_tokens: 1, sources: ["proxy"] });
    expect(turns[0]!.agents[0]!.usage.input_tokens).toBe(5);
    expect(turnUsage(turns[0]!)).toMatchObject({ input_tokens: 15, output_tokens: 2, models: ["m"] });
    // A negative count is not a count.
    expect(turns[1]!.usage).toMatchObject({
      input_tokens: 7,
      output_tokens: 0,
      cache_read_input_tokens: 100,
    });
  });

  it("a turn that failed or ran a tool before any prompt is a turn of its own", () => {
    const { turns } = fold([
      ev("provider_event", { failure: true }),
      ev("user_prompt"),
      call("q"),
      ev("user_prompt"),
    ]);
    expect(turns).toHaveLength(3);
  });
});
