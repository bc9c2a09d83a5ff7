import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const CORE = fileURLToPath(new URL("../../src/core/", import.meta.url));

/** zod builds the published JSON schemas; every other core file reaches schemas.ts through `import type` only. */
const ZOD_FILES = new Set(["archive/schemas.ts", "archive/json-schemas.ts"]);

/** The workspace's redactor: it imports only node: built-ins itself (packages/redact/test/redact.test.ts). */
const WORKSPACE = /^@tapedeck\/redact(\/[a-z-]+)?$/;

function coreFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return coreFiles(path);
    return e.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every module specifier of a file, with whether it is type-only (erased from the bundle). */
function specifiers(src: string): { spec: string; typeOnly: boolean }[] {
  const found = src.matchAll(
    /^\s*(import|export)\s+(type\s)?[^;]*?from\s+["']([^"']+)["']|^\s*import\s+["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']|\brequire\(\s*["']([^"']+)["']/gm,
  );
  return [...found].map((m) => ({
    spec: (m[3] ?? m[4] ?? m[5] ?? m[6]) as string,
    typeOnly: m[2] !== undefined,
  }));
}

/** What a core file may not import: anything but node: built-ins, other core files, the redactor (zod in ZOD_FILES). */
function coreImportViolations(file: string, src: string): string[] {
  const name = relative(CORE, file);
  const bad: string[] = [];
  for (const { spec, typeOnly } of specifiers(src)) {
    if (spec.startsWith("node:") || WORKSPACE.test(spec)) continue;
    if (spec.startsWith(".")) {
      const target = resolve(file, "..", spec);
      const inside = target.startsWith(CORE);
      const zodValue = !typeOnly && ZOD_FILES.has(relative(CORE, target)) && !ZOD_FILES.has(name);
      if (inside && !zodValue) continue;
    } else if (spec === "zod" && ZOD_FILES.has(name)) continue;
    bad.push(`${name} imports ${spec}`);
  }
  return bad;
}

describe("src/core imports", () => {
  const files = coreFiles(CORE);

  it("imports only node: built-ins and other core files (the hook loads it)", () => {
    expect(files.length).toBeGreaterThan(40);
    const violations = files.flatMap((f) => coreImportViolations(f, readFileSync(f, "utf8")));
    expect(violations).toEqual([]);
  });

  it("catches an import that leaves the core, a package, and zod's schemas loaded at run time", () => {
    const config = join(CORE, "archive", "config.ts");
    expect(coreImportViolations(config, 'import { CliError } from "../../cli/cli-error.ts";\n')).toEqual([
      "archive/config.ts imports ../../cli/cli-error.ts",
    ]);
    expect(
      coreImportViolations(config, 'import { z } from "zod";\nconst m = await import("undici");\n'),
    ).toEqual(["archive/config.ts imports zod", "archive/config.ts imports undici"]);
    expect(coreImportViolations(config, 'import { JSON_SCHEMAS } from "./schemas.ts";\n')).toEqual([
      "archive/config.ts imports ./schemas.ts",
    ]);
    expect(coreImportViolations(config, 'import { redactText } from "@tapedeck/redact";\n')).toEqual([]);
    expect(coreImportViolations(config, 'import type { Manifest } from "./schemas.ts";\n')).toEqual([]);
  });
});
