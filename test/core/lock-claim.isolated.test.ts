// A writer lock is claimed in two steps by the operating system's calls: the file appears, then its owner's
// pid and token are written. A waiter takes a lock that stays empty for seconds for an abandoned claim and
// breaks it. If the claimer was only stalled in between (a loaded machine), it resumed believing the lock
// was its own while the waiter held it too: two writers appended at once and gave a sequence number twice
// (seen once in CI: "16 processes x 300 appends"). Here the stall is made on purpose: at the moment the
// claimer writes its lock, a waiter finds the lock file empty and old, breaks it and takes it.
import { existsSync, readdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SESSION_FILES } from "../../src/core/archive/paths.ts";
import { useTempProjects } from "../helpers/temp-project.ts";

const state = vi.hoisted(() => ({ onLockWrite: undefined as undefined | (() => void) }));

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const writeSync = ((...args: Parameters<typeof fs.writeSync>) => {
    const hook = state.onLockWrite;
    if (hook) {
      state.onLockWrite = undefined;
      hook();
    }
    return (fs.writeSync as (...a: unknown[]) => number)(...args);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const { acquireLock } = await import("../../src/core/archive/lock.ts");

const project = useTempProjects();
afterEach(() => {
  state.onLockWrite = undefined;
});

describe("claiming the writer lock", () => {
  it("never leaves a claimer holding a lock that a waiter broke as abandoned", () => {
    const dir = project();
    const lockPath = join(dir, SESSION_FILES.lock);
    let waiterLock: ReturnType<typeof acquireLock> = null;
    state.onLockWrite = () => {
      // The claimer is "stalled" here. If its lock file already exists without content, a waiter that finds
      // it old breaks it and claims the session for itself.
      if (existsSync(lockPath)) {
        const old = new Date(Date.now() - 60_000);
        utimesSync(lockPath, old, old);
      }
      waiterLock = acquireLock(dir, { timeoutMs: 0 });
    };
    const claimer = acquireLock(dir, { timeoutMs: 0 });
    // At most one of them holds the session.
    expect(claimer !== null && waiterLock !== null).toBe(false);
    expect(claimer ?? waiterLock).not.toBeNull();
    claimer?.release();
    (waiterLock as ReturnType<typeof acquireLock>)?.release();
    // Nothing of the claim is left beside the session's files.
    expect(readdirSync(dir).filter((f) => f.includes("lock"))).toEqual([]);
  });
});
