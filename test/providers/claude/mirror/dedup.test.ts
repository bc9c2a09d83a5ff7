import { describe, expect, it } from "vitest";
import {
  DedupStore,
  dedupKey,
  fingerprint,
  isPlanStale,
  planUserMessages,
  SWEEP_INTERVAL_MS,
  userTurnsOf,
} from "../../../../src/providers/claude/mirror/dedup.ts";

const u = (content: unknown) => ({ role: "user", content });
const a = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });
const result = (id: string) => ({ type: "tool_result", tool_use_id: id, content: "out" });

function ordinals(plan: ReturnType<typeof planUserMessages>): number[] {
  return plan.items.map((i) => i.ordinal);
}

describe("position-based dedup", () => {
  it("counts in user-ordinal coordinates, not raw messages[] indices (the seed's walk-through)", () => {
    const store = new DedupStore(10, 1e9);
    const key = dedupKey("s", null);
    const r1 = [u("u1")];
    const r2 = [u("u1"), a("a1"), u("u2")];
    const r3 = [u("u1"), a("a1"), u("u2"), a("a2"), u("u3")];

    const p1 = planUserMessages(store.get(key, 0), userTurnsOf(r1));
    expect(ordinals(p1)).toEqual([0]);
    store.commit(key, p1, 0);
    const p2 = planUserMessages(store.get(key, 0), userTurnsOf(r2));
    expect(ordinals(p2)).toEqual([1]);
    store.commit(key, p2, 0);
    const p3 = planUserMessages(store.get(key, 0), userTurnsOf(r3));
    expect(ordinals(p3)).toEqual([2]); // 3 user records after 3 turns, not 4
    expect(p3.items[0]?.content).toBe("u3");
    store.commit(key, p3, 0);
    expect(store.peek(key)?.count).toBe(3);
  });

  it("does not advance until commit: an uncommitted plan re-stages the same positions", () => {
    const store = new DedupStore(10, 1e9);
    const key = dedupKey("s", null);
    store.commit(key, planUserMessages(undefined, userTurnsOf([u("u1")])), 0);
    const history = [u("u1"), a("a1"), u("u2")];
    const failed = planUserMessages(store.get(key, 0), userTurnsOf(history));
    const retry = planUserMessages(store.get(key, 0), userTurnsOf(history));
    expect(ordinals(failed)).toEqual([1]);
    expect(ordinals(retry)).toEqual([1]);
  });

  it("keeps repeated identical texts at distinct positions", () => {
    const store = new DedupStore(10, 1e9);
    const key = "k";
    const history: unknown[] = [];
    const staged: unknown[] = [];
    for (const text of ["hi", "yes", "do it", "yes"]) {
      history.push(u(text));
      const plan = planUserMessages(store.get(key, 0), userTurnsOf(history));
      staged.push(...plan.items.map((i) => i.content));
      store.commit(key, plan, 0);
      history.push(a("ok"));
    }
    expect(staged).toEqual(["hi", "yes", "do it", "yes"]);
  });

  it("omits tool_result blocks already mirrored, and a message made only of them", () => {
    const store = new DedupStore(10, 1e9);
    const key = "k";
    const first = planUserMessages(undefined, userTurnsOf([u([result("t1"), result("t2")])]));
    expect(first.toolIds).toEqual(["t1", "t2"]);
    store.commit(key, first, 0);
    // A rewritten history (divergent) re-sends t1 together with something new.
    const again = planUserMessages(
      store.get(key, 0),
      userTurnsOf([u("summary"), a("x"), u([result("t1"), { type: "text", text: "and more" }])]),
    );
    expect(again.divergent).toBe(true);
    expect(again.items).toEqual([{ ordinal: 1, content: [{ type: "text", text: "and more" }], system: [] }]);
    const onlyOld = planUserMessages(store.get(key, 0), userTurnsOf([u("s"), a("x"), u([result("t2")])]));
    expect(onlyOld.items).toEqual([]);
  });

  it("a duplicated tool_use_id inside one request is staged once", () => {
    const plan = planUserMessages(undefined, userTurnsOf([u([result("t")]), a("x"), u([result("t")])]));
    expect(plan.toolIds).toEqual(["t"]);
    expect(ordinals(plan)).toEqual([0]);
  });

  it("a shorter or changed history stages only its newest user message", () => {
    const store = new DedupStore(10, 1e9);
    const key = "k";
    store.commit(
      key,
      planUserMessages(undefined, userTurnsOf([u("u1"), a("a"), u("u2"), a("b"), u("u3")])),
      0,
    );
    const shorter = planUserMessages(store.get(key, 0), userTurnsOf([u("summary"), a("x"), u("next")]));
    expect(shorter.divergent).toBe(true);
    expect(ordinals(shorter)).toEqual([1]);
    const rewritten = planUserMessages(
      store.get(key, 0),
      userTurnsOf([u("u1"), a("a"), u("u2"), a("b"), u("u3 edited"), a("c"), u("u4")]),
    );
    expect(rewritten.divergent).toBe(true);
    expect(ordinals(rewritten)).toEqual([3]);
  });

  it("without state, a cold resume (mirror file exists) stages the newest message; a fresh session all of them", () => {
    const turns = userTurnsOf([u("u1"), a("a"), u("u2"), a("b"), u("u3")]);
    expect(ordinals(planUserMessages(undefined, turns))).toEqual([0, 1, 2]);
    expect(ordinals(planUserMessages(undefined, turns, { coldResume: true }))).toEqual([2]);
  });

  it("ignores the moving cache_control marker when fingerprinting", () => {
    const withMarker = u([{ type: "text", text: "x", cache_control: { type: "ephemeral" } }]);
    expect(fingerprint(withMarker)).toBe(fingerprint(u([{ type: "text", text: "x" }])));
    expect(fingerprint(u("x"))).not.toBe(fingerprint(u("y")));
  });

  it("attaches the system-role messages that follow a user message", () => {
    const turns = userTurnsOf([
      u("u1"),
      { role: "system", content: [{ type: "text", text: "# Environment" }] },
      { role: "system", content: "model note" },
      a("a1"),
      { role: "system", content: "orphan after assistant" },
      u("u2"),
    ]);
    expect(turns.map((t) => t.system)).toEqual([
      [[{ type: "text", text: "# Environment" }], "model note"],
      [],
    ]);
  });

  it("notices a plan made against state that moved on", () => {
    const store = new DedupStore(10, 1e9);
    const turns = userTurnsOf([u("u1")]);
    const plan = planUserMessages(undefined, turns);
    expect(isPlanStale(plan, undefined)).toBe(false);
    store.commit("k", plan, 0);
    expect(isPlanStale(plan, store.peek("k"))).toBe(true);
    const next = planUserMessages(store.peek("k"), turns);
    expect(isPlanStale(next, store.peek("k"))).toBe(false);
  });
});

describe("dedup store", () => {
  const commitOne = (store: DedupStore, key: string, now = 0) =>
    store.commit(key, planUserMessages(undefined, userTurnsOf([u(key)])), now);

  it("keys state by (session, agent)", () => {
    expect(dedupKey("s", null)).not.toBe(dedupKey("s", "agent"));
    expect(dedupKey("s", "a")).not.toBe(dedupKey("s", "b"));
  });

  it("evicts the least recently used session beyond maxSessions", () => {
    const store = new DedupStore(2, 1e9);
    commitOne(store, "a");
    commitOne(store, "b");
    store.get("a", 1); // a is now the most recent
    commitOne(store, "c");
    expect(store.size).toBe(2);
    expect(store.peek("b")).toBeUndefined();
    expect(store.peek("a")).toBeDefined();
    expect(store.peek("c")).toBeDefined();
  });

  it("sweeps idle entries at most once per minute", () => {
    const store = new DedupStore(10, 1000);
    commitOne(store, "old", 0);
    commitOne(store, "fresh", SWEEP_INTERVAL_MS + 500);
    expect(store.maybeSweep(SWEEP_INTERVAL_MS + 1000)).toBe(1);
    expect(store.peek("old")).toBeUndefined();
    commitOne(store, "old2", SWEEP_INTERVAL_MS + 1000);
    // Within the same minute the sweep does not run again.
    expect(store.maybeSweep(SWEEP_INTERVAL_MS + 5000)).toBe(0);
    expect(store.maybeSweep(2 * SWEEP_INTERVAL_MS + 5000)).toBe(2);
  });

  it("bounds the per-session tool id set, oldest first", () => {
    const store = new DedupStore(10, 1e9);
    const blocks = Array.from({ length: 10_050 }, (_, i) => result(`t${i}`));
    const entry = store.commit("k", planUserMessages(undefined, userTurnsOf([u(blocks)])), 0);
    expect(entry.toolIds.size).toBe(10_000);
    expect(entry.toolIds.has("t0")).toBe(false);
    expect(entry.toolIds.has("t10049")).toBe(true);
  });
});
