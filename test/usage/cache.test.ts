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
    const damage = (change: (c: CacheParts) => void) => {
      const c = readCache(p);
      change(c);
      writeCache(p, c);
      expect(report([p], { kind: "session" }).rows).toEqual(expected);
    };
    expect(readCache(p).hot.sessions).toHaveLength(2);
    // A cell naming a model that is not there.
    damage((c) => {
      c.data[rawAt(c, 0) + 1] = 7;
    });
    // Each damaged row was folded again; the rewritten cache is well formed.
    expect(report([p], { kind: "session" }).stats).toMatchObject({ unchanged: 2, folded: 0 });
    // A count that is not one, raw or normalized.
    damage((c) => {
      c.data[rawAt(c, 1) + 4] = 1e99;
    });
    damage((c) => {
      c.data[(c.hot.sessions[0]![13] as number) + 3] = -1;
    });
    // A range past the cells, a name index past the names.
    damage((c) => {
      c.hot.sessions[0]![11] = c.data.length;
    });
    damage((c) => {
      c.hot.sessions[1]![6] = 99;
    });
    // A model list naming an index past the names, a version list that is no list, a source index not a count.
    damage((c) => {
      c.hot.sessions[0]![8] = [0, 99];
      c.hot.sessions[1]![9] = "0";
    });
    damage((c) => {
      c.hot.sessions[0]![10] = [0.5];
    });
    // Well formed but of another file (a cache copied from elsewhere: its inodes are not these), and cut short.
    damage((c) => {
      c.data[rawAt(c, 0) + 4] = 5;
      c.hot.sessions[0]![3] = 1;
      c.hot.sessions[1] = [c.hot.sessions[1]![0], 42];
    });
    // The ids and titles damaged, the cells good: the session report names the sessions from their manifests.
    damage((c) => {
      c.cold = [["x"], 5];
    });
    const whole = readFileSync(cachePath(p));
    for (const garbage of [
      "not json",
      "[]",
      '{"version":1,"slot_ms":900000,"sessions":[]}',
      whole.subarray(0, whole.length - 4),
      whole.subarray(0, 20),
    ]) {
      writeFileSync(cachePath(p), garbage);
      expect(report([p], { kind: "session" }).rows).toEqual(expected);
    }
  });
});

interface CacheParts {
  magic: Buffer;
  hot: { sessions: unknown[][] } & Record<string, unknown>;
  cold: unknown;
  data: Float64Array;
}

/** The cache's parts as cache.ts lays them out: magic, two lengths, two JSON parts, padding, float64s. */
function readCache(p: string): CacheParts {
  const buf = readFileSync(cachePath(p));
  const hotLen = buf.readUInt32LE(8);
  const coldLen = buf.readUInt32LE(12);
  const hotEnd = 16 + hotLen;
  const dataAt = Math.ceil((hotEnd + coldLen) / 8) * 8;
  return {
    magic: buf.subarray(0, 8),
    hot: JSON.parse(buf.toString("utf8", 16, hotEnd)),
    cold: JSON.parse(buf.toString("utf8", hotEnd, hotEnd + coldLen)),
    data: new Float64Array(buf.buffer.slice(buf.byteOffset + dataAt, buf.byteOffset + buf.length)),
  };
}

function writeCache(p: string, c: CacheParts): void {
  const hot = Buffer.from(JSON.stringify(c.hot));
  const cold = Buffer.from(JSON.stringify(c.cold));
  const lengths = Buffer.alloc(8);
  lengths.writeUInt32LE(hot.length, 0);
  lengths.writeUInt32LE(cold.length, 4);
  const used = 16 + hot.length + cold.length;
  const pad = Buffer.alloc(Math.ceil(used / 8) * 8 - used);
  writeFileSync(cachePath(p), Buffer.concat([c.magic, lengths, hot, cold, pad, Buffer.from(c.data.buffer)]));
}

/** Where a row's cells as recorded start in the float64s. */
function rawAt(c: CacheParts, row: number): number {
  return c.hot.sessions[row]![11] as number;
}
