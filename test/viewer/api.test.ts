import { closeSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/event.ts";
import { openForScan } from "../../src/core/scan.ts";
import { recordEvents } from "../../src/core/store.ts";
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

  it("pages from a located offset start at that event", () => {
    const data = new ViewerData([project.root]);
    data.sessions();
    const page = data.page("0", data.locate("0", 2500), 10);
    expect(page.events[0]!.sequence).toBe(2500);
    expect(page.events).toHaveLength(10);
  });
});
