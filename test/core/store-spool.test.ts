// The spool (pending/) under faults (issue 11 items 2, 3, 5, 7): events a
// writer spooled are visible and drained even if no hook ever comes again, a
// bad spool file never blocks a writer, a failed lock claim (disk full)
// leaves neither an empty lock nor temp files, and the hook server's
// never-wait mode takes the lock or spools without a synchronous sleep.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { acquireLock } from "../../src/core/archive/lock.ts";
import { recoverSession } from "../../src/core/archive/recovery.ts";
import { recordEvents, type SessionSpec } from "../../src/core/archive/session-store.ts";
import { inspectSession, listSessions } from "../../src/core/read/sessions.ts";
import { runChild, useBundledChild } from "../helpers/child.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

afterEach(() => {
  vi.restoreAllMocks();
});
useBundledChild();

const project = useTempProjects();

/** The pid of a process that has exited: an agent that is gone. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

function eventLines(dir: string): Array<{ kind: string; sequence: number }> {
  return readFileSync(join(dir, "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** Records while another writer holds the lock: the batch goes to the spool. */
function spoolWhileLocked(s: SessionSpec, dir: string, events: ReturnType<typeof event>[]): number {
  const lock = acquireLock(dir, { timeoutMs: 0 });
  expect(lock).not.toBeNull();
  try {
    return recordEvents({ ...s, lockWaitMs: 0 }, events).spooled;
  } finally {
    lock?.release();
  }
}

describe("spooled events are visible and drained (11.2)", () => {
  function endedInSpool(agentPid: number | null) {
    const root = project();
    const s = spec(root, { agentPid });
    const dir = recordEvents(s, [event("session_start", "a"), event("user_prompt", "b")]).sessionDir;
    expect(spoolWhileLocked(s, dir, [event("assistant_message", "c"), event("session_end", "d")])).toBe(2);
    return { root, dir };
  }

  it("list and inspect show the events waiting in the spool of a live session, and inspect suggests repair", () => {
    const { root } = endedInSpool(process.pid);
    const [ref] = listSessions(root);
    expect(ref?.spooled_events).toBe(2);
    const summary = inspectSession(ref!);
    expect(summary.event_count).toBe(2);
    expect(summary.spool).toMatchObject({ events: 2, files: 1, ends_session: true });
    expect(summary.repair_hint).toMatch(/2 event\(s\) waiting in the spool.*tapedeck repair/);
  });

  it("repair appends the spool: 4 of 4 events, complete, sealed, nothing left waiting", () => {
    const { dir } = endedInSpool(process.pid);
    const result = recoverSession(dir, { write: true });
    expect(result.report.spool_drained).toBe(2);
    expect(result.manifest?.status).toBe("complete");
    expect(result.state.event_count).toBe(4);
    expect(eventLines(dir).map((e) => e.kind)).toEqual([
      "session_start",
      "user_prompt",
      "assistant_message",
      "session_end",
    ]);
    expect(readdirSync(join(dir, "pending")).filter((n) => n.endsWith(".json"))).toEqual([]);
    expect(existsSync(join(dir, "checksums.json"))).toBe(true);
  });

  it("inspect of a session whose agent is gone appends its spool (no later hook ever will)", () => {
    const { root } = endedInSpool(deadPid());
    const [ref] = listSessions(root);
    const summary = inspectSession(ref!);
    expect(summary.event_count).toBe(4);
    expect(summary.status).toBe("complete");
    expect(summary.spool.events).toBe(0);
    expect(summary.checksums?.ok).toBe(true);
    expect(listSessions(root)[0]).toMatchObject({ spooled_events: 0, manifest: { event_count: 4 } });
  });
});

describe("a bad spool file never blocks a writer (11.3)", () => {
  it("[null], [{}], {} and garbage are set aside and reported; every later event is recorded", () => {
    const root = project();
    const s = spec(root);
    const dir = recordEvents(s, [event("session_start", "a")]).sessionDir;
    mkdirSync(join(dir, "pending"));
    const bad = {
      "000000000000001-a.json": "[null]",
      "000000000000002-b.json": "[{}]",
      "000000000000003-c.json": "{}",
      "000000000000004-d.json": "not json",
    };
    for (const [name, text] of Object.entries(bad)) writeFileSync(join(dir, "pending", name), text);
    for (let i = 0; i < 6; i += 1) {
      expect(recordEvents(s, [event("user_prompt", `p${i}`)]).appended).toBe(1);
    }
    expect(eventLines(dir)).toHaveLength(7);
    const left = readdirSync(join(dir, "pending")).sort();
    expect(left).toEqual(
      Object.keys(bad)
        .map((n) => `${n}.rejected`)
        .sort(),
    );
    expect(readFileSync(join(dir, "diagnostics.jsonl"), "utf8").match(/spool_unreadable/g)).toHaveLength(4);
    expect(inspectSession(listSessions(root)[0]!).spool.rejected_files).toBe(4);
  });
});

describe("a failed lock claim cleans up after itself (11.5)", () => {
  it("with no byte writable (disk full), neither an empty lock nor a temp file stays", () => {
    const root = project();
    const dir = recordEvents(spec(root), [event("session_start", "a")]).sessionDir;
    const r = runChild(["record", root], { fileSizeLimitZero: true });
    expect(r.finished).toBe(true);
    expect(existsSync(join(dir, "lock"))).toBe(false);
    const pending = existsSync(join(dir, "pending")) ? readdirSync(join(dir, "pending")) : [];
    expect(pending.filter((n) => n.endsWith(".tmp"))).toEqual([]);
    // The next writer gets the lock at once.
    expect(recordEvents({ ...spec(root), lockWaitMs: 0 }, [event("user_prompt", "b")]).appended).toBe(1);
  });

  it("temp files a dead writer left in the spool are removed by the next drain", () => {
    const root = project();
    const s = spec(root);
    const dir = recordEvents(s, [event("session_start", "a")]).sessionDir;
    mkdirSync(join(dir, "pending"));
    const stale = join(dir, "pending", "000000000000001-x.json.123.1.tmp");
    const fresh = join(dir, "pending", "000000000000002-y.json.456.1.tmp");
    writeFileSync(stale, "[");
    writeFileSync(fresh, "[");
    const old = new Date(Date.now() - 10 * 60_000);
    utimesSync(stale, old, old);
    recordEvents(s, [event("user_prompt", "b")]);
    expect(existsSync(stale)).toBe(false);
    // A young one may belong to a writer still renaming it.
    expect(existsSync(fresh)).toBe(true);
  });
});

describe("never waiting for the lock (the hook server's mode, 11.7)", () => {
  it("lockWaitMs 0 and a live lock: spooled without a synchronous sleep", () => {
    const root = project();
    const s = spec(root);
    const dir = recordEvents(s, [event("session_start", "a")]).sessionDir;
    const lock = acquireLock(dir, { timeoutMs: 0 });
    const wait = vi.spyOn(Atomics, "wait");
    const out = recordEvents({ ...s, lockTimeoutMs: 500, lockWaitMs: 0 }, [event("user_prompt", "b")]);
    lock?.release();
    expect(out.spooled).toBe(1);
    expect(wait).not.toHaveBeenCalled();
  });

  it("lockWaitMs 0 and a stale lock (its owner died): broken and appended at once, without a sleep", () => {
    const root = project();
    const s = spec(root);
    const dir = recordEvents(s, [event("session_start", "a")]).sessionDir;
    writeFileSync(join(dir, "lock"), `${deadPid()} deadbeef`);
    const wait = vi.spyOn(Atomics, "wait");
    // lockTimeoutMs 0 is how the recorder passes the server's lockWaitMs on.
    const out = recordEvents({ ...s, lockTimeoutMs: 0 }, [event("user_prompt", "b")]);
    expect(out).toMatchObject({ appended: 1, spooled: 0 });
    expect(wait).not.toHaveBeenCalled();
  });
});
