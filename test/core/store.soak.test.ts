// The store under many writers and killed writers: 16 processes appending at once, and a writer SIGKILLed
// mid-append 200 times. The soak tier (npm run test:soak): about a minute of processes on two cores.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recoverSession } from "../../src/core/archive/recovery.ts";
import { useBundledScript } from "../helpers/bundle.ts";
import { eventLines, storedEnvelopes, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

// The worker is bundled once so that each of the many processes starts in
// milliseconds, which lets the crash test kill writers mid-append.
const workerJs = useBundledScript("test/helpers/append-worker.ts");

function runWorker(root: string, args: string[]): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [workerJs(), root, ...args], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve(code));
  });
}

describe("concurrency and crashes", () => {
  it("16 processes x 300 appends give 4,800 contiguous, unique, valid events", async () => {
    const root = project();
    await Promise.all(Array.from({ length: 16 }, (_, w) => runWorker(root, [String(w), "300"])));
    const dir = join(root, ".tapedeck", "claude-sessions", "sess-1");
    const events = storedEnvelopes(dir);
    expect(events).toHaveLength(4800);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: 4800 }, (_, i) => i + 1));
    expect(new Set(events.map((e) => e.event_id)).size).toBe(4800);
  }, 240_000);

  it("a writer SIGKILLed mid-append 200 times loses no complete event", async () => {
    const root = project();
    const dir = join(root, ".tapedeck", "claude-sessions", "sess-1");
    let tornSeen = 0;
    for (let round = 0; round < 200; round += 1) {
      // Every fourth writer is killed inside a write it has begun (holding the
      // real lock); the others are killed at a random point of their appends.
      const tearing = round % 4 === 3;
      const child = spawn(
        process.execPath,
        [workerJs(), root, `k${round}`, "1000000", "4000", tearing ? "tear" : "loop"],
        { stdio: ["ignore", "pipe", "ignore"] },
      );
      if (tearing) await new Promise((r) => child.stdout.once("data", r));
      else await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 200)));
      child.kill("SIGKILL");
      await new Promise((r) => child.on("exit", r));
      let raw: string;
      try {
        raw = readFileSync(join(dir, "events.jsonl"), "utf8");
      } catch {
        continue;
      }
      if (!raw.endsWith("\n")) tornSeen += 1;
      // The last element is "" after a final newline, or the torn line.
      const completeBefore = raw.split("\n").slice(0, -1);
      const report = recoverSession(dir, { write: true }).report;
      const after = eventLines(dir);
      for (const l of after) expect(() => JSON.parse(l)).not.toThrow();
      // Recovery removed only the torn tail: every complete line is still there, unchanged.
      expect(after).toEqual(completeBefore);
      if (tearing) expect(report.torn_tail?.bytes).toBeGreaterThan(0);
    }
    expect(tornSeen).toBeGreaterThanOrEqual(50);
    const events = storedEnvelopes(dir);
    expect(events.map((e) => e.sequence)).toEqual(Array.from({ length: events.length }, (_, i) => i + 1));
  }, 600_000);
});
