// After a repair the status and the checksum are true (issue 11 item 14), and
// list agrees with inspect for a session whose writer died (item 12).
import { spawnSync } from "node:child_process";
import { appendFileSync, readFileSync, statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recoverSession, verifyChecksums } from "../../src/core/archive/recovery.ts";
import { RecoveryReport } from "../../src/core/archive/schemas.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { inspectSession, listSessions } from "../../src/core/read/sessions.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

/** An envelope line as a writer appends it, for a writer that then dies before its commit. */
function envelopeLine(sequence: number, kind: string, id: string): string {
  return `${JSON.stringify({
    schema_version: 1,
    sequence,
    event_id: id,
    timestamp: new Date().toISOString(),
    kind,
    provider: "claude",
    session_id: "claude:sess-1",
    payload: { note: "x".repeat(300) },
    redactions: [],
    truncations: [],
    omitted: [],
  })}\n`;
}

describe("repair re-seals and tells the true status (11.14)", () => {
  it("a torn session_end: removed, the session is incomplete, re-sealed with both hashes in recovery.json", () => {
    const root = project();
    const s = spec(root, { agentPid: deadPid() });
    const dir = recordEvents(s, [
      event("session_start", "a"),
      event("user_prompt", "b"),
      event("session_end", "c"),
    ]).sessionDir;
    const events = join(dir, "events.jsonl");
    const before = JSON.parse(readFileSync(join(dir, "checksums.json"), "utf8")).events_sha256;
    // The session_end line cut short, as by a crash mid-write.
    truncateSync(events, statSync(events).size - 20);
    const result = recoverSession(dir, { write: true });
    expect(result.manifest?.status).toBe("incomplete");
    expect(result.manifest?.incomplete_reason).toMatch(/torn final line/);
    expect(verifyChecksums(dir)).toEqual({ ok: true, reason: "sha256 matches" });
    const report = RecoveryReport.parse(JSON.parse(readFileSync(join(dir, "recovery.json"), "utf8")));
    expect(report.resealed?.previous_sha256).toBe(before);
    expect(report.resealed?.sha256).not.toBe(before);
    // inspect no longer warns about the checksum, and says what the status is.
    const summary = inspectSession(listSessions(root)[0]!);
    expect(summary.status).toBe("incomplete");
    expect(summary.repair_hint).toBeNull();
  });

  it("a session_end appended by a writer that died before sealing: repair makes it complete and sealed", () => {
    const root = project();
    const s = spec(root, { agentPid: deadPid() });
    const dir = recordEvents(s, [event("session_start", "a"), event("user_prompt", "b")]).sessionDir;
    appendFileSync(join(dir, "events.jsonl"), envelopeLine(3, "session_end", "c@1"));
    const result = recoverSession(dir, { write: true });
    expect(result.manifest?.status).toBe("complete");
    expect(verifyChecksums(dir).ok).toBe(true);
  });

  it("inspect suggests repair for a torn or a malformed line it may not fix itself (a live session)", () => {
    const root = project();
    const s = spec(root, { agentPid: process.pid });
    const dir = recordEvents(s, [event("session_start", "a"), event("user_prompt", "b")]).sessionDir;
    appendFileSync(join(dir, "events.jsonl"), "not json\n");
    appendFileSync(join(dir, "events.jsonl"), '{"schema_version":1,"seq');
    const summary = inspectSession(listSessions(root)[0]!);
    expect(summary.torn_line).toMatchObject({ present: true, removed: false });
    expect(summary.repair_hint).toMatch(/a torn final line; 1 malformed line\(s\).*tapedeck repair sess-1/);
  });
});

describe("list agrees with inspect (11.12)", () => {
  it("a writer that died between its append and its state update: same events and bytes", () => {
    const root = project();
    const s = spec(root, { agentPid: process.pid });
    const dir = recordEvents(s, [event("session_start", "a"), event("user_prompt", "b")]).sessionDir;
    appendFileSync(join(dir, "events.jsonl"), envelopeLine(3, "assistant_message", "c"));
    const [listed] = listSessions(root);
    const inspected = inspectSession(listed!);
    expect(listed?.manifest.event_count).toBe(3);
    expect(listed?.manifest.event_count).toBe(inspected.event_count);
    expect(listed?.manifest.byte_count).toBe(inspected.byte_count);
  });

  it("appends in a burst (manifest refreshed at most every 250 ms): list still counts every event", () => {
    const root = project();
    const s = spec(root, { agentPid: process.pid });
    for (let i = 0; i < 5; i += 1) recordEvents(s, [event("user_prompt", `p${i}`)]);
    const [listed] = listSessions(root);
    const inspected = inspectSession(listed!);
    expect(listed?.manifest.event_count).toBe(5);
    expect(listed?.manifest.byte_count).toBe(inspected.byte_count);
  });
});
