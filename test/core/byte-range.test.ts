// The shared readers of part of a file: a byte range, a prefix into a hash, and a side file opened without
// following a link (a missing file, a link or a FIFO read as none; what the reader throws is thrown).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, constants, openSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hashPrefix, readRange } from "../../src/core/base/byte-range.ts";
import { openRegularOrUndefined, withRegularFile } from "../../src/core/base/fsutil.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects("byte-range");

function file(text: string): string {
  const path = join(project(), "f");
  writeFileSync(path, text);
  return path;
}

function withFd<T>(path: string, use: (fd: number) => T): T {
  const fd = openSync(path, constants.O_RDONLY);
  try {
    return use(fd);
  } finally {
    closeSync(fd);
  }
}

describe("readRange", () => {
  it("reads [from, to), fewer bytes past the end, none for an empty range", () => {
    const path = file("0123456789");
    expect(withFd(path, (fd) => readRange(fd, 2, 5).toString())).toBe("234");
    expect(withFd(path, (fd) => readRange(fd, 8, 20).toString())).toBe("89");
    expect(withFd(path, (fd) => readRange(fd, 5, 5).length)).toBe(0);
    expect(withFd(path, (fd) => readRange(fd, 5, 3).length)).toBe(0);
  });
});

describe("hashPrefix", () => {
  it("hashes the first bytes and answers how many it fed", () => {
    const path = file("hello world");
    const hash = createHash("sha256");
    expect(withFd(path, (fd) => hashPrefix(fd, 5, hash))).toBe(5);
    expect(hash.digest("hex")).toBe(createHash("sha256").update("hello").digest("hex"));
  });

  it("stops at the end of a shorter file", () => {
    const path = file("abc");
    const hash = createHash("sha256");
    expect(withFd(path, (fd) => hashPrefix(fd, 10, hash))).toBe(3);
    expect(hash.digest("hex")).toBe(createHash("sha256").update("abc").digest("hex"));
  });
});

describe("withRegularFile", () => {
  it("hands the reader an open descriptor of a regular file", () => {
    const path = file("text");
    expect(withRegularFile(path, (fd) => readRange(fd, 0, 4).toString())).toBe("text");
  });

  it("answers undefined for a missing file, a symlink and a FIFO, without calling the reader", () => {
    const root = project();
    const target = join(root, "target");
    writeFileSync(target, "secret");
    symlinkSync(target, join(root, "link"));
    execFileSync("mkfifo", [join(root, "fifo")]);
    for (const name of ["missing", "link", "fifo"]) {
      expect(withRegularFile(join(root, name), () => "read")).toBeUndefined();
      expect(openRegularOrUndefined(join(root, name), constants.O_RDONLY)).toBeUndefined();
    }
  });

  it("throws what the reader throws", () => {
    const path = file("text");
    expect(() =>
      withRegularFile(path, () => {
        throw new Error("refused");
      }),
    ).toThrow("refused");
  });
});
