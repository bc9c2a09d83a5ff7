import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordEvents } from "../../../src/core/archive/session-store.ts";
import {
  INDEX_SCHEMA_VERSION,
  indexPath,
  indexStatus,
  MAX_LINE_BYTES,
  openIndex,
  updateIndex,
} from "../../../src/memory/index/index.ts";
import { parseQuery } from "../../../src/memory/index/query.ts";
import { searchProject } from "../../../src/memory/index/search.ts";
import { MemoryDbError } from "../../../src/memory/index/sqlite.ts";
import { event, identity, spec, useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-index-");

function record(root: string, id: string, events: Parameters<typeof recordEvents>[1]) {
  return recordEvents(spec(root, { identity: identity(id) }), events);
}

function hits(root: string, text: string) {
  return searchProject(root, parseQuery(text), {}, 50).hits;
}

function eventsFile(root: string, id: string): string {
  return join(root, ".tapedeck", "claude-sessions", id, "events.jsonl");
}

describe("the events index", () => {
  it("indexes prompts, answers and tools, 0600, and finds them ranked", () => {
    const root = project();
    record(root, "s1", [
      event("session_start", "a"),
      event("user_prompt", "b", { prompt: "why is the flaky recorder test failing" }),
      event("assistant_message", "c", { text: "The recorder test races the lock; flaky flaky flaky." }),
      event("tool_call", "d", { tool_name: "Bash", tool_input: { command: "npm run build -- --dry-run" } }),
      event("tool_result", "e", {
        tool_name: "Read",
        tool_input: { file_path: "src/core/store.ts" },
        tool_response: "export function recordEvents",
      }),
    ]);
    const r = updateIndex(root);
    expect(r.events).toBe(5);
    expect(statSync(indexPath(root)).mode & 0o777).toBe(0o600);
    const flaky = hits(root, "flaky");
    expect(flaky.map((h) => h.kind)).toEqual(["assistant_message", "user_prompt"]);
    expect(flaky[0]!.snippet).toContain("\ue000flaky\ue001");
    expect(flaky[0]).toMatchObject({ provider: "claude", provider_session_id: "s1", sequence: 3 });
    expect(hits(root, "--dry-run").map((h) => h.kind)).toEqual(["tool_call"]);
    expect(hits(root, "core/sto").map((h) => h.kind)).toEqual(["tool_result"]);
    expect(hits(root, "recordEvents").map((h) => h.kind)).toEqual(["tool_result"]);
    expect(hits(root, "kind:user_prompt").map((h) => h.sequence)).toEqual([2]);
    // unicode61 keeps a Chinese clause as one token: a word inside it is found through the trigram table.
    record(root, "s2", [event("user_prompt", "z", { prompt: "请修复记录器的测试" })]);
    updateIndex(root);
    expect(hits(root, "记录器").map((h) => [h.provider_session_id, h.via])).toEqual([["s2", "trigram"]]);
  });

  it("indexes only the new lines of a grown session", () => {
    const root = project();
    record(root, "s1", [event("user_prompt", "a", { prompt: "first alpha" })]);
    expect(updateIndex(root).events).toBe(1);
    record(root, "s1", [event("user_prompt", "b", { prompt: "second beta" })]);
    const size = statSync(eventsFile(root, "s1")).size;
    const before = readFileSync(eventsFile(root, "s1")).indexOf("second beta");
    const r = updateIndex(root);
    expect(r).toMatchObject({ events: 1, reindexed: 0 });
    // Only the bytes past the first update were read.
    expect(r.bytes).toBeLessThan(size);
    expect(r.bytes).toBeGreaterThan(size - before);
    expect(updateIndex(root)).toMatchObject({ events: 0, bytes: 0 });
    expect(hits(root, "alpha OR beta")).toHaveLength(2);
  });

  it("reports progress batch by batch, up to every byte to index", () => {
    const root = project();
    record(
      root,
      "s1",
      Array.from({ length: 4500 }, (_, i) => event("user_prompt", `p${i}`, { prompt: `prompt ${i}` })),
    );
    const seen: Array<{ bytesDone: number; bytesTotal: number }> = [];
    updateIndex(root, { onProgress: (p) => seen.push({ ...p }) });
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen.at(-1)!.bytesDone).toBe(statSync(eventsFile(root, "s1")).size);
    expect(seen.at(-1)!.bytesTotal).toBe(seen.at(-1)!.bytesDone);
    expect(seen.map((p) => p.bytesDone)).toEqual([...seen.map((p) => p.bytesDone)].sort((a, b) => a - b));
  });

  it("notices a truncated or rewritten session and indexes it again from byte 0", () => {
    const root = project();
    record(root, "s1", [
      event("user_prompt", "a", { prompt: "keep this" }),
      event("user_prompt", "b", { prompt: "dropped later" }),
    ]);
    updateIndex(root);
    const file = eventsFile(root, "s1");
    const lines = readFileSync(file, "utf8").split("\n");
    // Truncated to the first line: shorter than the indexed offset.
    truncateSync(file, Buffer.byteLength(`${lines[0]}\n`));
    const notices: string[] = [];
    expect(updateIndex(root, { onNotice: (t) => notices.push(t) })).toMatchObject({
      reindexed: 1,
      events: 1,
    });
    expect(notices.join()).toContain("indexing it again");
    expect(hits(root, "dropped")).toHaveLength(0);
    // Same length, other bytes at the boundary: the hash of the last indexed line differs.
    const text = readFileSync(file, "utf8").replace("keep this", "kept that");
    writeFileSync(file, text);
    expect(updateIndex(root)).toMatchObject({ reindexed: 1 });
    expect(hits(root, "kept")).toHaveLength(1);
    expect(hits(root, "keep")).toHaveLength(0);
  });

  it("drops a deleted session from the index", () => {
    const root = project();
    record(root, "s1", [event("user_prompt", "a", { prompt: "gone soon" })]);
    record(root, "s2", [event("user_prompt", "a", { prompt: "stays here" })]);
    updateIndex(root);
    execFileSync("rm", ["-rf", join(root, ".tapedeck", "claude-sessions", "s1")]);
    expect(updateIndex(root).removed).toBe(1);
    expect(hits(root, "gone")).toHaveLength(0);
    expect(hits(root, "stays")).toHaveLength(1);
  });

  it("skips malformed and huge lines, waits for a torn final line, and indexes what follows", () => {
    const root = project();
    record(root, "s1", [event("user_prompt", "a", { prompt: "before garbage" })]);
    const file = eventsFile(root, "s1");
    appendFileSync(file, "{not json\n[1,2]\n");
    appendFileSync(file, `${"x".repeat(MAX_LINE_BYTES + 10)}\n`);
    appendFileSync(file, Buffer.from([0xff, 0xfe, 0x00, 0x0a]));
    const good = readFileSync(file, "utf8")
      .split("\n")[0]!
      .replace("before garbage", "after garbage")
      .replace('"sequence":1', '"sequence":9');
    appendFileSync(file, `${good}\n{"sequence":10,"event_id":"torn","kind":"user_prompt"`);
    const r = updateIndex(root);
    expect(r).toMatchObject({ events: 2, skipped: 4 });
    expect(
      hits(root, "garbage")
        .map((h) => h.sequence)
        .sort(),
    ).toEqual([1, 9]);
    // The torn line is not indexed until its newline arrives.
    appendFileSync(file, ',"payload":{"prompt":"torn finished"}}\n');
    expect(updateIndex(root).events).toBe(1);
    expect(hits(root, "finished")).toHaveLength(1);
  });

  it("rebuilds a corrupt index (garbage bytes) with a notice", () => {
    const root = project();
    record(root, "s1", [event("user_prompt", "a", { prompt: "survives corruption" })]);
    updateIndex(root);
    for (const s of ["-wal", "-shm"]) {
      try {
        unlinkSync(`${indexPath(root)}${s}`);
      } catch {
        // not there after a clean close
      }
    }
    writeFileSync(indexPath(root), Buffer.alloc(64 * 1024, 0xa5));
    const notices: string[] = [];
    const r = updateIndex(root, { onNotice: (t) => notices.push(t) });
    expect(r.rebuilt).toBe(true);
    expect(notices.join()).toContain("was damaged; rebuilding");
    expect(hits(root, "corruption")).toHaveLength(1);
  });

  it("rebuilds an index of another layout", () => {
    const root = project();
    record(root, "s1", [event("user_prompt", "a", { prompt: "new layout" })]);
    const { db } = openIndex(root);
    db.prepare("UPDATE meta SET value = '0' WHERE key = 'schema_version'").run();
    db.close();
    expect(updateIndex(root).rebuilt).toBe(true);
    expect(hits(root, "layout")).toHaveLength(1);
  });

  it("a planted index with tapedeck's version but a trigger of its own is rebuilt, never written through", () => {
    const root = project();
    record(root, "s1", [event("user_prompt", "a", { prompt: "first prompt" })]);
    updateIndex(root);
    // What a cloned repository's .tapedeck/index.sqlite can hold: the right version row, and a trigger that
    // runs on every event the user's tapedeck indexes into it.
    const { db } = openIndex(root);
    db.exec(
      "CREATE TABLE copied (body TEXT); CREATE TRIGGER planted AFTER INSERT ON events BEGIN INSERT INTO copied VALUES (new.body); END;",
    );
    db.close();
    record(root, "s1", [event("user_prompt", "b", { prompt: "second prompt with a secret plan" })]);
    const notices: string[] = [];
    expect(updateIndex(root, { onNotice: (n) => notices.push(n) }).rebuilt).toBe(true);
    expect(notices.join("\n")).toContain("another tapedeck version");
    const check = openIndex(root).db;
    const objects = check.prepare("SELECT name FROM sqlite_master WHERE name IN ('planted', 'copied')").all();
    check.close();
    expect(objects).toEqual([]);
    expect(hits(root, "secret plan")).toHaveLength(1);
  });

  it("status never queries a planted file whose tables are views", () => {
    const root = project();
    record(root, "s1", [event("user_prompt", "a", { prompt: "x" })]);
    const { db } = openIndex(root);
    db.exec(
      `DROP TABLE sessions; CREATE VIEW sessions AS SELECT 1 AS id, 'x' AS path, 0 AS size, 0 AS offset, '' AS boundary, '' AS inode, 999999 AS events;`,
    );
    db.close();
    const status = indexStatus(root);
    expect(status.events).toBe(0);
    expect(status.schema_version).toBeNull();
  });

  it("refuses a symlinked index or a FIFO in its place, touching neither target", () => {
    const root = project();
    record(root, "s1", [event("user_prompt", "a", { prompt: "x" })]);
    const target = join(root, "victim");
    writeFileSync(target, "precious");
    symlinkSync(target, indexPath(root));
    expect(() => updateIndex(root)).toThrow(MemoryDbError);
    expect(() => updateIndex(root)).toThrow(/symlink/);
    expect(readFileSync(target, "utf8")).toBe("precious");
    unlinkSync(indexPath(root));
    execFileSync("mkfifo", [indexPath(root)]);
    expect(() => updateIndex(root)).toThrow(/not a regular file/);
  });

  it("refuses a symlinked .tapedeck with a named error, creating nothing behind it", () => {
    const root = project();
    const elsewhere = project();
    symlinkSync(elsewhere, join(root, ".tapedeck"));
    const error = (() => {
      try {
        updateIndex(root);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(MemoryDbError);
    expect((error as MemoryDbError).message).toContain("symlink");
    expect(existsSync(join(elsewhere, "index.sqlite"))).toBe(false);
  });

  it("reports how far behind the recordings it is, without creating the index", () => {
    const root = project();
    record(root, "s1", [event("user_prompt", "a", { prompt: "status check" })]);
    const before = indexStatus(root);
    expect(before).toMatchObject({ exists: false, behind_sessions: 1 });
    expect(before.behind_bytes).toBe(statSync(eventsFile(root, "s1")).size);
    updateIndex(root);
    expect(indexStatus(root)).toMatchObject({
      exists: true,
      events: 1,
      sessions: 1,
      behind_bytes: 0,
      schema_version: INDEX_SCHEMA_VERSION,
    });
  });
});
