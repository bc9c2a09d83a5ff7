// The relevance gate (memory/store/relevance.ts through retrieve()): an item is given only when it holds enough of
// the prompt's term weight; an unrelated prompt that shares a word with memory gets nothing; of several items
// only those that add something; items the session was given already are left out, and the outcome says so.
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLD } from "../../../src/memory/store/inject.ts";
import type { MemoryItem } from "../../../src/memory/store/items.ts";
import { coverage, gate, promptTerms, termWeight } from "../../../src/memory/store/relevance.ts";
import { closeRetrievalStores, retrieve } from "../../../src/memory/store/retrieval.ts";
import { itemMaker, storeMemory } from "../../helpers/memory-item.ts";
import { useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-retrieval-gate-");
afterEach(() => closeRetrievalStores());

const item = itemMaker({ kind: "exchange", event_ids: (n) => [`e${n}`] });

function withMemory(items: MemoryItem[]): string {
  return storeMemory(project(), items);
}

/** A small project memory: what the gate is weighed against. */
function memory() {
  const key = item(
    "When does the staging deploy key rotate?",
    "User: When does the staging deploy key rotate?\n\nAssistant: The staging deploy key rotates every Friday at 17:00 UTC; the new one is in the vault by 17:05.",
  );
  const port = item(
    "Which port is the dev database on?",
    "User: Which port is the dev database on?\n\nAssistant: Port 5433 in docker-compose, so it does not clash with a Postgres on the host.",
  );
  const queue = item(
    "A settlement job is stuck",
    "User: A settlement job is stuck\n\nAssistant: Retry it with npm run queue:retry -- <jobId>; the workers run with concurrency 4.",
  );
  const lint = item(
    "Lint setup",
    "User: How do we lint?\n\nAssistant: biome formats the code; run npx biome check --write.",
  );
  return { key, port, queue, lint, root: withMemory([key, port, queue, lint]) };
}

describe("the relevance gate", () => {
  it("a related question gets the item it asks about, with its score and the threshold used", () => {
    const m = memory();
    const r = retrieve(m.root, "What time does the staging deploy key get rotated?");
    expect(r).toMatchObject({ outcome: "injected", item_ids: [m.key.id], threshold: DEFAULT_THRESHOLD });
    expect(r.scores).toHaveLength(1);
    expect(r.scores[0]!).toBeGreaterThanOrEqual(DEFAULT_THRESHOLD);
    expect(r.scores[0]!).toBeLessThanOrEqual(1);
  });

  it("an unrelated question sharing a word with memory gets nothing, and the query is kept", () => {
    const m = memory();
    for (const q of [
      "How do I rotate my SSH key for GitHub?",
      "How do I install Postgres on Ubuntu?",
      "What is the capital of Australia?",
    ]) {
      const r = retrieve(m.root, q);
      expect(r.outcome, q).toBe("nothing_relevant");
      expect(r.item_ids, q).toEqual([]);
      expect(r.bytes, q).toBe(0);
      expect(r.text, q).toBe("");
      if (q !== "What is the capital of Australia?") expect(r.query, q).not.toBe("");
    }
  });

  it("the threshold is the user's: 0 lets a weak match through, 1 only a prompt all of whose words an item holds", () => {
    const m = memory();
    const weak = "How do I rotate my SSH key for GitHub?";
    expect(retrieve(m.root, weak, { threshold: 0 }).item_ids).toContain(m.key.id);
    expect(retrieve(m.root, "staging deploy key", { threshold: 1 }).item_ids).toEqual([m.key.id]);
    expect(retrieve(m.root, "staging deploy key rotation schedule", { threshold: 1 }).outcome).toBe(
      "nothing_relevant",
    );
  });

  it("only items that add something: the one that merely shares a word with the best is left out", () => {
    const m = memory();
    const r = retrieve(
      m.root,
      "Which port does the dev database listen on, and how do I retry a stuck settlement job?",
      {
        threshold: 0.3,
      },
    );
    expect(r.item_ids.sort()).toEqual([m.port.id, m.queue.id].sort());
    expect(r.item_ids).not.toContain(m.lint.id);
  });

  it("the same text promoted from two sessions is given once", () => {
    const a = item(
      "Deploy window",
      "We deploy to production on Tuesdays and Thursdays after 10:00.",
      "claude:s1",
    );
    const b = item(
      "Deploy window",
      "We deploy to production on Tuesdays and Thursdays after 10:00.",
      "claude:s2",
    );
    const root = withMemory([a, b]);
    expect(retrieve(root, "When do we deploy to production?").item_ids).toHaveLength(1);
  });
});

describe("repeats within a session", () => {
  it("an item given before is left out: 'repeats_only' when it was all, with its id", () => {
    const m = memory();
    const r = retrieve(m.root, "When does the staging deploy key rotate?", { exclude: new Set([m.key.id]) });
    expect(r).toMatchObject({
      outcome: "repeats_only",
      item_ids: [],
      bytes: 0,
      text: "",
      matched: 1,
      skipped_repeat_ids: [m.key.id],
    });
  });

  it("the relevant items not given yet are, and the others are named as skipped", () => {
    const m = memory();
    const q = "Which port does the dev database listen on, and how do I retry a stuck settlement job?";
    const r = retrieve(m.root, q, { threshold: 0.3, exclude: new Set([m.port.id]) });
    expect(r).toMatchObject({
      outcome: "injected",
      item_ids: [m.queue.id],
      skipped_repeat_ids: [m.port.id],
      matched: 2,
    });
    expect(r.text).not.toContain("5433");
  });
});

describe("prompt terms and weights", () => {
  it("keeps content words and identifiers, drops grammar, asking and lone digits, merges variants", () => {
    const terms = promptTerms(
      "Can you remind me why src/core/store.ts deploys, deployed and deploying fail on step 2 of Node 22?",
    );
    expect(terms.map((t) => t.text)).toEqual(["src/core/store.ts", "deploys", "fail", "step", "node", "22"]);
    expect(terms.find((t) => t.text === "src/core/store.ts")!.ident).toBe(true);
    expect(terms.find((t) => t.text === "fail")!.common).toBe(true);
    expect(terms.find((t) => t.text === "node")!.common).toBe(false);
    expect(promptTerms("")).toEqual([]);
    expect(promptTerms("ok thanks, what is it?")).toEqual([]);
    expect(promptTerms("x ".repeat(10_000)).length).toBe(0);
    expect(promptTerms(Array.from({ length: 100 }, (_, i) => `word${i}x`).join(" "))).toHaveLength(24);
  });

  it("a word memory lacks weighs most, a rare one next, a common one little, wherever the memory's size", () => {
    for (const items of [5, 50, 5000]) {
      const unknown = termWeight(0, items, false);
      const rare = termWeight(1, items, false);
      const common = termWeight(0, items, true);
      expect(unknown).toBeGreaterThan(rare);
      expect(rare).toBeGreaterThan(common);
      expect(termWeight(Math.floor(items / 2), items, false)).toBeLessThan(rare);
    }
    expect(coverage([1, 1, 2], [0, 2])).toBe(0.75);
    expect(coverage([1, 1], [0, 0, 0])).toBe(0.5);
    expect(coverage([], [])).toBe(0);
  });

  it("the gate: threshold on coverage, a cut relative to the best, and nothing that only repeats the best's terms", () => {
    const c = (coverage: number, score: number, held: number[]) => ({ coverage, score, held });
    expect(gate([c(0.4, 0.4, [0])], { threshold: 0.5, max: 5 })).toEqual([]);
    const best = c(0.9, 0.9, [0, 1]);
    const same = c(0.9, 0.85, [0, 1]);
    const other = c(0.8, 0.8, [0, 2, 4]);
    const oneMore = c(0.8, 0.79, [0, 1, 5]);
    const weak = c(0.6, 0.5, [3]);
    // `same` holds nothing new, `oneMore` one term only, `weak` is under 0.7 of the best.
    expect(gate([same, weak, oneMore, other, best], { threshold: 0.5, max: 5 })).toEqual([best, other]);
    expect(gate([best, other], { threshold: 0.5, max: 1 })).toEqual([best]);
  });
});
