// The store's additions for `tapedeck import`: a session sealed without a terminal event (the agent's files
// of a finished session end without one), ending where its last event is; the import record in the
// manifest, updated by each import that reads more; the mark another recorder leaves on an imported session
// before its first line; and an import's batch that never waits in the spool.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { acquireLock } from "../../src/core/archive/lock.ts";
import { verifyChecksums } from "../../src/core/archive/recovery.ts";
import { Manifest } from "../../src/core/archive/schemas.ts";
import { drainSpoolLocked, recordEvents, SessionBusyError } from "../../src/core/archive/session-store.ts";
import { event, identity, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function at(e: ReturnType<typeof event>, timestamp: string) {
  return { ...e, timestamp };
}

const record = (path: string, bytes: number) => ({
  source: { path, bytes, sha256: "a".repeat(64) },
  files: [{ path, bytes, sha256: "a".repeat(64) }],
  imported_at: "2026-12-01T10:00:00.000Z",
  not_captured: ["session_end"],
});

function manifestOf(dir: string): Manifest {
  return Manifest.parse(JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")));
}

describe("an imported session", () => {
  it("is sealed without a terminal event and ends at its last event, not when it was read", () => {
    const root = project();
    const s = spec(root, {
      identity: {
        provider: "claude",
        provider_session_id: "s1",
        session_id: "claude:s1",
        identity_source: "import",
      },
      imported: record("/home/u/.claude/projects/p/s1.jsonl", 100),
      seal: true,
    });
    const out = recordEvents(s, [
      at(event("user_prompt", "p1", { prompt: "hi" }), "2026-01-02T03:04:05.000Z"),
      at(event("assistant_message", "a1", { text: "hello" }), "2026-01-02T03:04:09.500Z"),
    ]);
    expect(out.appended).toBe(2);
    const m = manifestOf(out.sessionDir);
    expect(m).toMatchObject({
      status: "complete",
      identity_source: "import",
      started_at: "2026-01-02T03:04:05.000Z",
      ended_at: "2026-01-02T03:04:09.500Z",
      import: { source: { bytes: 100 } },
    });
    expect(verifyChecksums(out.sessionDir).ok).toBe(true);
  });

  it("a later import of the grown file appends, reseals and updates the import record; nothing new, nothing written", () => {
    const root = project();
    const base = {
      identity: {
        provider: "claude",
        provider_session_id: "s2",
        session_id: "claude:s2",
        identity_source: "import" as const,
      },
      seal: true,
    };
    const first = recordEvents(spec(root, { ...base, imported: record("/t.jsonl", 10) }), [
      at(event("user_prompt", "p1", { prompt: "one" }), "2026-01-02T03:00:00.000Z"),
    ]);
    const sealed = readFileSync(join(first.sessionDir, "checksums.json"), "utf8");
    const again = recordEvents(spec(root, { ...base, imported: record("/t.jsonl", 10) }), [
      at(event("user_prompt", "p1", { prompt: "one" }), "2026-01-02T03:00:00.000Z"),
    ]);
    expect(again).toMatchObject({ appended: 0, duplicates: 1 });
    expect(readFileSync(join(first.sessionDir, "checksums.json"), "utf8")).toBe(sealed);
    const grown = recordEvents(spec(root, { ...base, imported: record("/t.jsonl", 20) }), [
      at(event("user_prompt", "p2", { prompt: "two" }), "2026-01-03T03:00:00.000Z"),
    ]);
    expect(grown.appended).toBe(1);
    const m = manifestOf(first.sessionDir);
    expect(m.ended_at).toBe("2026-01-03T03:00:00.000Z");
    expect(m.import?.source.bytes).toBe(20);
    expect(m.event_count).toBe(2);
    expect(verifyChecksums(first.sessionDir).ok).toBe(true);
  });

  it("a batch without seal leaves the session active (an import seals once, at its last batch)", () => {
    const root = project();
    const out = recordEvents(spec(root), [
      at(event("user_prompt", "p1", { prompt: "x" }), "2026-01-02T03:00:00.000Z"),
    ]);
    expect(manifestOf(out.sessionDir).status).toBe("active");
  });
});

describe("a batch appended at once", () => {
  it("drops a repeat inside the batch, writes a batch past the flush size whole, and its ids hold on reopen", () => {
    const root = project();
    const big = "x".repeat(200 * 1024);
    const events = Array.from({ length: 12 }, (_, i) =>
      event("tool_result", `r${i}`, { tool_response: `${i}${big}` }),
    );
    // The repeat comes right after its first, before any line of the batch is written.
    const repeat = [
      event("user_prompt", "p1", { prompt: "hi" }),
      event("user_prompt", "p1", { prompt: "hi" }),
    ];
    const first = recordEvents(spec(root), [...repeat, ...events]);
    expect(first).toMatchObject({ appended: 13, duplicates: 1 });
    const lines = readFileSync(join(first.sessionDir, "events.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => JSON.parse(l).event_id)).toEqual(["p1", ...events.map((e) => e.event_id)]);
    // A new writer (a new process) sees every id of the batch.
    const again = recordEvents(spec(root), [...repeat, ...events]);
    expect(again).toMatchObject({ appended: 0, duplicates: 14 });
  });
});

describe("the id table pages a writer keeps for the next batch", () => {
  it("are dropped once another process appended: its ids are seen, nothing is appended twice", async () => {
    const root = project();
    const many = Array.from({ length: 200 }, (_, i) => event("user_prompt", `a${i}`, { prompt: "x" }));
    // This process's writer keeps the pages (all of a new table's) for its next batch.
    recordEvents(spec(root), many);
    // Another process: a second copy of the store module, with pages of its own.
    vi.resetModules();
    const other = await import("../../src/core/archive/session-store.ts");
    expect(other.recordEvents).not.toBe(recordEvents);
    const theirs = Array.from({ length: 50 }, (_, i) => event("user_prompt", `b${i}`, { prompt: "y" }));
    expect(other.recordEvents(spec(root), theirs).appended).toBe(50);
    const again = recordEvents(spec(root), [...theirs, event("user_prompt", "c1", { prompt: "z" })]);
    expect(again).toMatchObject({ appended: 1, duplicates: 50 });
  });
});

describe("an imported session another recorder takes up", () => {
  const imported = (root: string) =>
    spec(root, {
      identity: { ...identity("s3"), identity_source: "import" },
      seal: true,
    });
  const hooks = (root: string) => spec(root, { identity: identity("s3") });
  const hooksMark = (dir: string) => manifestOf(dir).hooks_since_import;

  it("is marked by the hooks' first append, before its line; the import's own appends never mark it", () => {
    const root = project();
    const dir = recordEvents(imported(root), [event("user_prompt", "p1", { prompt: "one" })]).sessionDir;
    recordEvents(imported(root), [event("user_prompt", "p2", { prompt: "two" })]);
    expect(hooksMark(dir)).toBeUndefined();
    recordEvents(hooks(root), [event("session_start", "resume-1", { source: "resume" })]);
    const mark = hooksMark(dir);
    expect(mark).toMatch(/^\d{4}-/);
    // Once: a later append keeps the first time.
    recordEvents(hooks(root), [event("user_prompt", "p3", { prompt: "three" })]);
    recordEvents(imported(root), [event("user_prompt", "p4", { prompt: "four" })]);
    expect(hooksMark(dir)).toBe(mark);
  });

  it("is marked when a hook's spooled batch is drained, by the import's writer or a repair; an empty spool marks nothing", () => {
    const root = project();
    const dir = recordEvents(imported(root), [event("user_prompt", "p1", { prompt: "one" })]).sessionDir;
    drainSpoolLocked(dir, manifestOf(dir));
    expect(hooksMark(dir)).toBeUndefined();
    const lock = acquireLock(dir, { timeoutMs: 0 });
    const spooled = recordEvents({ ...hooks(root), lockWaitMs: 0 }, [
      event("user_prompt", "h1", { prompt: "x" }),
    ]);
    lock?.release();
    expect(spooled.spooled).toBe(1);
    expect(hooksMark(dir)).toBeUndefined();
    recordEvents(imported(root), [event("user_prompt", "p2", { prompt: "two" })]);
    expect(hooksMark(dir)).toMatch(/^\d{4}-/);
  });

  it("an import's batch meeting a busy lock throws instead of spooling", () => {
    const root = project();
    const dir = recordEvents(imported(root), [event("user_prompt", "p1", { prompt: "one" })]).sessionDir;
    const lock = acquireLock(dir, { timeoutMs: 0 });
    try {
      expect(() =>
        recordEvents({ ...imported(root), lockWaitMs: 0, noSpool: true }, [event("user_prompt", "p2")]),
      ).toThrow(SessionBusyError);
    } finally {
      lock?.release();
    }
    expect(existsSync(join(dir, "pending"))).toBe(false);
  });
});
