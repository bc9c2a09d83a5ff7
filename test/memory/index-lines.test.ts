import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_LINE_BYTES, readLines, toPending } from "../../src/memory/index-lines.ts";
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
