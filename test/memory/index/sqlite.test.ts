import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryDbError, openDatabase } from "../../../src/memory/index/sqlite.ts";
import { CAN_CHOWN, giveToOtherUser } from "../../helpers/other-user.ts";
import { useTempProjects } from "../../helpers/session.ts";

const project = useTempProjects("tapedeck-sqlite-");

function problemOf(fn: () => unknown): MemoryDbError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryDbError);
    return error as MemoryDbError;
  }
  throw new Error("no error");
}

describe("openDatabase", () => {
  it("creates the file 0600 in a 0700 directory, in WAL mode", () => {
    const root = project();
    const path = join(root, ".tapedeck", "index.sqlite");
    const db = openDatabase(path, { base: root });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.exec("CREATE TABLE t (x)");
    db.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(root, ".tapedeck")).mode & 0o777).toBe(0o700);
  });

  it("answers 'missing' for a read-only open of a file that is not there, creating nothing", () => {
    const root = project();
    const path = join(root, ".tapedeck", "memory.sqlite");
    expect(problemOf(() => openDatabase(path, { readonly: true, base: root })).problem).toBe("missing");
    expect(existsSync(join(root, ".tapedeck"))).toBe(false);
  });

  it("opens a closed WAL database read-only", () => {
    const root = project();
    const path = join(root, "m.sqlite");
    const db = openDatabase(path);
    db.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
    db.close();
    const ro = openDatabase(path, { readonly: true });
    expect(ro.prepare("SELECT x FROM t").get()).toEqual({ x: 1 });
    ro.close();
  });

  it("names the file and the rebuild for a corrupt index, never an SQLite stack", () => {
    const root = project();
    const path = join(root, ".tapedeck", "index.sqlite");
    mkdirSync(join(root, ".tapedeck"), { mode: 0o700 });
    writeFileSync(path, Buffer.alloc(8192, 0x5a));
    const error = problemOf(() => openDatabase(path, { base: root }));
    expect(error.problem).toBe("corrupt");
    expect(error.message).toContain(path);
    expect(error.message).toContain("tapedeck index rebuild");
    expect(error.stack ?? "").not.toContain("better-sqlite3");
  });

  it("says a corrupt memory store is never deleted for the user", () => {
    const root = project();
    const path = join(root, "memory.sqlite");
    writeFileSync(path, "SQLite format 3\u0000 but then garbage".repeat(200));
    const error = problemOf(() => openDatabase(path));
    expect(error.problem).toBe("corrupt");
    expect(error.message).toContain("never deletes it");
    expect(readFileSync(path, "utf8")).toContain("but then garbage");
  });

  it("refuses a symlinked file, a symlinked -wal and a symlinked parent, leaving their targets alone", () => {
    const root = project();
    const target = join(root, "elsewhere.sqlite");
    writeFileSync(target, "");
    const path = join(root, "index.sqlite");
    symlinkSync(target, path);
    expect(problemOf(() => openDatabase(path)).problem).toBe("unsafe");
    const other = join(root, "b.sqlite");
    symlinkSync(target, `${other}-wal`);
    expect(problemOf(() => openDatabase(other)).problem).toBe("unsafe");
    mkdirSync(join(root, "real"));
    symlinkSync(join(root, "real"), join(root, "linked"));
    expect(problemOf(() => openDatabase(join(root, "linked", "x.sqlite"), { base: root })).problem).toBe(
      "unsafe",
    );
    expect(readFileSync(target, "utf8")).toBe("");
    expect(existsSync(join(root, "real", "x.sqlite"))).toBe(false);
  });

  it("refuses a FIFO without waiting on it", () => {
    const root = project();
    const path = join(root, "index.sqlite");
    execFileSync("mkfifo", [path]);
    const error = problemOf(() => openDatabase(path));
    expect(error.problem).toBe("unsafe");
    expect(error.message).toContain("not a regular file");
  });

  it("a planted or loosened 0644 file (a clone's .tapedeck/) is made 0600, and so are the -wal/-shm SQLite gives its mode", () => {
    const root = project();
    const path = join(root, ".tapedeck", "memory.sqlite");
    const first = openDatabase(path, { base: root });
    first.exec("CREATE TABLE t (x)");
    first.close();
    chmodSync(join(root, ".tapedeck"), 0o755);
    chmodSync(path, 0o644);
    const db = openDatabase(path, { base: root });
    db.exec("INSERT INTO t VALUES ('promoted text')");
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      expect((statSync(file).mode & 0o777).toString(8)).toBe("600");
    }
    // What another local user would see: nothing, whatever the directory allows.
    const read = (file: string) =>
      execFileSync(
        "runuser",
        ["-u", "nobody", "--", "sh", "-c", `cat "${file}" >/dev/null && echo read || echo denied`],
        {
          encoding: "utf8",
        },
      ).trim();
    chmodSync(root, 0o755);
    expect(read(path)).toBe("denied");
    expect(read(`${path}-wal`)).toBe("denied");
    db.close();
  });

  it.runIf(CAN_CHOWN)(
    "a database file of another user (SQLite writes by path) is never opened to write",
    () => {
      const root = project();
      const path = join(root, ".tapedeck", "index.sqlite");
      openDatabase(path, { base: root }).close();
      chmodSync(path, 0o666);
      giveToOtherUser(path);
      const before = readFileSync(path);
      const problem = problemOf(() => openDatabase(path, { base: root }));
      expect(problem.problem).toBe("unsafe");
      expect(problem.message).toContain("belongs to another user");
      expect(readFileSync(path)).toEqual(before);
      // Read-only, it is read as any file of someone else's is.
      openDatabase(path, { base: root, readonly: true }).close();
    },
  );
});
