// A memory.sqlite whose write lock another process holds: the writer waits SQLite's busy timeout three times
// (src/memory/index/sqlite.ts, src/memory/store/store-schema.ts), some 6 s, before it says so: a soak.
import { describe, expect, it } from "vitest";
import { MemoryDbError, openDatabase } from "../../../src/memory/index/sqlite.ts";
import { memoryPath } from "../../../src/memory/store/store.ts";
import { openStore, storedItem } from "../../helpers/memory-item.ts";
import { useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-memstore-lock-");

const store = openStore;

describe("memory store under a held lock", () => {
  it("a write lock held past the wait is a clear 'locked' error, and the insert lands once it is free", () => {
    const root = project();
    const s = store(root);
    const other = openDatabase(memoryPath(root));
    other.exec("BEGIN IMMEDIATE");
    let error: unknown;
    try {
      s.insert([storedItem("m1-a")]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MemoryDbError);
    expect((error as MemoryDbError).problem).toBe("locked");
    expect((error as Error).message).toContain(memoryPath(root));
    other.exec("ROLLBACK");
    other.close();
    expect(s.insert([storedItem("m1-a")]).created).toEqual(["m1-a"]);
    s.close();
  });
});
