import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recoverSession } from "../../src/core/archive/recovery.ts";
import { RecoveryReport } from "../../src/core/archive/schemas.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { findSession, inspectSession, listSessions } from "../../src/core/read/sessions.ts";
import { event, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isFile()) out[name] = `${statSync(p).mtimeMs}:${readFileSync(p, "base64")}`;
  }
  return out;
}

describe("recovery", () => {
  it("preserves and reports a malformed middle line, keeps every valid event", () => {
    const root = project();
    const s = spec(root);
    const out = recordEvents(s, [event("session_start", "a"), event("user_prompt", "b")]);
    appendFileSync(join(out.sessionDir, "events.jsonl"), "this is not json\n");
    recordEvents(s, [event("tool_call", "c")]);
    const before = readFileSync(join(out.sessionDir, "events.jsonl"), "utf8");
    const result = recoverSession(out.sessionDir, { write: true });
    const report = RecoveryReport.parse(
      JSON.parse(readFileSync(join(out.sessionDir, "recovery.json"), "utf8")),
    );
    expect(report.malformed_lines).toEqual([
      { line: 3, offset: expect.any(Number), bytes: 16, reason: "not a JSON event envelope" },
    ]);
    expect(result.report.valid_events).toBe(3);
    expect(readFileSync(join(out.sessionDir, "events.jsonl"), "utf8")).toBe(before);
  });

  it("reports duplicate and out-of-order sequences without rewriting", () => {
    const root = project();
    const out = recordEvents(spec(root), [event("session_start", "a"), event("user_prompt", "b")]);
    const file = join(out.sessionDir, "events.jsonl");
    const [first] = readFileSync(file, "utf8").split("\n");
    const e = JSON.parse(first!);
    appendFileSync(file, `${JSON.stringify({ ...e, event_id: "x", sequence: 2 })}\n`);
    appendFileSync(file, `${JSON.stringify({ ...e, event_id: "y", sequence: 1 })}\n`);
    const before = readFileSync(file);
    const { report } = recoverSession(out.sessionDir, { write: true });
    expect(report.duplicate_sequences.map((d) => d.line)).toEqual([3, 4]);
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("marks an active session incomplete when its agent process is gone", () => {
    const root = project();
    const out = recordEvents(spec(root, { agentPid: 2147483646 }), [event("session_start", "a")]);
    const listed = listSessions(root);
    expect(listed[0]?.manifest.status).toBe("incomplete");
    const result = recoverSession(out.sessionDir, { write: true });
    expect(result.report.marked_incomplete).toMatch(/agent process 2147483646 ended/);
    const manifest = JSON.parse(readFileSync(join(out.sessionDir, "manifest.json"), "utf8"));
    expect(manifest.status).toBe("incomplete");
  });

  it("marks a session incomplete when idle past the threshold", () => {
    const root = project();
    const out = recordEvents(spec(root, { agentPid: process.pid }), [event("session_start", "a")]);
    const later = Date.now() + 7 * 60 * 60 * 1000;
    const result = recoverSession(out.sessionDir, { write: true, now: later });
    expect(result.report.marked_incomplete).toMatch(/no event for/);
  });

  it("inspection never writes to an active session, even one with a torn tail", () => {
    const root = project();
    const out = recordEvents(spec(root, { agentPid: process.pid }), [event("session_start", "a")]);
    appendFileSync(join(out.sessionDir, "events.jsonl"), '{"half":');
    const before = snapshot(out.sessionDir);
    const summary = inspectSession(findSession(root, "sess-1"));
    expect(summary.status).toBe("active");
    expect(summary.torn_line).toEqual({ present: true, removed: false, bytes: 8 });
    expect(snapshot(out.sessionDir)).toEqual(before);
  });

  it("rebuilds counters and the id table after a lost state file", () => {
    const root = project();
    const s = spec(root);
    const out = recordEvents(s, [event("session_start", "a"), event("user_prompt", "b")]);
    writeFileSync(join(out.sessionDir, "state.json"), "garbage");
    const again = recordEvents(s, [event("user_prompt", "b"), event("tool_call", "c")]);
    expect(again.duplicates).toBe(1);
    const seqs = readFileSync(join(out.sessionDir, "events.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).sequence);
    expect(seqs).toEqual([1, 2, 3]);
  });
});
