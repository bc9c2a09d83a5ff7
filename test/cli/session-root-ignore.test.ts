// A session root of its own (outside .tapedeck) holds prompts too: when the recorder creates or recreates it,
// it gets the same `.gitignore` of `*` that install writes, so `git add -A` never commits a session.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ensureSessionDir } from "../../src/core/archive/paths.ts";
import { useTempProjects } from "../helpers/temp-project.ts";

const project = useTempProjects();

describe("a session root recreated by the recorder", () => {
  it("inside the project: gets a .gitignore of * when it is created again", () => {
    const p = project();
    const root = join(p, "recordings");
    ensureSessionDir(root, "s1", p);
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe("*\n");
    rmSync(root, { recursive: true });
    ensureSessionDir(root, "s2", p);
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe("*\n");
  });

  it("outside the project too", () => {
    const root = join(project(), "recordings");
    ensureSessionDir(root, "s1", project());
    expect(readFileSync(join(root, ".gitignore"), "utf8")).toBe("*\n");
  });

  it("under .tapedeck: the .tapedeck .gitignore covers it, and no other is written", () => {
    const p = project();
    const root = join(p, ".tapedeck", "claude-sessions");
    ensureSessionDir(root, "s1", p);
    expect(readFileSync(join(p, ".tapedeck", ".gitignore"), "utf8")).toBe("*\n");
    expect(existsSync(join(root, ".gitignore"))).toBe(false);
  });
});
