import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ScanOptions, scanLines } from "../../src/core/archive/line-scan.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function scan(content: string | Buffer, from: number, options?: ScanOptions) {
  const dir = mkdtempSync(join(tmpdir(), "tapedeck-scan-"));
  dirs.push(dir);
  const path = join(dir, "lines");
  writeFileSync(path, content);
  const fd = openSync(path, "r");
  try {
    const lines: [number, string, boolean][] = [];
    const stop = scanLines(
      fd,
      from,
      (l) => lines.push([l.offset, l.bytes.toString(), l.terminated]),
      options,
    );
    return { lines, stop };
  } finally {
    closeSync(fd);
  }
}

describe("scanLines", () => {
  it("gives every line to EOF, the last one unterminated, and returns the size", () => {
    expect(scan("a\nbb\nccc", 0)).toEqual({
      lines: [
        [0, "a", true],
        [2, "bb", true],
        [5, "ccc", false],
      ],
      stop: 8,
    });
  });

  it("with completeOnly leaves out a line still being written and returns past the last newline", () => {
    expect(scan("a\nbb\nccc", 0, { completeOnly: true })).toEqual({
      lines: [
        [0, "a", true],
        [2, "bb", true],
      ],
      stop: 5,
    });
    expect(scan("ccc", 0, { completeOnly: true })).toEqual({ lines: [], stop: 0 });
  });

  it("stops at end: a line cut by it is not complete, and a start past it reads nothing", () => {
    expect(scan("a\nbb\nccc\n", 2, { end: 7, completeOnly: true })).toEqual({
      lines: [[2, "bb", true]],
      stop: 5,
    });
    expect(scan("a\nbb\nccc\n", 2, { end: 7 })).toEqual({
      lines: [
        [2, "bb", true],
        [5, "cc", false],
      ],
      stop: 7,
    });
    expect(scan("a\nbb\n", 9, { end: 5, completeOnly: true })).toEqual({ lines: [], stop: 9 });
  });

  it("joins a line longer than the read buffer", () => {
    const long = "x".repeat(5 * 1024 * 1024);
    const { lines, stop } = scan(`${long}\ny\n`, 0, { end: long.length + 3, completeOnly: true });
    expect(lines.map(([o, b]) => [o, b.length])).toEqual([
      [0, long.length],
      [long.length + 1, 1],
    ]);
    expect(stop).toBe(long.length + 3);
  });
});
