// `install codex --notify` says, before the user confirms, that Codex hands the
// notify program each turn's prompt and reply on its command line, where other
// local users can read them while it runs (Codex's design, not ours to change).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { NOTIFY_ARGV_WARNING } from "../../../src/providers/codex/notify-installer.ts";
import { runProgram } from "../../helpers/program.ts";
import { tempProject } from "../../helpers/session.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function sandbox() {
  const t = tempProject("tapedeck-notify-install-");
  cleanups.push(t.cleanup);
  const project = join(t.root, "project");
  const codexHome = join(t.root, "codex-home");
  mkdirSync(join(project, ".git"), { recursive: true });
  mkdirSync(codexHome, { recursive: true });
  // install asks only outside the temporary directory: give the run one that does not hold the project.
  const childTmp = join(t.root, "tmp");
  mkdirSync(childTmp);
  const env = {
    TMPDIR: childTmp,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: t.root,
    CODEX_HOME: codexHome,
    TAPEDECK_HOME: join(t.root, ".tapedeck-home"),
  };
  const install = (...extra: string[]) =>
    runProgram(["install", "codex", "--notify", "--project", project, ...extra], { env, inheritEnv: false });
  const config = () => {
    const path = join(codexHome, "config.toml");
    return existsSync(path) ? readFileSync(path, "utf8") : "";
  };
  return { install, config };
}

describe("install codex --notify warns about the command line", () => {
  it("in the view shown before confirming; not confirmed, nothing is installed", async () => {
    const sb = sandbox();
    const res = await sb.install();
    expect(res.code).toBe(2);
    expect(res.stdout).toContain(NOTIFY_ARGV_WARNING);
    expect(NOTIFY_ARGV_WARNING).toMatch(/command line.*other users.*\(ps, \/proc\)/);
    expect(sb.config()).not.toContain("notify");
  });

  it("with --yes the warning is printed too, before the notify program is added", async () => {
    const sb = sandbox();
    const res = await sb.install("--yes", "--transport", "command");
    expect(res.code, res.stderr).toBe(0);
    const warned = res.stdout.indexOf(NOTIFY_ARGV_WARNING);
    expect(warned).toBeGreaterThanOrEqual(0);
    expect(warned).toBeLessThan(res.stdout.indexOf("Added tapedeck's notify program"));
    expect(sb.config()).toContain("notify = [");
  });
});
