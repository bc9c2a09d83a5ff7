// The import room's place in the layering: it uses the core (the one write path), the providers' catalog
// (their history readers) and the events index it updates, and nothing above it; the command line is above it and calls it.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
const ROOM = join(SRC, "import");

function importViolations(file: string, src = readFileSync(file, "utf8")): string[] {
  const specs = [...src.matchAll(/\bfrom\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']/g)].map(
    (m) => m[1] ?? m[2]!,
  );
  const bad: string[] = [];
  for (const spec of specs) {
    // The redactor is the core's, a workspace package.
    if (spec.startsWith("node:") || spec.startsWith("@tapedeck/redact")) continue;
    const target = spec.startsWith(".") ? relative(SRC, resolve(file, "..", spec)) : spec;
    const room = target.split("/")[0];
    if (room === "core" || room === "providers" || room === "import") continue;
    // The events index, which an import brings up to date (import.ts).
    if (target.startsWith("memory/index/")) continue;
    bad.push(`${relative(SRC, file)} imports ${spec}`);
  }
  return bad;
}

describe("src/import imports", () => {
  it("only the core, the providers, the events index and itself", () => {
    const files = readdirSync(ROOM).filter((n) => n.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(3);
    expect(files.flatMap((n) => importViolations(join(ROOM, n)))).toEqual([]);
  });

  it("catches an import of the command line or another room", () => {
    const file = join(ROOM, "run.ts");
    expect(
      importViolations(
        file,
        'import { note } from "../cli/common.ts";\nconst m = await import("../memory/index.ts");\n',
      ),
    ).toEqual(["import/run.ts imports ../cli/common.ts", "import/run.ts imports ../memory/index.ts"]);
  });
});
