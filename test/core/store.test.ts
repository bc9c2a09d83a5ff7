import { createHash } from "node:crypto";
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { acquireLock } from "../../src/core/archive/lock.ts";
import { Manifest } from "../../src/core/archive/schemas.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { event, eventLines, identity, spec, storedEnvelopes, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

describe("session store", () => {
  it("appends valid envelopes with contiguous sequences and a manifest", () => {
    const root = project();
    const out = recordEvents(spec(root), [
      event("session_start", "a"),
      event("user_prompt", "b", { prompt: "hi" }),
    ]);
    expect(out.appended).toBe(2);
    const events = storedEnvelopes(out.sessionDir);
    expect(events.map((e) => e.sequence)).toEqual([1, 2]);
    expect(events[1]?.payload).toEqual({ prompt: "hi" });
    const manifest = Manifest.parse(JSON.parse(readFileSync(join(out.sessionDir, "manifest.json"), "utf8")));
    expect(manifest.status).toBe("active");
    expect(manifest.event_count).toBe(2);
    expect(manifest.byte_count).toBe(statSync(join(out.sessionDir, "events.jsonl")).size);
  });

  it("creates directories 0700 and files 0600", () => {
    const root = project();
    const out = recordEvents(spec(root), [event("session_start", "a")]);
    expect(statSync(out.sessionDir).mode & 0o777).toBe(0o700);
    for (const f of ["events.jsonl", "manifest.json", "state.json", "ids.bin"]) {
      expect(statSync(join(out.sessionDir, f)).mode & 0o777).toBe(0o600);
    }
  });

  it("ignores a repeated event_id and counts it", () => {
    const root = project();
    const s = spec(root);
    recordEvents(s, [event("tool_call", "same")]);
    const second = recordEvents(s, [event("tool_call", "same"), event("tool_call", "other")]);
    expect(second.duplicates).toBe(1);
    expect(second.appended).toBe(1);
    expect(eventLines(second.sessionDir)).toHaveLength(2);
  });

  it("still deduplicates an early event after thousands more (the id table grows)", () => {
    const root = project();
    const s = spec(root);
    const batch = Array.from({ length: 5000 }, (_, i) => event("tool_call", `id-${i}`));
    recordEvents(s, batch);
    const again = recordEvents(s, [event("tool_call", "id-3"), event("tool_call", "id-4999")]);
    expect(again.duplicates).toBe(2);
    expect(eventLines(again.sessionDir)).toHaveLength(5000);
  });

  it("finalizes once: one session_end, checksums, ended_at, complete", () => {
    const root = project();
    const s = spec(root);
    recordEvents(s, [event("session_start", "s"), event("user_prompt", "p")]);
    const first = recordEvents(s, [event("session_end", "end")]);
    const retry = recordEvents(s, [event("session_end", "end")]);
    const distinct = recordEvents(s, [event("session_end", "end-2")]);
    expect(first.finalized).toBe(true);
    expect(retry.appended + distinct.appended).toBe(0);
    const kinds = storedEnvelopes(first.sessionDir).map((e) => e.kind);
    expect(kinds.filter((k) => k === "session_end")).toHaveLength(1);
    const manifest = JSON.parse(readFileSync(join(first.sessionDir, "manifest.json"), "utf8"));
    expect(manifest.status).toBe("complete");
    expect(manifest.ended_at).not.toBeNull();
    const checksums = JSON.parse(readFileSync(join(first.sessionDir, "checksums.json"), "utf8"));
    const sha = createHash("sha256")
      .update(readFileSync(join(first.sessionDir, "events.jsonl")))
      .digest("hex");
    expect(checksums.events_sha256).toBe(sha);
    expect(checksums.event_count).toBe(3);
  });

  /** The kinds of a session that ended, was resumed and ended again. */
  const TWO_EPOCHS = ["session_start", "session_end", "session_start", "session_end"];

  it("reopens a resumed session and finalizes it again", () => {
    const root = project();
    const s = spec(root);
    recordEvents(s, [event("session_start", "s1"), event("session_end", "end")]);
    const resumed = recordEvents(s, [event("session_start", "s2")]);
    let manifest = JSON.parse(readFileSync(join(resumed.sessionDir, "manifest.json"), "utf8"));
    expect(manifest.status).toBe("active");
    // Claude sends the same SessionEnd payload after a resume; it must count again.
    const ended = recordEvents(s, [event("session_end", "end")]);
    expect(ended.appended).toBe(1);
    manifest = JSON.parse(readFileSync(join(resumed.sessionDir, "manifest.json"), "utf8"));
    expect(manifest.status).toBe("complete");
    expect(storedEnvelopes(resumed.sessionDir).map((e) => e.kind)).toEqual(TWO_EPOCHS);
  });

  it("a resume with a byte-identical start starts a new epoch; a retried start within an epoch does not", () => {
    const root = project();
    const s = spec(root);
    recordEvents(s, [event("session_start", "start"), event("session_start", "start")]);
    recordEvents(s, [event("session_end", "end")]);
    const resumed = recordEvents(s, [event("session_start", "start"), event("session_start", "start")]);
    expect(resumed.appended).toBe(1);
    expect(resumed.duplicates).toBe(1);
    recordEvents(s, [event("session_end", "end")]);
    expect(storedEnvelopes(resumed.sessionDir).map((e) => e.kind)).toEqual(TWO_EPOCHS);
  });

  it("spools when the lock cannot be had and the next writer drains the spool in order", () => {
    const root = project();
    const s = spec(root, { lockTimeoutMs: 20 });
    const first = recordEvents(s, [event("session_start", "s")]);
    const lock = acquireLock(first.sessionDir, { timeoutMs: 100 });
    expect(lock).not.toBeNull();
    const a = recordEvents(s, [event("user_prompt", "p1", { prompt: "one" })]);
    const b = recordEvents(s, [event("user_prompt", "p2", { prompt: "two" })]);
    expect(a.spooled + b.spooled).toBe(2);
    expect(eventLines(first.sessionDir)).toHaveLength(1);
    lock!.release();
    recordEvents(s, [event("tool_call", "t")]);
    expect(storedEnvelopes(first.sessionDir).map((e) => e.event_id)).toEqual(["s", "p1", "p2", "t"]);
  });

  it("breaks a lock left by a killed process", () => {
    const root = project();
    const s = spec(root, { lockTimeoutMs: 2000 });
    const first = recordEvents(s, [event("session_start", "s")]);
    // A pid that cannot be alive: the lock's owner is gone.
    writeFileSync(join(first.sessionDir, "lock"), "2147483646 deadbeef");
    const out = recordEvents(s, [event("user_prompt", "p")]);
    expect(out.appended).toBe(1);
  });

  it("keeps lifecycle events past the session byte cap and counts the drops", () => {
    const root = project();
    const s = spec(root, {}, { max_session_bytes: 2000 });
    recordEvents(s, [event("session_start", "s")]);
    const filler = "y".repeat(600);
    const out = recordEvents(
      s,
      Array.from({ length: 6 }, (_, i) => event("tool_result", `r${i}`, { out: filler })),
    );
    expect(out.dropped).toBeGreaterThan(0);
    const end = recordEvents(s, [event("session_end", "e")]);
    expect(end.appended).toBe(1);
    const manifest = JSON.parse(readFileSync(join(out.sessionDir, "manifest.json"), "utf8"));
    expect(manifest.dropped_count).toBe(out.dropped);
  });

  it("reconciles lines appended by a writer that died before updating its state", () => {
    const root = project();
    const s = spec(root);
    const out = recordEvents(s, [event("session_start", "s")]);
    const foreign = JSON.parse(eventLines(out.sessionDir)[0]!);
    appendFileSync(
      join(out.sessionDir, "events.jsonl"),
      `${JSON.stringify({ ...foreign, sequence: 2, event_id: "ghost" })}\n`,
    );
    const next = recordEvents(s, [event("user_prompt", "p"), event("tool_call", "ghost")]);
    expect(next.duplicates).toBe(1);
    expect(storedEnvelopes(out.sessionDir).map((e) => e.sequence)).toEqual([1, 2, 3]);
  });

  it("removes only a torn final line on the next append", () => {
    const root = project();
    const s = spec(root);
    const out = recordEvents(s, [event("session_start", "s"), event("user_prompt", "p")]);
    appendFileSync(join(out.sessionDir, "events.jsonl"), '{"schema_version":1,"sequence":3,"event_id":"to');
    recordEvents(s, [event("tool_call", "t")]);
    const events = storedEnvelopes(out.sessionDir);
    expect(events.map((e) => e.event_id)).toEqual(["s", "p", "t"]);
    const report = JSON.parse(readFileSync(join(out.sessionDir, "recovery.json"), "utf8"));
    expect(report.torn_tail.bytes).toBeGreaterThan(0);
  });

  it("names a hostile session id's directory by hash inside the session root", () => {
    const root = project();
    const out = recordEvents(spec(root, { identity: identity("../../etc/passwd") }), [
      event("session_start", "s"),
    ]);
    expect(out.sessionDir.startsWith(join(root, ".tapedeck", "claude-sessions", "h-"))).toBe(true);
  });

  it("keeps the branch in the manifest as redaction leaves it: a token in a branch name is not written", () => {
    const root = project();
    const token = ["gh", "p_", "Zq8xVb2LmN4pR7tW9yKc3Hd5Jf6Gs1Ae0BuXk"].join("");
    mkdirSync(join(root, ".git", "refs", "heads"), { recursive: true });
    writeFileSync(join(root, ".git", "HEAD"), `ref: refs/heads/fix-${token}\n`);
    const out = recordEvents(spec(root), [event("session_start", "s")]);
    const manifest = Manifest.parse(JSON.parse(readFileSync(join(out.sessionDir, "manifest.json"), "utf8")));
    expect(manifest.repository_branch).toBe("fix-[REDACTED:github_token]");
  });
});
