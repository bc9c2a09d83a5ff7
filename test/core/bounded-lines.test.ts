import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_LINE_BYTES, readLines } from "../../src/core/base/bounded-lines.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects("tapedeck-lines-");

function linesOf(content: Buffer, from = 0) {
  const path = join(project(), "events.jsonl");
  writeFileSync(path, content);
  const fd = openSync(path, "r");
  try {
    return [...readLines(fd, from, content.length)].map((l) => ({
      offset: l.offset,
      end: l.end,
      text: l.bytes?.toString("latin1"),
    }));
  } finally {
    closeSync(fd);
  }
}

describe("readLines", () => {
  it("gives complete lines with their offsets, across 1 MiB reads, and holds back a final line without newline", () => {
    const a = "a".repeat(1024 * 1024 - 3);
    const b = "b".repeat(2 * 1024 * 1024 + 5);
    const lines = linesOf(Buffer.from(`${a}\n${b}\nc\ntorn`));
    expect(lines.map((l) => [l.offset, l.end, l.text?.length])).toEqual([
      [0, a.length + 1, a.length],
      [a.length + 1, a.length + b.length + 2, b.length],
      [a.length + b.length + 2, a.length + b.length + 4, 1],
    ]);
    expect(lines[1]!.text).toBe(b);
  });

  it("starts at an offset and skips a line over the bound without holding it", () => {
    const big = "x".repeat(MAX_LINE_BYTES + 1);
    const content = Buffer.from(`skip\n${big}\nok\n`);
    const lines = linesOf(content, 5);
    expect(lines).toEqual([
      { offset: 5, end: 5 + big.length + 1, text: undefined },
      { offset: 5 + big.length + 1, end: content.length, text: "ok" },
    ]);
  });
});
