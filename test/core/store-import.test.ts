// The store's two additions for `tapedeck import`: a session sealed without a terminal event (the agent's files
// of a finished session end without one), ending where its last event is, and the import record in the
// manifest, updated by each import that reads more.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { verifyChecksums } from "../../src/core/recovery.ts";
import { Manifest } from "../../src/core/schemas.ts";
import { recordEvents } from "../../src/core/store.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

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
    const other = await import("../../src/core/store.ts");
    expect(other.recordEvents).not.toBe(recordEvents);
    const theirs = Array.from({ length: 50 }, (_, i) => event("user_prompt", `b${i}`, { prompt: "y" }));
    expect(other.recordEvents(spec(root), theirs).appended).toBe(50);
    const again = recordEvents(spec(root), [...theirs, event("user_prompt", "c1", { prompt: "z" })]);
    expect(again).toMatchObject({ appended: 1, duplicates: 50 });
  });
});
