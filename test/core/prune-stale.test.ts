// The one cleanup of per-session file directories (turn marks, retrieval state): past a count, the stale
// regular files of the named shape go; links, other names and fresh files stay.
import { mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pruneStaleFiles } from "../../src/core/base/fsutil.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects("prune-stale");
const DAY = 24 * 3600 * 1000;

function fill(dir: string, n: number, ageMs: number): void {
  const at = (Date.now() - ageMs) / 1000;
  for (let i = 0; i < n; i += 1) {
    const path = join(dir, `m${i}`);
    writeFileSync(path, "");
    utimesSync(path, at, at);
  }
}

describe("pruneStaleFiles", () => {
  it("leaves a directory at or under its count alone", () => {
    const dir = join(project(), "d");
    mkdirSync(dir);
    fill(dir, 4, 10 * DAY);
    pruneStaleFiles(dir, /^m\d+$/, 4, DAY);
    expect(readdirSync(dir)).toHaveLength(4);
  });

  it("past the count removes only stale regular files of the shape", () => {
    const root = project();
    const dir = join(root, "d");
    mkdirSync(dir);
    fill(dir, 5, 10 * DAY);
    writeFileSync(join(dir, "other"), "");
    utimesSync(join(dir, "other"), 0, 0);
    writeFileSync(join(root, "target"), "");
    symlinkSync(join(root, "target"), join(dir, "m99"));
    writeFileSync(join(dir, "m100"), "");
    pruneStaleFiles(dir, /^m\d+$/, 4, DAY);
    expect(readdirSync(dir).sort()).toEqual(["m100", "m99", "other"]);
  });

  it("says nothing of a directory that is not there", () => {
    expect(() => pruneStaleFiles(join(project(), "gone"), /./, 0, 0)).not.toThrow();
  });
});
