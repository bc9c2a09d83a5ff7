import { describe, expect, it } from "vitest";
import { toPending } from "../../../src/memory/index/index-lines.ts";

describe("toPending", () => {
  it("takes an envelope's columns and text; anything else is no event", () => {
    const line = JSON.stringify({
      sequence: 3,
      event_id: "e3",
      kind: "user_prompt",
      provider: "codex",
      timestamp: "2026-01-01T00:00:00.000Z",
      payload: { prompt: "hi there" },
    });
    expect(toPending(Buffer.from(line), 40, "claude")).toMatchObject({
      line_offset: 40,
      seq: 3,
      kind: "user_prompt",
      provider: "codex",
      body: "hi there",
    });
    for (const bad of ["[1]", "null", '{"sequence":"3","event_id":"e","kind":"k"}', "{", "\u00ff\u00fe"]) {
      expect(toPending(Buffer.from(bad, "latin1"), 0, "claude"), bad).toBeUndefined();
    }
  });
});
