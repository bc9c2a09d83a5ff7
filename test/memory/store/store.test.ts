import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CliError, EXIT } from "../../../src/cli/cli-error.ts";
import { QueryError } from "../../../src/memory/index/query.ts";
import { MemoryDbError, openDatabase } from "../../../src/memory/index/sqlite.ts";
import { originKey, originMac } from "../../../src/memory/store/origin.ts";
import { memoryPath, openMemory, RANK_CAP } from "../../../src/memory/store/store.ts";
import { linkedMemory, openStore, storedItem } from "../../helpers/memory-item.ts";
import { useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-memstore-");

/** The layout tapedeck's first memory format wrote, as it wrote it. */
const FORMAT_1 = `
CREATE TABLE IF NOT EXISTS items (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  schema_version INTEGER NOT NULL,
  kind TEXT NOT NULL,
  title TEXT NOT NULL,
  body TEXT NOT NULL,
  truncated INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  provider TEXT NOT NULL,
  session_id TEXT NOT NULL,
  agent_id TEXT,
  seq_from INTEGER NOT NULL,
  seq_to INTEGER NOT NULL,
  event_ids TEXT NOT NULL,
  envelope_schema_version INTEGER NOT NULL,
  archive_sha256 TEXT NOT NULL,
  archive_bytes INTEGER NOT NULL,
  -- The identifiers, paths and flags of title and body: all the trigram table holds.
  idents TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS items_by_session ON items(session_id, seq_from);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
  title, body, content='items', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS items_trigram USING fts5(
  idents, content='items', content_rowid='rowid', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS items_ai AFTER INSERT ON items BEGIN
  INSERT INTO items_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
  INSERT INTO items_trigram(rowid, idents) VALUES (new.rowid, new.idents);
END;
CREATE TRIGGER IF NOT EXISTS items_ad AFTER DELETE ON items BEGIN
  INSERT INTO items_fts(items_fts, rowid, title, body) VALUES ('delete', old.rowid, old.title, old.body);
  INSERT INTO items_trigram(items_trigram, rowid, idents) VALUES ('delete', old.rowid, old.idents);
END;
-- A forgotten item's terms leave the index at once, not at some later segment merge (FTS5 secure-delete).
INSERT INTO items_fts(items_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO items_trigram(items_trigram, rank) VALUES ('secure-delete', 1);
-- Items are immutable: an edit would silently rewrite what the user promoted.
CREATE TRIGGER IF NOT EXISTS items_bu BEFORE UPDATE ON items BEGIN
  SELECT RAISE(ABORT, 'memory items are immutable');
END;
CREATE TABLE IF NOT EXISTS origin (nonce TEXT NOT NULL, mac TEXT NOT NULL);
`;

const store = openStore;

describe("memory store", () => {
  it("read-only with nothing promoted: no store, and no file is created", () => {
    const root = project();
    expect(openMemory(root, { readonly: true })).toBeUndefined();
    expect(existsSync(join(root, ".tapedeck"))).toBe(false);
  });

  it("creates memory.sqlite 0600 in a 0700 .tapedeck, with its format in user_version", () => {
    const root = project();
    store(root).close();
    expect(statSync(memoryPath(root)).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, ".tapedeck")).mode & 0o777).toBe(0o700);
    const db = openDatabase(memoryPath(root), { readonly: true });
    expect(db.pragma("user_version", { simple: true })).toBe(3);
    db.close();
  });

  it("inserts once: the same ids again are reported existing and add no row", () => {
    const s = store(project());
    expect(s.insert([storedItem("m1-a"), storedItem("m1-b")])).toEqual({
      created: ["m1-a", "m1-b"],
      existing: [],
    });
    expect(s.insert([storedItem("m1-b", { body: "changed" }), storedItem("m1-c")])).toEqual({
      created: ["m1-c"],
      existing: ["m1-b"],
    });
    expect(s.count()).toBe(3);
    expect(s.get(["m1-b"])[0]?.body).toBe("body of m1-b");
    s.close();
  });

  it("gets items in the order asked, with their source, leaving unknown ids out", () => {
    const s = store(project());
    const a = storedItem(
      "m1-a",
      { kind: "tool_call", truncated: true },
      { agent_id: "sub-1", event_ids: ["x", "y"] },
    );
    s.insert([a, storedItem("m1-b")]);
    const got = s.get(["m1-b", "nope", "m1-a"]);
    expect(got.map((i) => i.id)).toEqual(["m1-b", "m1-a"]);
    expect(got[1]).toEqual(a);
    s.close();
  });

  it("ranks word matches with bm25 (title first) and finds identifiers through the trigram table", () => {
    const s = store(project());
    s.insert([
      storedItem("m1-a", { title: "deploy notes", body: "the widget goes out on fridays" }),
      storedItem("m1-b", { title: "other", body: "we deploy from src/core/store.ts with snake_case_name" }),
      storedItem("m1-c", { title: "unrelated", body: "nothing here" }),
    ]);
    const words = s.search("deploy", { limit: 10 });
    expect(words.map((h) => h.id)).toEqual(["m1-a", "m1-b"]);
    expect(words[0]!.score).toBeGreaterThan(words[1]!.score);
    expect(words[0]!.snippet).toContain("«deploy»");
    // A piece of an identifier is no word of its own: only the trigram table has it.
    const sub = s.search("ore.t", { limit: 10 });
    expect(sub.map((h) => h.id)).toEqual(["m1-b"]);
    expect(sub[0]!.snippet).toContain("«ore.t»");
    expect(s.search("case_na", { limit: 10 }).map((h) => h.id)).toEqual(["m1-b"]);
    expect(s.search("zzzz", { limit: 10 })).toEqual([]);
    s.close();
  });

  it("filters by kind (event or item kind names), provider and session (archive id, provider id, prefix)", () => {
    const s = store(project());
    s.insert([
      storedItem("m1-a", { kind: "tool_call", body: "shared word" }),
      storedItem(
        "m1-b",
        { kind: "answer", body: "shared word" },
        { provider: "codex", session_id: "codex:zz-9" },
      ),
    ]);
    const ids = (q: string) => s.search(q, { limit: 10 }).map((h) => h.id);
    expect(ids("shared kind:tool_result")).toEqual(["m1-a"]);
    expect(ids("shared kind:assistant_message")).toEqual(["m1-b"]);
    expect(ids("shared kind:session_start")).toEqual([]);
    expect(ids("shared provider:codex")).toEqual(["m1-b"]);
    expect(ids("shared session:abc-123")).toEqual(["m1-a"]);
    expect(ids("shared session:claude:abc")).toEqual(["m1-a"]);
    expect(ids("shared session:zz")).toEqual(["m1-b"]);
    expect(ids("session:zz-9")).toEqual(["m1-b"]);
    // LIKE's wildcards in a session filter are literal.
    expect(ids("shared session:%")).toEqual([]);
    s.close();
  });

  it("treats FTS5 syntax in a query as text, and refuses a 100 KB query with a usage error", () => {
    const s = store(project());
    s.insert([storedItem("m1-a", { body: 'a "quoted" NEAR(x) body' })]);
    expect(s.search('NEAR(x) "quoted"', { limit: 5 }).map((h) => h.id)).toEqual(["m1-a"]);
    const huge = "word ".repeat(20_000);
    let error: unknown;
    try {
      s.search(huge, { limit: 5 });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(QueryError);
    expect((error as CliError).exitCode).toBe(EXIT.usage);
    s.close();
  });

  it("lists newest first, by session and kind, and iterates every item oldest first", () => {
    const s = store(project());
    s.insert([
      storedItem("m1-a"),
      storedItem("m1-b", { kind: "answer" }),
      storedItem("m1-c", {}, { session_id: "gemini:q" }),
    ]);
    expect(s.list().map((i) => i.id)).toEqual(["m1-c", "m1-b", "m1-a"]);
    expect(s.list({ session: "abc" }).map((i) => i.id)).toEqual(["m1-b", "m1-a"]);
    expect(s.list({ kind: "answer" }).map((i) => i.id)).toEqual(["m1-b"]);
    expect(s.list({ limit: 1, offset: 1 }).map((i) => i.id)).toEqual(["m1-b"]);
    expect([...s.iterate()].map((i) => i.id)).toEqual(["m1-a", "m1-b", "m1-c"]);
    s.close();
  });

  it("forgets an item and its text leaves the file (index and free pages too)", () => {
    const root = project();
    const s = store(root);
    s.insert([storedItem("m1-a", { body: "xylophonequartz lives here" }), storedItem("m1-b")]);
    s.close();
    const again = store(root);
    expect(again.forget("m1-a")).toBe(true);
    expect(again.forget("m1-a")).toBe(false);
    expect(again.search("xylophonequartz", { limit: 5 })).toEqual([]);
    expect(again.count()).toBe(1);
    again.close();
    const bytes = readFileSync(memoryPath(root));
    expect(bytes.includes(Buffer.from("xylophonequartz"))).toBe(false);
  });

  it("refuses an item over the 4 KiB bound or of an unknown kind", () => {
    const s = store(project());
    expect(() => s.insert([storedItem("m1-a", { body: "x".repeat(4097) })])).toThrow(/4 KiB/);
    expect(() => s.insert([storedItem("m1-b", { kind: "secret" as never })])).toThrow(/unknown kind/);
    expect(s.count()).toBe(0);
    s.close();
  });

  it("a corrupt memory.sqlite is a clear error naming the file, and is never deleted or changed", () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"), { mode: 0o700 });
    const garbage = Buffer.alloc(8192, 0x5a);
    writeFileSync(memoryPath(root), garbage, { mode: 0o600 });
    for (const readonly of [false, true]) {
      const error = openError(root, readonly);
      expect(error).toBeInstanceOf(MemoryDbError);
      expect((error as Error).message).toContain(memoryPath(root));
      expect((error as Error).message).toMatch(/never deletes/);
      expect((error as Error).message).not.toMatch(/at .*\.js/);
    }
    expect(readFileSync(memoryPath(root)).equals(garbage)).toBe(true);
  });

  it("refuses a symlinked memory.sqlite without touching its target", () => {
    const root = project();
    const target = linkedMemory(root, "elsewhere.db", "keep me");
    expect(() => openMemory(root)).toThrow(/symlink/);
    expect(() => openMemory(root, { readonly: true })).toThrow(/symlink/);
    expect(readFileSync(target, "utf8")).toBe("keep me");
    expect(lstatSync(memoryPath(root)).isSymbolicLink()).toBe(true);
  });

  it("refuses a file from a newer tapedeck instead of guessing its layout", () => {
    const root = project();
    store(root).close();
    const db = openDatabase(memoryPath(root));
    db.pragma("user_version = 99");
    db.close();
    expect(() => openMemory(root)).toThrow(/newer tapedeck/);
  });

  it("a symlinked .tapedeck is refused as the memory file's problem, and nothing is written through it", () => {
    const root = project();
    const other = join(root, "other");
    mkdirSync(other);
    symlinkSync(other, join(root, ".tapedeck"));
    for (const readonly of [false, true]) {
      const error = openError(root, readonly);
      expect(error).toBeInstanceOf(MemoryDbError);
      expect((error as Error).message).toContain("memory.sqlite");
    }
    expect(existsSync(join(other, "memory.sqlite"))).toBe(false);
  });

  it("refuses an SQLite file it did not create instead of laying its tables over it", () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"), { mode: 0o700 });
    const db = openDatabase(memoryPath(root));
    db.exec("CREATE TABLE items (x TEXT); INSERT INTO items VALUES ('theirs')");
    db.close();
    expect(() => openMemory(root)).toThrow(/did not create/);
    expect(() => openMemory(root, { readonly: true })).toThrow(/did not create/);
    const again = openDatabase(memoryPath(root), { readonly: true });
    expect(again.prepare("SELECT x FROM items").all()).toEqual([{ x: "theirs" }]);
    again.close();
  });

  it("loads neither the item builder nor the redaction rules: retrieval opens it on the prompt hook", async () => {
    const { build } = await import("esbuild");
    const out = await build({
      entryPoints: ["src/memory/store/store.ts"],
      bundle: true,
      write: false,
      metafile: true,
      platform: "node",
      format: "esm",
      packages: "external",
      logLevel: "silent",
    });
    const inputs = Object.keys(out.metafile.inputs);
    expect(inputs).toContain("src/memory/store/store.ts");
    expect(
      inputs.filter((f) => f.startsWith("packages/redact/") || f === "src/memory/store/items.ts"),
    ).toEqual([]);
    // The package is left external by `packages: "external"`: its import would show as one.
    const imported = Object.values(out.metafile.inputs).flatMap((i) => i.imports.map((m) => m.path));
    expect(imported.filter((p) => p.startsWith("@tapedeck/redact"))).toEqual([]);
  });

  it("ranks a very common word among its 20,000 newest matches; filters apply before that cap", () => {
    const s = store(project());
    // The oldest item is the best match by far, then RANK_CAP newer ones that also match.
    const items = [
      storedItem("m1-old", { kind: "answer", title: "common common common", body: "common common" }),
    ];
    for (let i = 0; i < RANK_CAP; i += 1)
      items.push(storedItem(`m1-n${i}`, { body: `common word number ${i}` }));
    for (let i = 0; i < items.length; i += 5000) s.insert(items.slice(i, i + 5000));
    const hits = s.search("common", { limit: 5 });
    expect(hits).toHaveLength(5);
    expect(hits.map((h) => h.id)).not.toContain("m1-old");
    expect(s.search("common kind:assistant_message", { limit: 5 }).map((h) => h.id)).toEqual(["m1-old"]);
    s.close();
  });

  it("a memory file with a trigger or view tapedeck did not create is refused by every command, before it runs", () => {
    const root = project();
    const s = store(root);
    s.insert([storedItem("m1-a")]);
    s.close();
    const db = openDatabase(memoryPath(root), { base: root });
    // A planted file's trigger would run on every promoted item.
    db.exec(
      "CREATE TABLE copied (b TEXT); CREATE TRIGGER planted AFTER INSERT ON items BEGIN INSERT INTO copied VALUES (new.body); END;",
    );
    db.close();
    for (const readonly of [true, false]) {
      expect(() => openMemory(root, { readonly })).toThrow(/tapedeck did not create/);
    }
  });

  it("edits an item's title and text in place: id, kind and source kept, the index follows, the old text leaves the file", () => {
    const root = project();
    const s = store(root);
    const a = storedItem(
      "m1-a",
      { title: "deploy notes", body: "the widget ships on tuesdays" },
      { event_ids: ["x", "y"] },
    );
    s.insert([a]);
    const after = s.edit("m1-a", {
      title: "release notes",
      body: "the gadget ships on fridays",
      truncated: false,
      editedAt: "2026-02-02T00:00:00.000Z",
    })!;
    expect(after).toEqual({
      ...a,
      title: "release notes",
      body: "the gadget ships on fridays",
      edited_at: "2026-02-02T00:00:00.000Z",
    });
    expect(s.search("tuesdays", { limit: 5 })).toEqual([]);
    expect(s.search("gadget", { limit: 5 }).map((h) => h.id)).toEqual(["m1-a"]);
    expect(s.edit("m1-nope", { title: "t", body: "b", truncated: false, editedAt: "x" })).toBeUndefined();
    expect(() =>
      s.edit("m1-a", { title: "t", body: "x".repeat(5000), truncated: false, editedAt: "x" }),
    ).toThrow(/4 KiB/);
    s.close();
    expect(readFileSync(memoryPath(root)).includes("tuesdays")).toBe(false);
    // Where an item came from never changes, whatever a caller sends.
    const db = openDatabase(memoryPath(root), { base: root });
    expect(() => db.prepare("UPDATE items SET session_id = 'claude:other' WHERE id = 'm1-a'").run()).toThrow(
      /source is immutable/,
    );
    db.close();
  });

  it("matches words by stem: 'rotated' finds 'rotates', 'deploying' finds 'deploy'", () => {
    const s = store(project());
    s.insert([
      storedItem("m1-a", { body: "the staging key rotates every friday" }),
      storedItem("m1-b", { body: "we deploy at noon" }),
    ]);
    expect(s.search("rotated", { limit: 5 }).map((h) => h.id)).toEqual(["m1-a"]);
    expect(s.search("deploying", { limit: 5 }).map((h) => h.id)).toEqual(["m1-b"]);
    s.close();
  });

  it("a format-1 file is read as it is, and upgraded by the first writer with its items, proof and search intact", () => {
    const root = project();
    mkdirSync(join(root, ".tapedeck"), { mode: 0o700 });
    // Laid out as tapedeck 1 did: format 1, unstemmed words, immutable rows, the origin proof (of kind 1).
    store(root).close();
    const nonce = { nonce: "cd".repeat(16), mac: originMac(originKey(true)!, "cd".repeat(16)) };
    const fresh = join(root, "v1.sqlite");
    const v1 = openDatabase(fresh);
    v1.exec(FORMAT_1);
    v1.prepare("INSERT INTO origin (nonce, mac) VALUES (?, ?)").run(nonce.nonce, nonce.mac);
    v1.prepare(
      "INSERT INTO items (id, schema_version, kind, title, body, truncated, created_at, provider, session_id, " +
        "agent_id, seq_from, seq_to, event_ids, envelope_schema_version, archive_sha256, archive_bytes, idents) " +
        "VALUES ('m1-old', 1, 'answer', 'old title', 'the key rotates weekly', 0, '2025-01-01T00:00:00.000Z', " +
        "'claude', 'claude:s', NULL, 1, 1, '[\"e\"]', 1, ?, 10, '')",
    ).run("0".repeat(64));
    v1.pragma("user_version = 1");
    v1.close();
    for (const side of ["-wal", "-shm"]) rmSync(`${memoryPath(root)}${side}`, { force: true });
    renameSync(fresh, memoryPath(root));
    const reader = openMemory(root, { readonly: true })!;
    expect(reader.format).toBe(1);
    expect(reader.isOwn()).toBe(true);
    expect(reader.get(["m1-old"])[0]).toMatchObject({ title: "old title", label: null, edited_at: null });
    // Unstemmed until upgraded.
    expect(reader.search("rotated", { limit: 5 })).toEqual([]);
    reader.close();
    const writer = store(root);
    expect(writer.format).toBe(3);
    expect(writer.isOwn()).toBe(true);
    expect(writer.search("rotated", { limit: 5 }).map((h) => h.id)).toEqual(["m1-old"]);
    // Its origin held: its items are proven as they stood.
    expect(writer.get(["m1-old"]).map((i) => writer.proofOf(i))).toEqual(["proven"]);
    writer.close();
  });

  it("a file laid out before origin proofs is still listed, but is not the user's to hand to the agent", () => {
    const root = project();
    const s = store(root);
    s.insert([storedItem("m1-a")]);
    expect(s.isOwn()).toBe(true);
    s.close();
    const db = openDatabase(memoryPath(root), { base: root });
    db.exec("DROP TABLE origin");
    db.close();
    const old = openMemory(root, { readonly: true })!;
    expect(old.list().map((i) => i.id)).toEqual(["m1-a"]);
    expect(old.isOwn()).toBe(false);
    old.close();
  });
});

/** What opening the project's memory (for writing or read-only) throws; undefined when it opens. */
function openError(root: string, readonly: boolean): unknown {
  try {
    openMemory(root, { readonly });
  } catch (e) {
    return e;
  }
  return undefined;
}
