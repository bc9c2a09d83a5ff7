// `tapedeck promote` of a 100,000-event session in a Node of its own with a small heap: the built CLI, as the
// heap limit is the process's. A soak: the promotion alone takes some 20 s on two cores. And two promotions
// of one session at once, each a process of its own: both succeed, neither duplicates the other's items.
import { spawn, spawnSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { outputOf } from "../helpers/child-output.ts";
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

describe("two promotions at once", () => {
  it("two promotions at once both succeed, without duplicates or a busy error", async () => {
    const root = project();
    recordMany(root, 3000);
    const run = () =>
      outputOf(spawn(process.execPath, [CLI, "promote", "last", "--project", root, "--yes", "--json"]));
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.stderr).not.toMatch(/locked|BUSY/);
    expect(b.stderr).not.toMatch(/locked|BUSY/);
    expect([a.code, b.code]).toEqual([0, 0]);
    const ja = json(a);
    const jb = json(b);
    const all = new Set([...ja.created, ...jb.created]);
    expect(ja.created.length + jb.created.length).toBe(all.size);
    expect(all.size).toBe(1500);
    expect(new Set([...ja.created, ...ja.existing]).size).toBe(1500);
    const count = JSON.parse(
      binary(["memory", "list", "--project", root, "--json", "--limit", "100000"], []).stdout,
    );
    expect(count).toHaveLength(1500);
  }, 180_000);
});

function json(r: { stdout: string }) {
  return JSON.parse(r.stdout) as { created: string[]; existing: string[] };
}
