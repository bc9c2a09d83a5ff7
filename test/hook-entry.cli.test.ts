// The hook hot path must load only what it needs: no CLI framework, no schema
// library, no proxy or http code. Checked on the built bundle itself.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const HOOK = join(process.cwd(), "dist", "hook.cjs");

/** dist/hook.cjs is a loader (scripts/hook-loader.mjs); the hook's code is the file it names. */
function hookCode(): string {
  const loader = readFileSync(HOOK, "utf8");
  const name = /"(hook-[0-9a-f]{16}\.cjs)"/.exec(loader)?.[1];
  if (!name) throw new Error("dist/hook.cjs names no hook code");
  return readFileSync(join(process.cwd(), "dist", name), "utf8");
}

beforeAll(() => {
  if (!existsSync(HOOK)) execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

describe("dist/hook.cjs", () => {
  it("bundles none of the CLI, schema, proxy or http code", () => {
    const code = hookCode();
    for (const marker of [
      "commander",
      "ZodError",
      "undici",
      "eventsource",
      "modelcontextprotocol",
      'require("node:http")',
      "node:child_process",
    ]) {
      expect(code.includes(marker), marker).toBe(false);
    }
  });

  it("requires only small node built-ins at load", () => {
    const code = hookCode();
    const required = [...code.matchAll(/require\("(node:[a-z_]+)"\)/g)].map((m) => m[1]);
    expect(new Set(required)).toEqual(
      new Set(["node:crypto", "node:fs", "node:os", "node:path", "node:url"]),
    );
    const loader = readFileSync(HOOK, "utf8");
    expect(new Set([...loader.matchAll(/require\("(node:[a-z_]+)"\)/g)].map((m) => m[1]))).toEqual(
      new Set(["node:fs", "node:path", "node:vm"]),
    );
  });
});
