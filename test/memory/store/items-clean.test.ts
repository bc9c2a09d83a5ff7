// What promotion leaves out and what it joins: acknowledgements, greetings, empty answers and prompts that were
// never answered are no items; a prompt and its answer are one; a follow-up joins the exchange it continues;
// repeats (word for word or nearly) are kept once, but a correction of a number never counts as a repeat; and
// items come out in the order they start in the session, which is the order they are stored and previewed in.
import { describe, expect, it } from "vitest";
import { Duplicates, isFollowUp, isTrivial, saysLittle } from "../../../src/memory/store/clean.ts";
import {
  exchangeBody,
  ItemBuilder,
  type ItemOptions,
  MAX_BODY_BYTES,
  type MemoryItem,
  type SourceEvent,
} from "../../../src/memory/store/items.ts";
import { sourceEvent } from "../../helpers/memory-item.ts";

function ev(sequence: number, kind: string, payload: Record<string, unknown>, turn = "t1"): SourceEvent {
  return sourceEvent(sequence, kind, payload, { turn_id: turn });
}

function run(events: Array<SourceEvent | [SourceEvent, false]>, opts: Partial<ItemOptions> = {}) {
  const b = new ItemBuilder({
    archive: { sha256: "a".repeat(64), bytes: 1 },
    createdAt: "2026-01-01T00:00:00Z",
    ...opts,
  });
  const items: MemoryItem[] = [];
  for (const e of events) {
    const [event, selected] = Array.isArray(e) ? e : [e, true];
    items.push(...b.push(structuredClone(event), selected).map((x) => x.item));
  }
  items.push(...b.finish().map((x) => x.item));
  return { items, skipped: b.skipped };
}

let seq = 0;
function turn(prompt: string, answer?: string): SourceEvent[] {
  const t = `t${++seq}`;
  const out = [ev(++seq, "user_prompt", { prompt }, t)];
  if (answer !== undefined) out.push(ev(++seq, "assistant_message", { text: answer }, t));
  return out;
}

describe("trivial text", () => {
  it("acknowledgements, thanks, greetings and empty text have nothing to remember", () => {
    for (const t of [
      "",
      "  ",
      "ok",
      "Thanks!",
      "thank you so much",
      "Hello from the mock.",
      "Hi there, Sam!",
      "You're welcome!",
      "Sounds good, I'll do that.",
      "Great.",
      "continue",
      "👍",
      "I don't know.",
    ]) {
      expect(isTrivial(t), t).toBe(true);
    }
  });

  it("a fact is never trivial, however short: a number, a path, a name, a correction", () => {
    for (const t of [
      "5433.",
      "Use pnpm, not npm.",
      "No, use pnpm.",
      "src/core/store.ts",
      "Node 20.11",
      "The staging key rotates on Fridays.",
      "pnpm",
    ]) {
      expect(isTrivial(t), t).toBe(false);
    }
  });

  it("alone (no exchange around it) a text needs more than two words of content, or a number, path or name", () => {
    for (const t of ["Mock reply.", "Tests pass.", "Hello from the mock.", "fix it"])
      expect(saysLittle(t), t).toBe(true);
    for (const t of ["Use pnpm, not npm.", "Port 5433.", "The worker retries failed jobs hourly."]) {
      expect(saysLittle(t), t).toBe(false);
    }
  });

  it("a follow-up continues the prompt before it; a new question does not", () => {
    for (const t of [
      "And rotation?",
      "and if it is down?",
      "What about staging?",
      "also the worker",
      "what was the command again",
    ]) {
      expect(isFollowUp(t), t).toBe(true);
    }
    for (const t of ["How are webhooks signed?", "Why does transfer.test.ts fail on CI?", "port 5433?"]) {
      expect(isFollowUp(t), t).toBe(false);
    }
  });
});

describe("cleaning a promotion", () => {
  it("leaves out greetings and thanks, says so, and keeps the exchange that matters", () => {
    const { items, skipped } = run([
      ...turn("hi", "Hello from the mock."),
      ...turn("hello", "Mock reply."),
      ...turn(
        "Which port does the dev database use?",
        "Port 5433, so it does not clash with a host Postgres.",
      ),
      ...turn("thanks!", "You're welcome!"),
    ]);
    expect(items.map((i) => i.kind)).toEqual(["exchange"]);
    expect(items[0]!.body).toContain("5433");
    expect(skipped).toEqual({ trivial: 3, unanswered: 0, duplicate: 0 });
  });

  it("'continue' gives the answer alone; a statement acknowledged gives the prompt alone; a question answered 'Yes.' stays whole", () => {
    const { items } = run([
      ...turn("continue", "I added the fee_minor column and a third ledger leg for fees."),
      ...turn("The staging deploy key rotates every Friday at 17:00 UTC.", "Noted."),
      ...turn("Do we squash merge pull requests?", "Yes."),
    ]);
    expect(items.map((i) => i.kind)).toEqual(["answer", "prompt", "exchange"]);
    expect(items[1]!.body).toBe("The staging deploy key rotates every Friday at 17:00 UTC.");
    expect(items[2]!.body).toBe("User: Do we squash merge pull requests?\n\nAssistant: Yes.");
  });

  it("a prompt that never got an answer is no item; one whose answer is outside the selection is", () => {
    const unanswered = run([
      ...turn("Refactor the ledger module please"),
      ...turn("What does reconcile do?", "It compares the bank statement with the ledger nightly."),
    ]);
    expect(unanswered.items.map((i) => i.kind)).toEqual(["exchange"]);
    expect(unanswered.skipped.unanswered).toBe(1);
    const [prompt, answer] = turn(
      "Where are the Helm charts kept?",
      "In deploy/chart, one values file per environment.",
    );
    const outside = run([prompt!, [answer!, false]]);
    expect(outside.items.map((i) => [i.kind, i.body])).toEqual([
      ["prompt", "Where are the Helm charts kept?"],
    ]);
    // Prompts only (--kinds user_prompt): each prompt is an item of its own.
    expect(run([...turn("Where are the Helm charts kept?")], { answers: false }).items).toHaveLength(1);
  });

  it("an empty answer leaves the prompt; --keep-all keeps what cleaning would leave out", () => {
    expect(run(turn("Explain the settlement queue retries", "")).items.map((i) => i.kind)).toEqual([
      "prompt",
    ]);
    const all = run([...turn("hi", "Hello from the mock."), ...turn("Anything else?")], { keepAll: true });
    expect(all.items.map((i) => i.kind)).toEqual(["exchange", "prompt"]);
    expect(all.skipped).toEqual({ trivial: 0, unanswered: 0, duplicate: 0 });
  });

  it("a follow-up joins the exchange it continues: one item, every event, both turns", () => {
    const { items } = run([
      ...turn("How are webhooks signed?", "HMAC-SHA256 over the raw body, in the Ledger-Signature header."),
      ...turn("And if the endpoint is down?", "Deliveries are retried 8 times over about 24 hours."),
      ...turn("How do we deploy to staging?", "make deploy-staging."),
    ]);
    expect(items.map((i) => i.kind)).toEqual(["exchange", "exchange"]);
    expect(items[0]!.source.event_ids).toHaveLength(4);
    expect(items[0]!.title).toBe("How are webhooks signed?");
    expect(items[0]!.body).toBe(
      "User: How are webhooks signed?\n\nAssistant: HMAC-SHA256 over the raw body, in the Ledger-Signature header.\n\n" +
        "User: And if the endpoint is down?\n\nAssistant: Deliveries are retried 8 times over about 24 hours.",
    );
  });

  it("a repeat is kept once, word for word or nearly; a corrected number is not a repeat", () => {
    const answer =
      "The dev database is published on port 5433 so that it does not clash with a Postgres on the host machine.";
    const { items, skipped } = run([
      ...turn("Which port does the dev database use?", answer),
      ...turn("Which port does the dev database use?", answer.toUpperCase()),
      ...turn("which port does the dev database use", `${answer} Really.`),
      ...turn("Which port does the dev database use?", answer.replace("5433", "5434")),
    ]);
    expect(items).toHaveLength(2);
    expect(items[1]!.body).toContain("5434");
    expect(skipped.duplicate).toBe(2);
    const d = new Duplicates();
    expect(
      [answer, `${answer} Really.`, answer.replace("5433", "5434")].map((t) => d.repeats("x", t)),
    ).toEqual([false, true, false]);
  });

  it("items come out in the order they start in the session, tool calls inside a turn after its exchange", () => {
    const t = "t-order";
    const { items } = run([
      ev(1, "user_prompt", { prompt: "Why does the build fail on CI?" }, t),
      ev(
        2,
        "tool_call",
        { tool_name: "Bash", tool_use_id: "b1", tool_input: { command: "npm run build" } },
        t,
      ),
      ev(
        3,
        "tool_call",
        { tool_name: "Read", tool_use_id: "r1", tool_input: { file_path: "/x/tsconfig.json" } },
        t,
      ),
      ev(4, "tool_result", { tool_name: "Read", tool_use_id: "r1", tool_response: "{ strict: true }" }, t),
      ev(
        5,
        "tool_result",
        { tool_name: "Bash", tool_use_id: "b1", tool_response: { stdout: "error TS2322" } },
        t,
      ),
      ev(6, "assistant_message", { text: "A type error in src/app.ts: strict mode is on in CI." }, t),
      ev(7, "user_prompt", { prompt: "What does the Makefile deploy target do?" }, "t2"),
      ev(8, "assistant_message", { text: "It pushes the image and runs helm upgrade." }, "t2"),
    ]);
    expect(items.map((i) => [i.kind, i.source.seq_from])).toEqual([
      ["exchange", 1],
      ["tool_call", 2],
      ["tool_call", 3],
      ["exchange", 7],
    ]);
  });

  it("a long prompt gives way to its answer: the answer stays whole within 4 KiB", () => {
    const answer = `The fix: ${"a".repeat(2500)}`;
    const body = exchangeBody("p".repeat(5000), answer);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(body.endsWith(answer)).toBe(true);
    expect(body).toContain("[…]");
  });
});
