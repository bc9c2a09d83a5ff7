// Temp projects for tests, each removed when the test that made it ends (passed or failed), so a run
// leaves no tapedeck-test-* directories behind. The path is resolved through realpath: macOS's temp
// directory sits behind a symlink, and tapedeck refuses to write through one.
import { copyFileSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, onTestFinished } from "vitest";

/** A fresh temp directory and the function that removes it; prefer the two helpers below, which call it. */
export function tempProject(prefix = "tapedeck-test-"): { root: string; cleanup: () => void } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** Inside a test: a fresh temp project, removed when this test finishes. */
export function newTempProject(prefix?: string): string {
  const p = tempProject(prefix);
  onTestFinished(p.cleanup);
  return p.root;
}

/**
 * At the top of a test file: `project()` makes a fresh temp project, from a test, a hook or a helper
 * they call; every one is removed after each test of the file.
 */
export function useTempProjects(prefix?: string): () => string {
  const cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });
  return () => {
    const p = tempProject(prefix);
    cleanups.push(p.cleanup);
    return p.root;
  };
}

export interface ScratchDir {
  dir: string;
  /** A path no other call returned, ending in `name`. */
  fresh(name?: string): string;
  /** A new file holding `content`. */
  file(content?: string): string;
  /** A new copy of `source`, for a test that appends to it. */
  copy(source: string): string;
}

/** At the top of a test file: one scratch folder for the files its tests write, removed after them all. */
export function useScratchDir(prefix: string): ScratchDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let count = 0;
  const fresh = (name = "file.jsonl") => join(dir, `${count++}-${name}`);
  return {
    dir,
    fresh,
    file(content = "") {
      const path = fresh();
      writeFileSync(path, content);
      return path;
    },
    copy(source) {
      const path = fresh();
      copyFileSync(source, path);
      return path;
    },
  };
}
