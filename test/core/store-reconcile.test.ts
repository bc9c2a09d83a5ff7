// A writer that finds lines past the state (their writer died between its append and its state) folds their ids
// into the table; it must get them to disk before its state counts those lines, even when it appends nothing
// itself: killed right after its state, it once left a table without them, and the next writer appended them
// again (found by the import's interruption soak test: 88 events twice).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { IdTable } from "../../src/core/archive/dedup.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();
afterEach(() => vi.restoreAllMocks());

describe("a reconciled tail", () => {
  it("has its ids on disk before the state that counts it, whatever the writer appended", () => {
    const root = project();
    const s = spec(root);
    const first = [event("user_prompt", "a1", { prompt: "one" })];
    const dir = recordEvents(s, first).sessionDir;
    const saved = ["state.json", "ids.bin"].map((f) => [f, readFileSync(join(dir, f))] as const);
    const tail = Array.from({ length: 5 }, (_, i) => event("user_prompt", `b${i}`, { prompt: `${i}` }));
    recordEvents(s, tail);
    // Their writer died after its lines, before its ids and state.
    for (const [f, bytes] of saved) writeFileSync(join(dir, f), bytes);
    // The next writer appends only a repeat, and is killed right after its commit: its table is never closed.
    const noClose = () => {};
    vi.spyOn(IdTable.prototype, "closeKeeping").mockImplementation(noClose);
    vi.spyOn(IdTable.prototype, "close").mockImplementation(noClose);
    expect(recordEvents(s, first)).toMatchObject({ appended: 0, duplicates: 1 });
    vi.restoreAllMocks();
    expect(recordEvents(s, tail)).toMatchObject({ appended: 0, duplicates: 5 });
    const ids = readFileSync(join(dir, "events.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).event_id);
    expect(ids).toEqual(["a1", "b0", "b1", "b2", "b3", "b4"]);
  });
});
