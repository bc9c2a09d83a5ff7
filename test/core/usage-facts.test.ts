// A provider's usage facts read with the source names an archive gives: any name of the documented shape,
// which includes the names of Object's own members.
import { describe, expect, it } from "vitest";
import { completedSource, unknownCounts } from "../../src/core/read/usage-facts.ts";
import { geminiUsage } from "../../src/providers/gemini/usage-facts.ts";

describe("usage facts", () => {
  it("count a source's omitted counts as unknown, and only the provider's own sources", () => {
    expect(unknownCounts(geminiUsage, ["gemini-hook"])).toEqual(["cache_read_input_tokens"]);
    expect(unknownCounts(geminiUsage, ["gemini-hook", "gemini-chat"])).toEqual([]);
    for (const name of ["constructor", "to-string", "has-own-property", "__proto__", "value-of"]) {
      expect(unknownCounts(geminiUsage, [name])).toEqual([]);
      expect(unknownCounts(geminiUsage, ["gemini-hook", name])).toEqual([]);
      expect(completedSource(geminiUsage, name)).toBeUndefined();
    }
    expect(unknownCounts(geminiUsage, ["constructor", "gemini-hook"])).toEqual([]);
    expect(completedSource(geminiUsage, "gemini-chat")).toBe("gemini-hook");
  });
});
