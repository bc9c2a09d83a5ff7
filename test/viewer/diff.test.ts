import { describe, expect, it } from "vitest";
import { lineDiff, MAX_DIFF_CELLS } from "../../src/viewer/page/diff.ts";

describe("the page's edit diff", () => {
  it("keeps common lines and marks removed and added ones", () => {
    expect(lineDiff("a\nb\nc", "a\nB\nc")).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "+", text: "B" },
      { op: " ", text: "c" },
    ]);
  });

  it("declines an edit too large to preview instead of building a huge table", () => {
    const side = Math.ceil(Math.sqrt(MAX_DIFF_CELLS)) + 1;
    const big = Array.from({ length: side }, (_, i) => String(i)).join("\n");
    expect(lineDiff(big, `${big}\nx`)).toBeNull();
  });
});
