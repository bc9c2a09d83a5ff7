import { closeSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { openForScan } from "../../src/core/archive/line-scan.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { locateSequence, ViewerData } from "../../src/viewer/api.ts";
import { spec, tempProject } from "../helpers/session.ts";

let project: { root: string; cleanup: () => void };
let dir: string;
const EVENTS = 3000;

beforeAll(() => {
  project = tempProject("tapedeck-viewer-api-");
  const events: NormalizedEvent[] = Array.from({ length: EVENTS }, (_, i) => ({
    kind: "tool_result",
    event_id: `r${i}`,
    // Lines of different lengths: the search lands mid-line everywhere.
    payload: { tool_name: "Bash", tool_response: { stdout: "x".repeat(50 + ((i * 37) % 400)) } },
  }));
  dir = recordEvents(spec(project.root), events).sessionDir;
});

afterAll(() => project?.cleanup());

function lineOffsets(): number[] {
  const text = readFileSync(join(dir, "events.jsonl"));
  const out = [0];
  for (let i = 0; i < text.length - 1; i++) if (text[i] === 10) out.push(i + 1);
  return out;
}

describe("the viewer's data API", () => {
  it("finds the byte offset of any sequence without reading the pages before it", () => {
    const offsets = lineOffsets();
    expect(offsets.length).toBe(EVENTS);
    const fd = openForScan(join(dir, "events.jsonl"));
    try {
      for (const seq of [1, 2, 777, 1500, 2999, EVENTS])
        expect(locateSequence(fd, seq), String(seq)).toBe(offsets[seq - 1]);
      // Past the end: the last line (the page from there says there is nothing later).
      expect(locateSequence(fd, EVENTS + 10)).toBe(offsets[EVENTS - 1]);
    } finally {
      closeSync(fd);
    }
  });

  it("lists the sessions of every project it was given (--all-projects), newest first, each page from its own", () => {
    const other = tempProject("tapedeck-viewer-api-other-");
    try {
      recordEvents(spec(other.root), [
        { kind: "user_prompt", event_id: "p", payload: { prompt: "in the other project" } },
      ]);
      const data = new ViewerData([project.root, other.root]);
      const sessions = data.sessions();
      expect(sessions.map((s) => s.project).sort()).toEqual([project.root, other.root].sort());
      expect(new Set(sessions.map((s) => s.key)).size).toBe(2);
      const theOther = sessions.find((s) => s.project === other.root)!;
      expect(data.page(theOther.key, 0, 10).events.map((e) => e.payload.prompt)).toEqual([
        "in the other project",
      ]);
    } finally {
      other.cleanup();
    }
  });

  it("pages from a located offset start at that event", () => {
    const data = new ViewerData([project.root]);
    data.sessions();
    const page = data.page("0", data.locate("0", 2500), 10);
    expect(page.events[0]!.sequence).toBe(2500);
    expect(page.events).toHaveLength(10);
  });
});
