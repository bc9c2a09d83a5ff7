import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../../src/core/archive/event.ts";
import { recordEvents } from "../../../src/core/archive/session-store.ts";
import { wrapInjected } from "../../../src/core/ports/memory-marker.ts";
import { findSession } from "../../../src/core/read/sessions.ts";
import {
  currentRules,
  forEachItem,
  parseKinds,
  parseRange,
  parseSeqList,
  planPromotion,
  type Selection,
  writePromotion,
} from "../../../src/memory/store/promote.ts";
import { eventsFile, scanArchive } from "../../../src/memory/store/source.ts";
import { openMemory } from "../../../src/memory/store/store.ts";
import { event, spec, useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-promote-");

function turn(n: number): NormalizedEvent[] {
  const t = `turn-${n}`;
  return [
    { ...event("user_prompt", `p${n}`, { prompt: `question ${n} about the gizmo` }), turn_id: t },
    {
      ...event("tool_call", `c${n}`, {
        tool_name: "Bash",
        tool_use_id: `tu${n}`,
        tool_input: { command: `make t${n}` },
      }),
      turn_id: t,
    },
    {
      ...event("tool_result", `r${n}`, {
        tool_name: "Bash",
        tool_use_id: `tu${n}`,
        tool_input: { command: `make t${n}` },
        tool_response: { stdout: `built ${n}`, stderr: "" },
      }),
      turn_id: t,
    },
    { ...event("assistant_message", `a${n}`, { text: `answer ${n}: the gizmo works` }), turn_id: t },
    { ...event("turn_usage", `u${n}`, {}), turn_id: t },
  ];
}

function session(root: string, turns = 3): ReturnType<typeof findSession> {
  const events = [
    event("session_start", "s0", {}),
    ...Array.from({ length: turns }, (_, i) => turn(i + 1)).flat(),
  ];
  recordEvents(spec(root), events);
  return findSession(root, "last");
}

const ALL: Selection = { kinds: parseKinds(undefined), excludeEvents: [], excludeFields: [] };

function promote(root: string, sel: Selection = ALL) {
  const ref = findSession(root, "last");
  const rules = currentRules(root);
  const plan = planPromotion(ref, sel, { rules });
  const store = openMemory(root)!;
  try {
    return { plan, ...writePromotion(store, ref, sel, plan, { rules }), count: store.count() };
  } finally {
    store.close();
  }
}

describe("promotion", () => {
  it("plans what it stores: counts, kinds, and the first items as they will be written", () => {
    const root = project();
    const ref = session(root);
    const plan = planPromotion(ref, ALL, { rules: undefined });
    expect(plan).toMatchObject({
      session_id: "claude:sess-1",
      events_scanned: 16,
      events_selected: 12,
      items: 6,
      by_kind: { exchange: 3, tool_call: 3 },
      skipped: { trivial: 0, unanswered: 0, duplicate: 0 },
    });
    const stored: string[] = [];
    forEachItem(ref, ALL, plan, { rules: undefined }, (i) => stored.push(i.id));
    // The preview is the stored order: each turn's exchange, then its tool call.
    expect(plan.preview.map((i) => i.id)).toEqual(stored);
    expect(plan.preview.map((i) => i.kind)).toEqual([
      "exchange",
      "tool_call",
      "exchange",
      "tool_call",
      "exchange",
      "tool_call",
    ]);
  });

  it("is idempotent: the same session and range twice gives the same ids and no new rows", () => {
    const root = project();
    session(root);
    const first = promote(root);
    expect(first.created).toHaveLength(6);
    expect(first.existing).toEqual([]);
    const second = promote(root);
    expect(second.created).toEqual([]);
    expect([...second.existing].sort()).toEqual([...first.created].sort());
    expect(second.count).toBe(6);
  });

  it("selects by sequence range, kind and excluded events; a range keeps its ids across runs", () => {
    const root = project();
    session(root);
    // Sequences: 1 session_start, then 5 per turn (prompt, call, result, answer, usage).
    const range = { ...ALL, ranges: [parseRange("2..6")] };
    const a = promote(root, range);
    expect(a.plan.items).toBe(2);
    expect(promote(root, range).existing.sort()).toEqual([...a.created].sort());
    // Prompts only: no answer is read, so each prompt is an item of its own.
    const onlyPrompts = promote(root, { ...ALL, kinds: parseKinds("prompt") });
    expect(onlyPrompts.plan.by_kind).toEqual({ prompt: 3 });
    // Several ranges: the turns of 2-6 and 12-16 (turn 3), not turn 2.
    const two = planPromotion(
      findSession(root, "last"),
      { ...ALL, ranges: parseSeqList("2-6,12-16", "--events") },
      { rules: undefined },
    );
    expect(two.preview.map((i) => i.source.seq_from)).toEqual([2, 3, 12, 13]);
    const excluded = planPromotion(
      findSession(root, "last"),
      { ...range, excludeEvents: parseSeqList("4") },
      {
        rules: undefined,
      },
    );
    // Without its result the call is an item of its own: other events, another id.
    expect(excluded.items).toBe(2);
    expect(excluded.preview.find((i) => i.kind === "tool_call")!.source.event_ids).toEqual(["c1"]);
  });

  it("checksums events.jsonl up to the last promoted line, so later appends leave it valid", () => {
    const root = project();
    const ref = session(root);
    const plan = planPromotion(ref, { ...ALL, ranges: [parseRange("..6")] }, { rules: undefined });
    const bytes = readFileSync(eventsFile(ref.dir));
    const lines = bytes.toString("utf8").split("\n");
    // Line 5 (seq 5, the answer) is the last promoted one; seq 6 is usage, not promoted.
    const end = Buffer.byteLength(lines.slice(0, 5).join("\n")) + 1;
    expect(plan.archive.bytes).toBe(end);
    expect(plan.archive.sha256).toBe(createHash("sha256").update(bytes.subarray(0, end)).digest("hex"));
    expect(plan.preview.every((i) => i.source.archive_sha256 === plan.archive.sha256)).toBe(true);
  });

  it("writes exactly the planned items even when the session grew between preview and write", () => {
    const root = project();
    const ref = session(root, 2);
    const plan = planPromotion(ref, ALL, { rules: undefined });
    recordEvents(spec(root), turn(9));
    const store = openMemory(root)!;
    const r = writePromotion(store, findSession(root, "last"), ALL, plan, { rules: undefined });
    expect(r.created).toHaveLength(plan.items);
    expect(store.count()).toBe(plan.items);
    store.close();
  });

  it("never promotes injected memory, and redacts with the project's current rules", () => {
    const root = project();
    recordEvents(spec(root), [
      {
        ...event("user_prompt", "p1", {
          prompt: `${wrapInjected("old fact", ["m1-x"])}\nnew question zeta_123456`,
        }),
      },
    ]);
    mkdirSync(join(root, ".tapedeck"), { recursive: true });
    // A rule added after the recording: promotion applies it.
    writeFileSync(
      join(root, ".tapedeck", "redaction.json"),
      JSON.stringify({ patterns: [{ name: "zeta", regex: "zeta_[0-9]{6}" }] }),
    );
    const r = promote(root, { ...ALL, kinds: parseKinds("prompt") });
    const store = openMemory(root, { readonly: true })!;
    const [item] = store.get(r.created);
    store.close();
    expect(item!.body).toBe("new question [REDACTED:zeta]");
  });

  it("stores only the picked items (--pick), in the stored order, labelled with the set's title", () => {
    const root = project();
    const ref = session(root);
    const plan = planPromotion(ref, { ...ALL, title: "gizmo notes" }, { rules: undefined });
    const picked = new Set([plan.preview[4]!.id, plan.preview[1]!.id]);
    const sel = { ...ALL, title: "gizmo notes", ids: picked };
    const store = openMemory(root)!;
    try {
      const r = writePromotion(store, ref, sel, plan, { rules: undefined });
      expect(r.created).toEqual([plan.preview[1]!.id, plan.preview[4]!.id]);
      expect(store.count()).toBe(2);
      expect(store.get(r.created).map((i) => [i.label, i.title.includes("gizmo notes")])).toEqual([
        ["gizmo notes", false],
        ["gizmo notes", false],
      ]);
    } finally {
      store.close();
    }
  });

  it("refuses to promote under a broken rules file rather than promote without the project's rules", () => {
    const root = project();
    session(root, 1);
    writeFileSync(join(root, ".tapedeck", "redaction.json"), "{ not json");
    expect(() => currentRules(root)).toThrow(/redaction\.json.*fix it before promoting/);
  });

  it("hostile lines: an oversized line is skipped unread, a deeply nested payload is bounded, neither stops it", () => {
    const root = project();
    const ref = session(root, 1);
    const file = eventsFile(ref.dir);
    const deep = `${"[".repeat(50_000)}${"]".repeat(50_000)}`;
    const line = (seq: number, payload: string) =>
      `{"schema_version":1,"sequence":${seq},"event_id":"h${seq}","timestamp":"2026-01-01T00:00:00.000Z","kind":"user_prompt","provider":"claude","session_id":"claude:sess-1","payload":${payload},"redactions":[],"truncations":[],"omitted":[]}\n`;
    appendFileSync(file, line(100, `{"prompt":"${"x".repeat(5 * 1024 * 1024)}"}`));
    appendFileSync(file, line(101, `{"prompt":{"nested":${deep}}}`));
    appendFileSync(file, "\u0000\u0001 not json at all\n");
    const plan = planPromotion(
      findSession(root, "last"),
      { ...ALL, kinds: parseKinds("prompt") },
      { rules: undefined },
    );
    expect(plan.lines_skipped).toBe(2);
    expect(plan.items).toBe(2);
    const deepItem = plan.preview.find((i) => i.source.event_ids[0] === "h101")!;
    expect(Buffer.byteLength(deepItem.body)).toBeLessThanOrEqual(4096);
  });

  it("parses selections strictly", () => {
    expect(parseRange("3..9")).toEqual({ from: 3, to: 9 });
    expect(parseRange("7")).toEqual({ from: 7, to: 7 });
    expect(parseRange("5..").from).toBe(5);
    expect(parseRange("..5")).toEqual({ from: 1, to: 5 });
    expect(parseRange("3-9")).toEqual({ from: 3, to: 9 });
    for (const bad of ["", "..", "-", "9..3", "9-3", "a..b", "1-3-5", "1..2..3", "99999999999999999999"]) {
      expect(() => parseRange(bad)).toThrow();
    }
    expect(parseSeqList("1, 4..5")).toEqual([
      { from: 1, to: 1 },
      { from: 4, to: 5 },
    ]);
    expect(parseSeqList("3-9,14", "--events")).toEqual([
      { from: 3, to: 9 },
      { from: 14, to: 14 },
    ]);
    expect(() => parseSeqList(",", "--events")).toThrow(/--events needs/);
    expect([...parseKinds("answer,tool_result")]).toEqual(["assistant_message", "tool_result"]);
    expect(() => parseKinds("turn_usage")).toThrow(/unknown kind/);
  });
});

describe("scanArchive: a planted huge line", () => {
  it("streams a 96 MiB line by without holding it, and reads the events after it", () => {
    const root = project();
    recordEvents(spec(root), turn(1));
    const ref = findSession(root, "last")!;
    const path = eventsFile(ref.dir);
    const good = readFileSync(path);
    // A damaged or planted archive: a line of 96 MiB (zeros, sparse on disk) before the recorded lines. Six
    // times the bound a line is held to, and past the 64 MiB allowed below: held, it fails the test (256 MiB
    // took 1.5 s of reading zeros).
    const huge = 96 * 1024 * 1024;
    writeFileSync(path, "");
    truncateSync(path, huge);
    appendFileSync(path, "\n");
    appendFileSync(path, good);
    // From what the process holds already: the files before this one in the worker leave buffers of their own.
    const before = process.memoryUsage().arrayBuffers;
    let peak = before;
    const seen: string[] = [];
    const scan = scanArchive(path, {
      sessionId: ref.manifest.session_id,
      onEvent(e) {
        seen.push(e.kind);
        peak = Math.max(peak, process.memoryUsage().arrayBuffers);
      },
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(scan.skipped).toBe(1);
    // core's scanLines had grown its buffer to the longest line (by doubling) and still held it here.
    expect(peak - before).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
