// Hostile files planted in a project (issue 11 items 4, 6, 8): FIFOs,
// symlinks and devices where tapedeck expects its own files. The recorder
// never blocks on them, never writes or deletes through a symlink, and says
// what it refused. Anything that could block runs in a child with a timeout.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock } from "../../src/core/archive/lock.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { writeDiagnostic } from "../../src/core/base/diagnostics.ts";
import { listSessions } from "../../src/core/read/sessions.ts";
import { type ChildResult, runChild, useBundledChild } from "../helpers/child.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

useBundledChild();

const project = useTempProjects();

function mkfifo(path: string): void {
  execFileSync("mkfifo", [path]);
}

/** What the store child answered to `args`: it must have finished, not blocked on a planted file. */
function answer(args: string[]): ChildResult["output"] {
  const r = runChild(args);
  expect(r.finished).toBe(true);
  return r.output;
}

const APPENDED = { ok: true, result: { appended: 1 } };

function sessionDir(root: string): string {
  return recordEvents(spec(root), [event("session_start", "s")]).sessionDir;
}

describe("non-regular files never block the recorder (11.6)", () => {
  it("a FIFO as state.json: the next append neither blocks nor loses the event", () => {
    const root = project();
    const dir = sessionDir(root);
    rmSync(join(dir, "state.json"));
    mkfifo(join(dir, "state.json"));
    expect(answer(["record", root])).toMatchObject(APPENDED);
    // The planted FIFO was replaced by a real state file.
    expect(lstatSync(join(dir, "state.json")).isFile()).toBe(true);
  });

  it("an events.jsonl FIFO and an event over 64 KB: refused at once, nothing written into it", () => {
    const root = project();
    const dir = join(root, ".tapedeck", "claude-sessions", "fifo-session");
    mkdirSync(dir, { recursive: true });
    mkfifo(join(dir, "events.jsonl"));
    expect(answer(["record", root, "fifo-session"])).toMatchObject({ ok: false, code: "UnsafePathError" });
    expect(lstatSync(join(dir, "events.jsonl")).isFIFO()).toBe(true);
  });

  it("a FIFO as ids.bin or as the lock does not block; the event is appended", () => {
    const root = project();
    const dir = sessionDir(root);
    rmSync(join(dir, "ids.bin"));
    mkfifo(join(dir, "ids.bin"));
    mkfifo(join(dir, "lock"));
    expect(answer(["record", root])).toMatchObject(APPENDED);
  });

  it("a FIFO as .git/HEAD does not block a session's first event", () => {
    const root = project();
    mkdirSync(join(root, ".git"));
    mkfifo(join(root, ".git", "HEAD"));
    expect(answer(["record", root])).toMatchObject(APPENDED);
  });

  it("a FIFO as config.json, or config.json linked to /dev/zero, reads as a broken config at once", () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"));
    mkfifo(join(root, ".tapedeck", "config.json"));
    expect(answer(["config", root])).toEqual({ ok: true, result: "unusable" });
    rmSync(join(root, ".tapedeck", "config.json"));
    symlinkSync("/dev/zero", join(root, ".tapedeck", "config.json"));
    expect(answer(["config", root])).toEqual({ ok: true, result: "unusable" });
  });

  it("a FIFO as control.jsonl does not block status", () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"));
    mkfifo(join(root, ".tapedeck", "control.jsonl"));
    expect(answer(["control", root])).toEqual({ ok: true, result: null });
  });
});

describe("nothing is written or deleted through a symlink (11.4, 11.8)", () => {
  it("a symlinked pending/ is neither written through nor emptied", () => {
    const root = project();
    const outside = project();
    writeFileSync(join(outside, "package.json"), "{}\n");
    writeFileSync(join(outside, "keep.json"), "[]\n");
    const dir = sessionDir(root);
    symlinkSync(outside, join(dir, "pending"));
    // Another writer holds the lock: this batch would go to the spool.
    const lock = acquireLock(dir, { timeoutMs: 0 });
    expect(lock).not.toBeNull();
    const spooled = recordEvents({ ...spec(root), lockTimeoutMs: 0 }, [event("user_prompt", "p1")]);
    lock?.release();
    expect(spooled.spooled).toBe(0);
    expect(readdirSync(outside).sort()).toEqual(["keep.json", "package.json"]);
    // The next lock holder drains the spool: not through the link.
    recordEvents(spec(root), [event("user_prompt", "p2")]);
    expect(readdirSync(outside).sort()).toEqual(["keep.json", "package.json"]);
    expect(readFileSync(join(dir, "diagnostics.jsonl"), "utf8")).toContain('"spool_unsafe"');
  });

  it("a symlinked .tapedeck is refused by the store itself (the proxy's archive feed calls it directly)", () => {
    const root = project();
    const outside = project();
    symlinkSync(outside, join(root, ".tapedeck"));
    expect(() => recordEvents(spec(root), [event("turn_usage", "u1")])).toThrow(/symlink/);
    expect(readdirSync(outside)).toEqual([]);
    expect(listSessions(root)).toEqual([]);
  });

  it("a .tapedeck the store creates itself (the proxy's feed, no install) is git-ignored", () => {
    const root = project();
    recordEvents(spec(root), [event("turn_usage", "u1")]);
    expect(readFileSync(join(root, ".tapedeck", ".gitignore"), "utf8")).toBe("*\n");
  });

  it("a symlinked session root or session directory inside .tapedeck is refused", () => {
    const root = project();
    const outside = project();
    mkdirSync(join(root, ".tapedeck"));
    symlinkSync(outside, join(root, ".tapedeck", "claude-sessions"));
    expect(() => recordEvents(spec(root), [event("session_start", "s")])).toThrow(/symlink/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("diagnostics never follow a symlinked diagnostics.jsonl or a symlinked .tapedeck", () => {
    const root = project();
    const outside = project();
    mkdirSync(join(root, ".tapedeck"));
    const victim = join(outside, "victim");
    writeFileSync(victim, "original\n");
    symlinkSync(victim, join(root, ".tapedeck", "diagnostics.jsonl"));
    writeDiagnostic(join(root, ".tapedeck"), { what: "error", stage: "test", code: "X" });
    expect(readFileSync(victim, "utf8")).toBe("original\n");

    const other = project();
    symlinkSync(outside, join(other, ".tapedeck"));
    writeDiagnostic(join(other, ".tapedeck"), { what: "error", stage: "test", code: "X" });
    expect(existsSync(join(outside, "diagnostics.jsonl"))).toBe(false);
  });

  it("inspect of a session whose events.jsonl is a FIFO answers without blocking", () => {
    const root = project();
    const dir = sessionDir(root);
    rmSync(join(dir, "events.jsonl"));
    mkfifo(join(dir, "events.jsonl"));
    // Refused with a clear error, never read.
    expect(answer(["inspect", root])).toEqual({ ok: false, code: "UnsafePathError" });
  });
});
