import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { installHookTimer, readHookTimings, TIMINGS_FILE } from "../../src/experiment/hook-timing.ts";
import { tempProject, useTempProjects } from "../helpers/session.ts";

useTempProjects();

describe("hook timing", () => {
  it("points the installed hook commands at the timer, which runs the same hook and records its lifetime", () => {
    const root = tempProject().root;
    const home = join(root, "home");
    mkdirSync(home);
    // A stand-in for dist/hook.cjs: it sees its own path as argv[1] and its provider as argv[2].
    const hook = join(root, "hook.cjs");
    writeFileSync(
      hook,
      `require("node:fs").writeFileSync(${JSON.stringify(join(root, "seen"))}, JSON.stringify(process.argv.slice(1)));\n`,
    );
    const settings = join(root, "settings.json");
    writeFileSync(
      settings,
      JSON.stringify({ hooks: { Stop: [{ hooks: [{ command: `'node' '${hook}' claude` }] }] } }),
    );
    expect(
      installHookTimer({
        home,
        runDir: root,
        hookJs: hook,
        settingsFiles: [settings, join(root, "absent.json")],
      }),
    ).toBe(true);
    const command = JSON.parse(readFileSync(settings, "utf8")).hooks.Stop[0].hooks[0].command as string;
    expect(command).not.toContain(hook);
    const timer = command.split("'")[3]!;
    execFileSync(process.execPath, [timer, "claude"]);
    execFileSync(process.execPath, [timer, "claude"]);
    expect(JSON.parse(readFileSync(join(root, "seen"), "utf8"))).toEqual([hook, "claude"]);
    writeFileSync(
      join(root, TIMINGS_FILE),
      `${readFileSync(join(root, TIMINGS_FILE), "utf8")}{"total_ms": 1`,
    );
    const t = readHookTimings(root)!;
    expect(t.invocations).toBe(2);
    expect(t.mean_ms).toBeGreaterThan(t.boot_mean_ms);
    expect(t.total_ms).toBeGreaterThanOrEqual(t.max_ms);
  });

  it("leaves the hooks alone where the timer's path would need quoting, and reads nothing when nothing ran", () => {
    const root = tempProject().root;
    const home = join(root, "it's home");
    mkdirSync(home);
    expect(installHookTimer({ home, runDir: root, hookJs: "/x/hook.cjs", settingsFiles: [] })).toBe(false);
    expect(readHookTimings(root)).toBeNull();
  });
});
