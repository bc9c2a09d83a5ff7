// One version, package.json's: the build writes it into the bundle, a run from source reads it.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../src/cli/version.ts";

const DIST = join(process.cwd(), "dist");
const PACKAGE_VERSION = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

beforeAll(() => {
  if (!existsSync(join(DIST, "cli.js")))
    execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

describe("VERSION", () => {
  it("is package.json's version when run from source", () => {
    expect(VERSION).toBe(PACKAGE_VERSION);
  });

  it("is written into the built CLI, which prints it without reading package.json", () => {
    // The CLI is what reports it (`--version`, and to the MCP server it starts).
    for (const file of builtFiles([join(DIST, "cli.js")])) {
      expect(readFileSync(file, "utf8").includes("__TAPEDECK_VERSION__"), file).toBe(false);
    }
    const printed = execFileSync(process.execPath, [join(DIST, "cli.js"), "--version"], { encoding: "utf8" });
    expect(printed.trim()).toBe(PACKAGE_VERSION);
  });
});

/** The entries and every chunk they import, statically or not (dist/cli-chunks also keeps earlier builds' chunks a while). */
function builtFiles(entries: string[]): Set<string> {
  const files = new Set<string>();
  const walk = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, "utf8").matchAll(/(?:from\s*|import\(\s*)"(\.{1,2}\/[^"]+)"/g)) {
      walk(resolve(dirname(file), m[1] as string));
    }
  };
  for (const e of entries) walk(e);
  return files;
}
