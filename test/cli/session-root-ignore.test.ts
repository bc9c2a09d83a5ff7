// A session root of its own (outside .tapedeck) holds prompts too: when the recorder creates or recreates it,
// it gets the same `.gitignore` of `*` that install writes, so `git add -A` never commits a session.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ensureSessionDir } from "../../src/core/paths.ts";
import { tempProject } from "../helpers/session.ts";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

describe("a session root recreated by the recorder", () => {
  it("inside the project: gets a .gitignore of * when it is created again", () => {
    const p = tempProject();
    cleanups.push(p.cleanup);
    const root = join(p.root, "recordings");
    ensureSessionDir(root, "s1", p.root);
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe("*\n");
    rmSync(root, { recursive: true });
    ensureSessionDir(root, "s2", p.root);
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe("*\n");
  });

  it("outside the project too", () => {
    const p = tempProject();
    const elsewhere = tempProject();
    cleanups.push(p.cleanup, elsewhere.cleanup);
    const root = join(elsewhere.root, "recordings");
    ensureSessionDir(root, "s1", p.root);
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe("*\n");
  });

  it("under .tapedeck: the .tapedeck .gitignore covers it, and no other is written", () => {
    const p = tempProject();
    cleanups.push(p.cleanup);
    const root = join(p.root, ".tapedeck", "claude-sessions");
    ensureSessionDir(root, "s1", p.root);
    expect(readFileSync(join(p.root, ".tapedeck", ".gitignore"), "utf8")).toBe("*\n");
    expect(existsSync(join(root, ".gitignore"))).toBe(false);
  });
});
