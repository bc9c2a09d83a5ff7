// A recovery (repair, or inspect of a session nobody writes) rewrites the manifest under the writer lock: it
// keeps what a writer put there between recovery's first read and its lock, the hooks' mark on an imported
// session above all (without it, the next import would read the turns the hooks recorded again).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { event, identity, spec, useTempProjects } from "../helpers/session.ts";

/** Runs once, right before the next lock is taken: a writer that got there first. */
const beforeLock: { run?: () => void } = {};
vi.mock("../../src/core/archive/lock.ts", async (original) => {
  const real = await original<typeof import("../../src/core/archive/lock.ts")>();
  return {
    ...real,
    acquireLock: (...args: Parameters<typeof real.acquireLock>) => {
      const run = beforeLock.run;
      beforeLock.run = undefined;
      run?.();
      return real.acquireLock(...args);
    },
  };
});

const { recoverSession } = await import("../../src/core/archive/recovery.ts");
const project = useTempProjects();

describe("a recovery's manifest", () => {
  it("keeps the hooks' mark set between recovery's first read and its lock", () => {
    const root = project();
    const imported = spec(root, { identity: { ...identity("s1"), identity_source: "import" }, seal: true });
    const dir = recordEvents(imported, [event("user_prompt", "p1", { prompt: "one" })]).sessionDir;
    const path = join(dir, "manifest.json");
    beforeLock.run = () => {
      const m = JSON.parse(readFileSync(path, "utf8"));
      writeFileSync(path, JSON.stringify({ ...m, hooks_since_import: "2026-12-01T10:00:00.000Z" }));
    };
    recoverSession(dir, { write: true, checkpoint: false });
    expect(beforeLock.run).toBeUndefined();
    expect(JSON.parse(readFileSync(path, "utf8")).hooks_since_import).toBe("2026-12-01T10:00:00.000Z");
  });
});
