// The index and its SQLite opener while another process holds the write lock: a second process each, and a
// wait of SQLite's busy timeout, so the soak tier (npm run test:soak).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordEvents } from "../../../src/core/archive/session-store.ts";
import { indexPath, updateIndex } from "../../../src/memory/index/index.ts";
import { openDatabase, toMemoryDbError } from "../../../src/memory/index/sqlite.ts";
import { event, identity, spec, useTempProjects } from "../../helpers/session.ts";
import { search, seed } from "./search-fixture.ts";
import { useWriteLockHolders } from "./write-lock.ts";

const project = useTempProjects("tapedeck-locked-");
const holdWriteLock = useWriteLockHolders();

describe("openDatabase while another process writes", () => {
  it("says another process holds the lock after a short wait", async () => {
    const root = project();
    const path = join(root, "index.sqlite");
    const db = openDatabase(path);
    db.exec("CREATE TABLE t (x)");
    await holdWriteLock(path, "INSERT INTO t VALUES (2)");
    let caught: unknown;
    try {
      db.prepare("INSERT INTO t VALUES (1)").run();
    } catch (error) {
      caught = error;
    }
    const error = toMemoryDbError(caught, path);
    expect(error.problem).toBe("locked");
    expect(error.message).toContain("locked by another tapedeck process");
    db.close();
  });
});

describe("search while another process writes", () => {
  it("reads the index as it is while another process holds its write lock, and says so", async () => {
    const root = project();
    seed(root);
    updateIndex(root);
    recordEvents(spec(root, { identity: identity("alpha-1") }), [
      event("user_prompt", "z", { prompt: "deploy later" }),
    ]);
    const child = await holdWriteLock(indexPath(root), "INSERT INTO meta VALUES ('x','y')");
    const found = search(root, "deploy");
    expect(found.stale).toBe(true);
    expect(found.hits).toHaveLength(2);
    child.kill("SIGKILL");
    await new Promise((r) => child.on("exit", r));
    const after = search(root, "deploy");
    expect(after).toMatchObject({ stale: false });
    expect(after.hits).toHaveLength(3);
  });
});
