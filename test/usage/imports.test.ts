import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
const USAGE = join(SRC, "usage");

/** What a usage file imports outside node: built-ins and its own room, as paths under src/. */
function outside(file: string): string[] {
  const src = readFileSync(file, "utf8");
  const specs = [
    ...src.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']/gm),
  ].map((m) => (m[1] ?? m[2]) as string);
  return specs
    .filter((s) => !s.startsWith("node:"))
    .map((s) => (s.startsWith(".") ? relative(SRC, resolve(file, "..", s)) : s))
    .filter((p) => !p.startsWith("usage/"));
}

describe("src/usage imports", () => {
  it("imports only the core (a reader room: the CLI and the viewer sit above it, the providers' facts come in)", () => {
    const files = readdirSync(USAGE).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(6);
    const bad = files.flatMap((f) =>
      outside(join(USAGE, f))
        .filter((p) => !p.startsWith("core/"))
        .map((p) => `${f} imports ${p}`),
    );
    expect(bad).toEqual([]);
  });
});
