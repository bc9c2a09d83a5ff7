// The hook server's automatic export: a hook only restarts timers; when they fire, a child runs
// `otel export --pending` for a project whose config asks for it, and nothing runs for one that does not.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeConfig } from "../../src/core/archive/config.ts";
import { autoExportConfigured, exportWhenIdle } from "../../src/otel/idle.ts";
import { useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

function withOtel(root: string, otel: Record<string, unknown> | undefined): void {
  writeConfig(root, { schema_version: 1, providers: {}, ...(otel ? { otel } : {}) } as never);
}

describe("automatic export", () => {
  it("is on with an endpoint in the config, off without one or with auto: false", () => {
    const root = project();
    expect(autoExportConfigured(root)).toBe(false);
    withOtel(root, undefined);
    expect(autoExportConfigured(root)).toBe(false);
    withOtel(root, { endpoint: "http://127.0.0.1:1/v1/traces" });
    expect(autoExportConfigured(root)).toBe(true);
    withOtel(root, { endpoint: "http://127.0.0.1:1/v1/traces", auto: false });
    expect(autoExportConfigured(root)).toBe(false);
  });

  it("after the hooks go quiet, one child runs otel export --pending for the project", async () => {
    const root = project();
    withOtel(root, { endpoint: "http://127.0.0.1:1/v1/traces" });
    const out = join(root, "argv.json");
    const cli = join(root, "fake-cli.mjs");
    writeFileSync(
      cli,
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(out)}, JSON.stringify(process.argv.slice(2)));\n`,
    );
    const code = await new Promise<number | null>((resolve) => {
      // Three hooks in a burst: the timer restarts, one run follows.
      for (let i = 0; i < 3; i += 1) exportWhenIdle(root, { delayMs: 20, cli, onDone: resolve });
    });
    expect(code).toBe(0);
    expect(existsSync(out)).toBe(true);
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual([
      "otel",
      "export",
      "--pending",
      "--background",
      "--quiet",
      "--project",
      root,
    ]);
  });
});
