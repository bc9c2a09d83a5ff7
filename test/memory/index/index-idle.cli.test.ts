import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { recordEvents } from "../../../src/core/archive/session-store.ts";
import { indexWhenIdle } from "../../../src/memory/index/idle.ts";
import { indexPath, indexStatus, updateIndex } from "../../../src/memory/index/index.ts";
import { event, spec, useTempProjects } from "../../helpers/session.ts";

const CLI = join(process.cwd(), "dist", "cli.js");
beforeAll(() => {
  if (!existsSync(CLI)) execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

const project = useTempProjects("tapedeck-idle-");

function idleDone(root: string, cli: string | null, pokes = 1): Promise<boolean> {
  return new Promise((resolve) => {
    for (let i = 0; i < pokes; i += 1) indexWhenIdle(root, { delayMs: 20, cli, onDone: resolve });
  });
}

describe("indexWhenIdle", () => {
  it.each([
    ["in a child process (the built CLI)", CLI],
    ["in-process, one batch per turn of the event loop", null],
  ])("brings an existing index up to date after the last hook, %s", async (_name, cli) => {
    const root = project();
    recordEvents(spec(root), [event("user_prompt", "a", { prompt: "first" })]);
    updateIndex(root);
    recordEvents(spec(root), [event("user_prompt", "b", { prompt: "second" })]);
    expect(indexStatus(root).behind_bytes).toBeGreaterThan(0);
    expect(await idleDone(root, cli, 3)).toBe(true);
    expect(indexStatus(root)).toMatchObject({ behind_bytes: 0, events: 2 });
  });

  it("creates no index in a project that has none", async () => {
    const root = project();
    recordEvents(spec(root), [event("user_prompt", "a", { prompt: "x" })]);
    indexWhenIdle(root, { delayMs: 1, cli: null });
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(indexPath(root))).toBe(false);
  });
});
