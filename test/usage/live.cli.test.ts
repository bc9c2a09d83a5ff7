import { createRequire } from "node:module";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, ensureBuilt } from "../helpers/cli-run.ts";
import { useScratchDir } from "../helpers/temp-project.ts";
import { machine, machinesRoot } from "./machines-fixture.ts";

const scratch = useScratchDir("tapedeck-usage-live-");
beforeAll(ensureBuilt);

const SHOW_SCREEN = "\x1b[?25h\x1b[?1049l";

function killedLive(
  env: Record<string, string>,
  args: string[],
  signal: string,
): Promise<{ code: number; out: string }> {
  const pty = createRequire(import.meta.url)("@lydell/node-pty") as typeof import("@lydell/node-pty");
  return new Promise((resolve) => {
    let out = "";
    let sent = false;
    const p = pty.spawn(process.execPath, [CLI, "usage", ...args, "--live"], { cols: 120, rows: 30, env });
    p.onData((d) => {
      out += d;
      // Killed once the first screen is drawn: the view is open, its handlers in place.
      if (!sent && out.includes("q or Ctrl-C to quit")) {
        sent = true;
        p.kill(signal);
      }
    });
    p.onExit(({ exitCode }) => resolve({ code: exitCode, out }));
  });
}

describe("--live killed by a signal", () => {
  it.each([
    ["blocks", "SIGTERM", 143],
    ["blocks", "SIGINT", 130],
    ["daily", "SIGHUP", 129],
  ])("usage %s --live on %s restores the screen and exits %i", async (report, signal, code) => {
    const root = machinesRoot(scratch);
    const m = machine(root, "laptop");
    const project = join(m.home, "p");
    await m.importSession(project, "11111111-1111-4111-8111-111111111111", [
      {
        at: new Date(Date.now() - 60_000).toISOString(),
        model: "claude-sonnet-4-5-20250929",
        input: 10,
        output: 1,
      },
    ]);
    const r = await killedLive(m.env, [report, "--project", project], signal);
    expect(r.out).toContain("\x1b[?1049h");
    expect(r.code).toBe(code);
    expect(r.out.endsWith(SHOW_SCREEN), JSON.stringify(r.out.slice(-80))).toBe(true);
  });
});
