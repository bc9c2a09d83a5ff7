// `tapedeck promote` of a 100,000-event session in a Node of its own with a small heap: the built CLI, as the
// heap limit is the process's. A soak: the promotion alone takes some 20 s on two cores.
import { spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, ensureBuilt } from "../helpers/cli-run.ts";
import { recordMany } from "../helpers/many-events.ts";
import { useTempProjects } from "../helpers/session.ts";

beforeAll(ensureBuilt);
const project = useTempProjects("tapedeck-promote-soak-");

/** The built CLI in a Node of its own, started with `nodeArgs`. */
function binary(args: string[], nodeArgs: string[]) {
  const r = spawnSync(process.execPath, [...nodeArgs, CLI, ...args], {
    input: "",
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("tapedeck promote of a long session", () => {
  it("a 100,000-event session: progress on stderr, and it fits a heap far smaller than its items", () => {
    const root = project();
    recordMany(root, 100_000);
    // 100,000 items of ~600 bytes would need well over 32 MB of heap if they were held; streamed, they are not.
    const r = binary(["promote", "last", "--project", root, "--yes"], ["--max-old-space-size=32"]);
    expect(r.stderr).not.toMatch(/heap out of memory/);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("tapedeck: reading: 100,000 events");
    expect(r.stderr).toContain("tapedeck: storing: 50,000 events");
    // Each prompt and its answer: one exchange.
    expect(r.stdout).toContain("Promoted 50000 new item(s)");
  }, 300_000);
});
