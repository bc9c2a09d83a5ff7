// The build itself, run whole (scripts/build.mjs): a soak, some 5 s of CPU on two cores each time. The other
// tests build once before they run (npm test, test/helpers/cli-run.ts's ensureBuilt) and test what it wrote.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CATALOG } from "../src/cli/catalog.ts";
import { commandChunk, ensureBuilt } from "./helpers/cli-run.ts";

const DIST = join(process.cwd(), "dist");
const CLI = join(DIST, "cli.js");

beforeAll(ensureBuilt);

describe("the build", () => {
  it("writes the hook into a fresh checkout, which has no dist/ yet", () => {
    const dir = mkdtempSync(join(tmpdir(), "tapedeck-freshbuild-"));
    try {
      // This tree as it is, without its dist/: what a fresh clone builds from.
      execFileSync("cp", ["-R", "scripts", "src", "packages", "package.json", dir]);
      symlinkSync(join(process.cwd(), "node_modules"), join(dir, "node_modules"));
      execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: dir, stdio: "ignore" });
      expect(existsSync(join(dir, "dist", "hook.cjs"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("the build's chunks", () => {
  it("keep a recent chunk it did not write (another build's), drop an old one, and leave no temporary file", () => {
    const chunks = join(DIST, "cli-chunks");
    const recent = join(chunks, "zz-other-build-RECENT.js");
    const old = join(chunks, "zz-earlier-build-OLD.js");
    writeFileSync(recent, "export {};\n");
    writeFileSync(old, "export {};\n");
    const hourAgo = new Date(Date.now() - 3600_000);
    utimesSync(old, hourAgo, hourAgo);
    try {
      execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "ignore" });
      expect(existsSync(recent)).toBe(true);
      expect(existsSync(old)).toBe(false);
      expect(readdirSync(chunks).filter((f) => f.endsWith(".tmp"))).toEqual([]);
      for (const e of CATALOG) expect(existsSync(commandChunk(e.name))).toBe(true);
      expect(readFileSync(CLI, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    } finally {
      rmSync(recent, { force: true });
      rmSync(old, { force: true });
    }
  }, 60_000);
});
