import { existsSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newTempProject, useTempProjects } from "./temp-project.ts";

describe("newTempProject", () => {
  let made = "";
  it("makes a real, empty directory for the test", () => {
    made = newTempProject();
    expect(statSync(made).isDirectory()).toBe(true);
    expect(realpathSync(made)).toBe(made);
    writeFileSync(join(made, "left-behind.txt"), "x");
  });

  it("removed it, with what the test wrote, when that test finished", () => {
    expect(made).not.toBe("");
    expect(existsSync(made)).toBe(false);
  });
});

describe("useTempProjects", () => {
  const project = useTempProjects("tapedeck-helper-");
  const made: string[] = [];
  it("makes a fresh directory at each call", () => {
    made.push(project(), project());
    expect(made[0]).not.toBe(made[1]);
    for (const dir of made) expect(statSync(dir).isDirectory()).toBe(true);
    writeFileSync(join(made[0] as string, "left-behind.txt"), "x");
  });

  it("removed every one after the test that made it", () => {
    expect(made).toHaveLength(2);
    for (const dir of made) expect(existsSync(dir)).toBe(false);
  });
});
