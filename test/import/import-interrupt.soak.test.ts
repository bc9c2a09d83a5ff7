// `tapedeck import` interrupted at any byte of a growing session: the command killed by SIGKILL, SIGINT or
// SIGTERM at a seeded random moment while it appends, or stopped by a full disk (RLIMIT_FSIZE: the events
// file cannot grow past a limit, as a full disk stops it, and the write fails with EFBIG), the transcript
// growing between the runs and while they run, a line of it left half written. Then one import to the end:
// every record is in the archive exactly once, the events of one clean import of the final transcript.
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { seededRandom } from "../../packages/redact/test/random.ts";
import { verifyChecksums } from "../../src/core/archive/recovery.ts";
import { readEventsFile } from "../e2e/archive-checks.ts";
import { CLI, ensureBuilt, runCli } from "../helpers/cli-run.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { claudeTurns, SAMPLE_ID, writeTranscript } from "./fixture.ts";

const temp = useTempProjects("tapedeck-import-interrupt-");
beforeAll(ensureBuilt);

const SEED = 0x1d7e_2026;
/** Rounds of each fault, in turn. */
const FAULTS = ["SIGKILL", "SIGINT", "SIGTERM", "disk"] as const;
const ROUNDS = 16;
/** 7 events a turn: a round's growth is two or three batches of the import's (200 events). */
const GROWTH_TURNS = [30, 60] as const;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
}

function setUp() {
  const root = temp();
  const home = join(root, "home");
  const project = join(root, "project");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = { ...process.env, HOME: home, TAPEDECK_HOME: join(home, ".tapedeck") };
  const args = ["import", "claude", "--yes", "--json", "--project", project];
  /** The import as a user runs it; with `limitKb`, under a file size limit (SIGXFSZ ignored: EFBIG). */
  const start = (limitKb?: number): ChildProcess =>
    limitKb === undefined
      ? spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "ignore"] })
      : spawn(
          "bash",
          ["-c", `trap '' XFSZ; ulimit -f ${limitKb}; exec "$0" "$@"`, process.execPath, CLI, ...args],
          { env, stdio: ["ignore", "pipe", "ignore"] },
        );
  return { root, home, project, start };
}

function finished(child: ChildProcess): Promise<Run> {
  let stdout = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout })));
}

const sizeOf = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};
const linesIn = (path: string) => {
  try {
    return readFileSync(path).reduce((n, b) => n + (b === 10 ? 1 : 0), 0);
  } catch {
    return 0;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once `path` is larger than `than` (the import appended a batch) or the run ended. */
async function appended(path: string, than: number, done: { ended: boolean }): Promise<boolean> {
  while (!done.ended) {
    if (sizeOf(path) > than) return true;
    await sleep(1);
  }
  return false;
}

describe("an import interrupted at any byte", () => {
  it("resumes from its cursor: SIGKILL, SIGINT, SIGTERM and a full disk over a growing transcript, every record once", async () => {
    const rnd = seededRandom(SEED);
    const between = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
    const { root, home, project, start } = setUp();
    const dir = join(project, ".tapedeck", "claude-sessions", SAMPLE_ID);
    const events = join(dir, "events.jsonl");
    let turns = 40;
    const path = writeTranscript(home, project, SAMPLE_ID, claudeTurns(project, 0, turns));
    let torn = "";
    /** `count` more turns; `tear`: the last line only half written, its rest written by the next growth. */
    const grow = (count: number, tear: boolean) => {
      const lines = claudeTurns(project, turns, count);
      turns += count;
      let text = torn + lines.map((l) => `${l}\n`).join("");
      torn = "";
      if (tear) {
        const last = lines.at(-1)!;
        const cut = between(1, last.length - 1);
        torn = `${last.slice(cut)}\n`;
        text = text.slice(0, text.length - torn.length);
      }
      appendFileSync(path, text);
    };

    const first = await finished(start());
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ sessions: 1, failed: 0 });

    const interrupted: Record<string, number> = {};
    for (let round = 0; round < ROUNDS; round += 1) {
      const fault = FAULTS[round % FAULTS.length]!;
      grow(between(...GROWTH_TURNS), rnd() < 0.3);
      const before = sizeOf(events);
      const linesBefore = linesIn(events);
      if (fault === "disk") {
        // Room for a few dozen events more, then the events file is full.
        const run = await finished(start(Math.ceil((before + between(16, 160) * 1024) / 1024)));
        const out = JSON.parse(run.stdout);
        if (run.code === 1) {
          interrupted[fault] = (interrupted[fault] ?? 0) + 1;
          expect(out.failed).toBe(1);
          expect(out.skipped).toEqual([expect.objectContaining({ reason: "import failed (EFBIG)" })]);
        } else expect(run.code).toBe(0);
        // What it reports is what it wrote, also when it failed part-way.
        expect(out.events).toBe(linesIn(events) - linesBefore);
        continue;
      }
      const child = start();
      const done = { ended: false };
      const run = finished(child).then((r) => {
        done.ended = true;
        return r;
      });
      // The agent goes on writing while the import reads.
      if (rnd() < 0.5) grow(between(1, 10), false);
      // Now and then a run is let finish: the next interruption is then past a cursor that moved.
      const kill = rnd() < 0.8;
      const wait = between(0, 15);
      if (kill && (await appended(events, before, done))) {
        await sleep(wait);
        child.kill(fault);
      }
      const ended = await run;
      if (ended.signal === fault) interrupted[fault] = (interrupted[fault] ?? 0) + 1;
      else expect(ended.code).toBe(0);
    }
    appendFileSync(path, torn);

    const last = await finished(start());
    expect(last.code).toBe(0);
    expect(JSON.parse(last.stdout)).toMatchObject({ failed: 0, skipped: [] });
    const again = await finished(start());
    expect(JSON.parse(again.stdout)).toMatchObject({ sessions: 0, events: 0, unchanged: 1 });
    // Every fault struck an import part-way at least once.
    expect(Object.keys(interrupted).sort()).toEqual([...FAULTS].sort());

    const resumed = readEventsFile(events);
    expect(resumed.map((e) => e.sequence)).toEqual(resumed.map((_, i) => i + 1));
    expect(verifyChecksums(dir).ok).toBe(true);
    const inspect = runCli(["inspect", SAMPLE_ID, "--json", "--project", project], home);
    expect(JSON.parse(inspect.stdout)).toMatchObject({ status: "complete", import_interrupted: null });

    // The same transcript imported once, into a fresh archive at the same place.
    renameSync(join(project, ".tapedeck"), join(root, "resumed-archive"));
    const clean = await finished(start());
    expect(clean.code).toBe(0);
    const once = readEventsFile(events);
    const ids = resumed.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(once.length);
    expect([...ids].sort()).toEqual(once.map((e) => e.event_id).sort());
    expect(once.length).toBe(1 + 7 * turns);
  });
});
