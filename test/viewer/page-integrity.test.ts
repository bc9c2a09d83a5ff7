import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { tallyArchive } from "../../src/viewer/page/integrity.ts";
import type { Source } from "../../src/viewer/page/source.ts";

/** A source that hands the file over in small chunks, cutting lines (and UTF-8 characters) anywhere. */
function source(text: string, chunk = 7): Source {
  const bytes = Buffer.from(text, "utf8");
  return {
    raw: async (_key: string, offset: number) => new Uint8Array(bytes.subarray(offset, offset + chunk)),
  } as unknown as Source;
}

const line = (seq: number, extra: Record<string, unknown>) =>
  `${JSON.stringify({ sequence: seq, kind: "turn_usage", redactions: [], truncations: [], omitted: [], ...extra })}\n`;

describe("the page's tally of events.jsonl", () => {
  it("hashes every byte and counts the markers of each line, however the chunks cut it", async () => {
    const text =
      line(1, { kind: "user_prompt", redactions: ["aws"], payload: { prompt: "héllo ✓" } }) +
      line(2, { kind: "tool_call", truncations: [{ path: "a" }], omitted: ["b", "c"] });
    const t = await tallyArchive(source(text), "0");
    expect(t.sha256).toBe(createHash("sha256").update(text).digest("hex"));
    expect(t).toMatchObject({
      events: 2,
      redactions: 1,
      redacted_events: 1,
      truncations: 1,
      omitted: 2,
      bad_lines: 0,
    });
  });

  it("counts a kind or a usage source named like an object's own member as that name", async () => {
    const text =
      line(1, { kind: "constructor", usage: { source: "constructor", input_tokens: 3, output_tokens: 1 } }) +
      line(2, { kind: "__proto__", usage: { source: "__proto__", input_tokens: 2, output_tokens: 2 } }) +
      line(3, { kind: "to-string", usage: { source: "constructor", input_tokens: 1, output_tokens: 0 } });
    const t = await tallyArchive(source(text), "0");
    expect(Object.entries(t.kinds)).toEqual([
      ["constructor", 1],
      ["__proto__", 1],
      ["to-string", 1],
    ]);
    expect(Object.entries(t.sources)).toEqual([
      ["constructor", { events: 2, input: 4, output: 1 }],
      ["__proto__", { events: 1, input: 2, output: 2 }],
    ]);
    expect(({} as Record<string, unknown>).events).toBeUndefined();
  });

  it("calls channels in disagreement only when one response carries different counts in two of them", async () => {
    // Per-channel totals differ by design: a subagent's hook-payload usage repeats its transcript messages.
    const apart =
      line(1, {
        usage: { source: "claude-transcript", message_id: "m1", input_tokens: 10, output_tokens: 5 },
      }) + line(2, { usage: { source: "hook-payload", input_tokens: 99, output_tokens: 1 } });
    expect(await tallyArchive(source(apart), "0")).toMatchObject({ shared_responses: 0, disagreements: 0 });
    const shared =
      line(1, {
        usage: { source: "claude-transcript", message_id: "m1", input_tokens: 10, output_tokens: 5 },
      }) +
      line(2, { usage: { source: "proxy", message_id: "m1", input_tokens: 10, output_tokens: 5 } }) +
      line(3, {
        usage: { source: "claude-transcript", message_id: "m2", input_tokens: 10, output_tokens: 5 },
      }) +
      line(4, { usage: { source: "proxy", message_id: "m2", input_tokens: 12, output_tokens: 5 } });
    expect(await tallyArchive(source(shared), "0")).toMatchObject({ shared_responses: 2, disagreements: 1 });
  });
});
