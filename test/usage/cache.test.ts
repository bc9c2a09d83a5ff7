import {
  appendFileSync,
  closeSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cachePath } from "../../src/usage/cache.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { claudeUsage, recordUsage, report } from "./sessions.ts";

const project = useTempProjects("tapedeck-usage-cache-");

function usageLine(seq: number, at: string, input: number, id: string): string {
  return `${JSON.stringify({
    schema_version: 1,
    sequence: seq,
    event_id: `usage-${id}`,
    timestamp: at,
    kind: "turn_usage",
    provider: "claude",
    session_id: "claude:a",
    payload: {},
    redactions: [],
    truncations: [],
    omitted: [],
    usage: { source: "claude-transcript", model: "claude-sonnet-4", message_id: id, input_tokens: input },
  })}\n`;
}

function threeSessions(p: string): string[] {
  return ["a", "b", "c"].map((id, i) =>
    recordUsage(p, "claude", id, `2026-12-0${i + 1}T10:00:00.000Z`, [
      { at: `2026-12-0${i + 1}T10:01:00.000Z`, usage: claudeUsage("claude-sonnet-4", 100 * (i + 1), 10) },
    ]),
  );
}

describe("usage cache", () => {
  it("reads no events.jsonl that did not change since the last report", () => {
    const p = project();
    const [a] = threeSessions(p);
    const events = join(a!, "events.jsonl");
    // A whole second: utimes keeps no finer time on every filesystem.
    const mtime = new Date("2026-12-01T12:00:00.000Z");
    utimesSync(events, mtime, mtime);
    const first = report([p], { kind: "daily" });
    expect(first.stats).toMatchObject({ sessions: 3, unchanged: 0, folded: 3, written: true });
    expect(statSync(cachePath(p)).mode & 0o777).toBe(0o600);
    // Same inode, size and mtime, other bytes: a report that opened the file would see 9xx tokens.
    const text = readFileSync(events, "utf8").replace('"input_tokens":100', '"input_tokens":900');
    const fd = openSync(events, "r+");
    writeSync(fd, text, 0);
    closeSync(fd);
    utimesSync(events, mtime, mtime);
    const second = report([p], { kind: "daily" });
    expect(second.stats).toMatchObject({
      sessions: 3,
      unchanged: 3,
      folded: 0,
      bytes_read: 0,
      written: false,
    });
    expect(second.rows.map((r) => r.input_tokens)).toEqual([100, 200, 300]);
  });

  it("folds only the lines a grown session gained, and a changed one from its start", () => {
    const p = project();
    const [a] = threeSessions(p);
    report([p], { kind: "daily" });
    const events = join(a!, "events.jsonl");
    const line = usageLine(99, "2026-12-01T10:30:00.000Z", 7, "msg_new");
    appendFileSync(events, line);
    const grown = report([p], { kind: "daily" });
    expect(grown.stats).toMatchObject({ unchanged: 2, folded: 1, bytes_read: Buffer.byteLength(line) });
    expect(grown.rows[0]!.input_tokens).toBe(107);
    // The same id again, appended later: counted once across the two folds.
    appendFileSync(events, usageLine(100, "2026-12-01T10:31:00.000Z", 7, "msg_new"));
    expect(report([p], { kind: "daily" }).rows[0]!.input_tokens).toBe(107);
    // Rewritten under the same name (a restored backup, repair dropping a line): read again from byte 0.
    writeFileSync(events, usageLine(1, "2026-12-01T11:00:00.000Z", 5, "m"));
    const changed = report([p], { kind: "daily" });
    expect(changed.stats.folded).toBe(1);
    expect(changed.rows[0]!.input_tokens).toBe(5);
  });

  it("reads a line still being written once it is whole", () => {
    const p = project();
    const [a] = threeSessions(p);
    const events = join(a!, "events.jsonl");
    const line = usageLine(99, "2026-12-01T10:30:00.000Z", 7, "msg_torn");
    appendFileSync(events, line.slice(0, 40));
    expect(report([p], { kind: "daily" }).rows[0]!.input_tokens).toBe(100);
    appendFileSync(events, line.slice(40));
    expect(report([p], { kind: "daily" }).rows[0]!.input_tokens).toBe(107);
  });

  it("drops a session that is gone, and survives a damaged or planted cache", () => {
    const p = project();
    const [a] = threeSessions(p);
    report([p], { kind: "daily" });
    rmSync(a!, { recursive: true });
    expect(report([p], { kind: "daily" }).rows.map((r) => r.date)).toEqual(["2026-12-02", "2026-12-03"]);
    const expected = report([p], { kind: "session" }).rows;
    const cache = JSON.parse(readFileSync(cachePath(p), "utf8"));
    const rows = cache.sessions as unknown[][];
    expect(rows).toHaveLength(2);
    // A cell naming a model that is not there, a count that is not one, ids that are not text.
    const cells = rows[0]!.findIndex((v) => Array.isArray(v) && v.length > 0 && typeof v[0] === "number");
    rows[0]![cells] = [0, 7, 1, 1, 1, 1, 1, 0];
    rows[1]![cells] = [0, 0, "1e99", 0, 0, 0, 0, 0];
    writeFileSync(cachePath(p), JSON.stringify(cache));
    expect(report([p], { kind: "session" }).rows).toEqual(expected);
    // Each damaged row was folded again; the rewritten cache is well formed.
    expect(report([p], { kind: "session" }).stats).toMatchObject({ unchanged: 2, folded: 0 });
    // Well formed but of another file (a cache copied from elsewhere: its inodes are not these), and cut short.
    rows[0]![cells] = [0, 0, 5, 5, 5, 5, 5, 0];
    rows[0]![1] = "1:2";
    rows[1] = [rows[1]![0], 42];
    writeFileSync(cachePath(p), JSON.stringify(cache));
    expect(report([p], { kind: "session" }).rows).toEqual(expected);
    for (const garbage of ["not json", "[]", '{"version":1,"slot_ms":900000,"sessions":[]}', "{}"]) {
      writeFileSync(cachePath(p), garbage);
      expect(report([p], { kind: "session" }).rows).toEqual(expected);
    }
  });
});
