// The hook hot path must load only what it needs: no CLI framework, no schema
// library, no proxy or http code. Checked on the built bundle itself.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const HOOK = join(process.cwd(), "dist", "hook.cjs");

beforeAll(() => {
  if (!existsSync(HOOK)) execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

describe("dist/hook.cjs", () => {
  it("bundles none of the CLI, schema, proxy or http code", () => {
    const code = readFileSync(HOOK, "utf8");
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
    const code = readFileSync(HOOK, "utf8");
    const required = [...code.matchAll(/require\("(node:[a-z_]+)"\)/g)].map((m) => m[1]);
    expect(new Set(required)).toEqual(
      new Set(["node:crypto", "node:fs", "node:os", "node:path", "node:url"]),
    );
  });
});
