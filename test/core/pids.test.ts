// A process that has exited but not been reaped still answers signal 0. A killed hook server is nobody's
// child: until init reaps it, its pid stood for a live server whose port another user may have taken.
import type { ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { ownProcessAlive, processExists } from "../../src/core/base/pids.ts";
import { processState, zombie } from "../helpers/zombie.ts";

const parents: ChildProcess[] = [];
afterEach(() => {
  for (const p of parents.splice(0)) p.kill("SIGKILL");
});

describe("whether a pid is a live process", () => {
  it("a zombie's is not: not ours to trust, and no holder of a lock", async () => {
    const { pid, parent } = await zombie();
    parents.push(parent);
    expect(processState(pid)).toBe("Z");
    // Signal 0 reaches it: what the check believed.
    expect(() => process.kill(pid, 0)).not.toThrow();
    expect(ownProcessAlive(pid)).toBe(false);
    expect(processExists(pid)).toBe(false);
  });

  it("a running one's is, ours or another user's", () => {
    expect(ownProcessAlive(process.pid)).toBe(true);
    expect(processExists(process.pid)).toBe(true);
    expect(processExists(1)).toBe(true);
  });
});
