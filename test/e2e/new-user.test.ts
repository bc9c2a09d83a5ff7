// @module-tag claude
// @module-tag codex
// @module-tag man
/**
 * What a new user does, with the real agent CLIs (issue 11, items 10, 11 and 17):
 * - works in a subdirectory of the project: `install`, the `claude` session, `record stop` and `uninstall`, all
 *   run from `proj/src/deep`, act on `proj` (the git root), and the session lands in its archive;
 * - has only Codex installed: `status` shows Codex recording, `record stop` (no --provider) stops it, and the
 *   next real `codex exec` records nothing;
 * - installs the packed package (`npm pack` of a fresh clone, then the tarball, into a prefix of its own): it
 *   runs (`--version`, a hook), needs no workspace package, and its `tapedeck demo` runs the `claude` on the
 *   PATH, and without one says how to install it instead of failing with ENOENT.
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runClaude } from "../../src/demo/claude-offline.ts";
import { CODEX, runOk } from "./agents.ts";
import { type CliResult, readEventsFile, runCli, snapshot } from "./archive-checks.ts";
import { AWS_KEY_ID } from "./planted-secrets.ts";
import { CLI_JS, REPO, type Sandbox, useBuild, useClaudeSandbox } from "./sandboxes.ts";

useBuild();

function cliIn(sb: Sandbox, cwd: string, args: string[]): Promise<CliResult> {
  return runCli(CLI_JS, args, { cwd, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...sb.env } });
}

function sessionsOf(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((n) => !n.startsWith(".")) : [];
}

describe("claude, run from a subdirectory of the project (item 10)", () => {
  const sb = useClaudeSandbox("new-user-subdir");
  let sub = "";
  let sessionId = "";
  const archive = () => join(sb.projectDir, ".tapedeck", "claude-sessions");
  const claude = (prompt: string) =>
    runClaude({ home: sb.home, cwd: sub, baseUrl: sb.mock.url, args: [prompt] });

  beforeAll(() => {
    sub = join(sb.projectDir, "src", "deep");
    mkdirSync(sub, { recursive: true });
  });

  it("install from the subdirectory installs at the git root and says so", async () => {
    const res = await cliIn(sb, sub, ["install", "claude", "--yes"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(`${sb.projectDir} (the git root; you are in src/deep`);
    expect(existsSync(join(sb.projectDir, ".claude", "settings.local.json"))).toBe(true);
    expect(existsSync(join(sub, ".claude"))).toBe(false);
    expect(existsSync(join(sub, ".tapedeck"))).toBe(false);
  });

  it("a claude session started in the subdirectory is recorded in the project's archive", async () => {
    const res = await claude("SCENARIO_BASH echo from-the-subdirectory");
    expect(res.code, res.stderr).toBe(0);
    sessionId = res.sessionId!;
    expect(sessionsOf(archive())).toEqual([sessionId]);
    const kinds = readEventsFile(join(archive(), sessionId, "events.jsonl")).map((e) => e.kind);
    expect(kinds).toEqual(
      expect.arrayContaining(["session_start", "user_prompt", "tool_call", "tool_result"]),
    );
    const last = await cliIn(sb, sub, ["last", "--json"]);
    expect(JSON.parse(last.stdout).session_id).toBe(`claude:${sessionId}`);
  });

  it("record stop from the subdirectory stops it: the next session records nothing", async () => {
    const stop = await cliIn(sb, sub, ["record", "stop"]);
    expect(stop.code, stop.stderr).toBe(0);
    const before = snapshot(archive());
    const res = await claude("SCENARIO_BASH echo while-stopped");
    expect(res.code, res.stderr).toBe(0);
    expect(res.sessionId).not.toBe(sessionId);
    expect(snapshot(archive())).toEqual(before);
  });

  it("uninstall from the subdirectory removes the hooks it installed", async () => {
    const res = await cliIn(sb, sub, ["uninstall", "claude"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^Removed 1[0-9] tapedeck entries/);
    expect(existsSync(join(sb.projectDir, ".claude", "settings.local.json"))).toBe(false);
  });
});

describe("a project with only Codex installed (item 11)", () => {
  const sb = CODEX.sandbox("new-user-codex-only");
  const archive = () => join(sb.projectDir, ".tapedeck", "codex-sessions");
  const codex = async (prompt: string) => {
    const res = await runOk(CODEX, sb, [prompt]);
    expect(res.threadId).toMatch(/^[0-9a-f-]{36}$/);
    return res;
  };

  it("status without --provider shows Codex recording, and the real codex session is recorded", async () => {
    const install = await sb.cli(["install", "codex", "--yes"]);
    expect(install.code, install.stderr).toBe(0);
    const status = await sb.cli(["status"]);
    expect(status.stdout.split("\n")[0]).toBe("tapedeck ● REC capture-only");
    expect(status.stdout).toContain("Codex CLI");
    expect(status.stdout).not.toContain("Claude");
    const res = await codex("SCENARIO_BASH echo recorded");
    expect(sessionsOf(archive())).toEqual([res.threadId]);
  });

  it("record stop without --provider stops Codex: the next codex session records nothing", async () => {
    const stop = await sb.cli(["record", "stop"]);
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stdout).toContain("tapedeck ○ off  (Codex CLI");
    expect((await sb.cli(["status", "--statusline"])).stdout).toBe("tapedeck ○ off\n");
    const before = snapshot(archive());
    const res = await codex("SCENARIO_BASH echo while-stopped");
    expect(sessionsOf(archive())).not.toContain(res.threadId);
    expect(snapshot(archive())).toEqual(before);
  });
});

const PACKED_KEY = AWS_KEY_ID;

/** The checkout's own files (tracked, and new ones not ignored) copied to `dir`, node_modules linked in. */
function freshClone(dir: string): string {
  const files = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: REPO,
    encoding: "utf8",
  })
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(REPO, f)));
  for (const f of files) cpSync(join(REPO, f), join(dir, f), { recursive: false });
  expect(existsSync(join(dir, "dist"))).toBe(false);
  symlinkSync(join(REPO, "node_modules"), join(dir, "node_modules"));
  return dir;
}

describe("the packed package of a fresh clone: installs, runs, its demo (item 17; issue 41, item 1)", () => {
  let work = "";
  let bin = "";
  /** The `tapedeck` that `npm install -g .` of the fresh clone put on its prefix's PATH. */
  let linked = "";
  /** A directory with nothing but `node`: the PATH of a machine without any agent CLI. */
  let nodeOnly = "";

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "tapedeck-packed-"));
    // Packed from a fresh clone: the checkout's files without dist/ (and node_modules as `npm ci` leaves it).
    // Packing the checkout itself hid that nothing built dist/ on pack: a 17 kB tarball, no `tapedeck` command.
    const clone = freshClone(join(work, "clone"));
    // The README's line, as written: `npm install -g .` in the clone (a link to it; `prepare` builds dist/).
    execFileSync("npm", ["install", "-g", "--prefix", join(work, "linked"), "--no-audit", "--no-fund", "."], {
      cwd: clone,
      stdio: "ignore",
    });
    linked = join(work, "linked", "bin", "tapedeck");
    const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], {
      cwd: clone,
      encoding: "utf8",
    });
    const tarball = join(work, out.trim().split("\n").at(-1)!);
    expect(statSync(tarball).size).toBeGreaterThan(1_000_000);
    // --prefer-offline: the dependencies come from the cache `npm ci` filled, so this costs a few seconds.
    execFileSync(
      "npm",
      [
        "install",
        "-g",
        "--prefix",
        join(work, "prefix"),
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        tarball,
      ],
      { cwd: work, stdio: "ignore" },
    );
    bin = join(work, "prefix", "bin");
    nodeOnly = join(work, "node-only");
    mkdirSync(nodeOnly);
    symlinkSync(process.execPath, join(nodeOnly, "node"));
    // The install compiles better-sqlite3 from source (no prebuilt binary offline): minutes on a loaded
    // 2-core machine, where 120 s timed out.
  }, 600_000);

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function packedTapedeck(args: string[], path: string): Promise<CliResult> {
    return runCli(join(bin, "tapedeck"), args, { cwd: work, env: { PATH: path, HOME: join(work, "home") } });
  }

  it("npm install -g . of the fresh clone, as the README says, gives a working tapedeck", async () => {
    const env = { PATH: `${dirname(process.execPath)}:/usr/bin:/bin`, HOME: join(work, "home") };
    const res = await runCli(linked, ["--version"], { cwd: work, env });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("runs from the fresh prefix: --version, and a hook records a redacted prompt", async () => {
    const env = { PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: join(work, "home") };
    const version = await runCli(join(bin, "tapedeck"), ["--version"], { cwd: work, env });
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version);
    const project = join(work, "project");
    mkdirSync(project);
    const installed = await runCli(
      join(bin, "tapedeck"),
      ["install", "claude", "--yes", "--transport", "command", "--project", project],
      { cwd: project, env },
    );
    expect(installed.code, installed.stderr).toBe(0);
    // The hook exactly as install wrote it, run as Claude Code runs it: a shell command, the payload on stdin.
    const settings = JSON.parse(readFileSync(join(project, ".claude", "settings.local.json"), "utf8"));
    const command: string = settings.hooks.UserPromptSubmit[0].hooks[0].command;
    expect(command).toContain(join(work, "prefix", "lib", "node_modules", "tapedeck", "dist", "hook.cjs"));
    const payload = {
      session_id: "11111111-2222-4333-8444-555555555555",
      prompt_id: "p1",
      hook_event_name: "UserPromptSubmit",
      cwd: project,
      prompt: `deploy with ${PACKED_KEY}`,
    };
    execFileSync("sh", ["-c", command], { cwd: project, env, input: JSON.stringify(payload) });
    const events = readEventsFile(
      join(project, ".tapedeck", "claude-sessions", payload.session_id, "events.jsonl"),
    );
    expect(events.map((e) => e.kind)).toEqual(["user_prompt"]);
    expect(JSON.stringify(events)).not.toContain(PACKED_KEY);
    expect(JSON.stringify(events)).toContain("[REDACTED:");
  });

  it("needs no workspace package at run time: the redactor is inside its bundles", () => {
    const installed = join(work, "prefix", "lib", "node_modules", "tapedeck");
    const names = readdirSync(join(installed, "dist"), { recursive: true, encoding: "utf8" });
    const requiring = names.filter((n) => {
      const path = join(installed, "dist", n);
      return statSync(path).isFile() && readFileSync(path, "utf8").includes("@tapedeck/");
    });
    expect(requiring).toEqual([]);
    expect(existsSync(join(installed, "node_modules", "@tapedeck"))).toBe(false);
  });

  it("is installed without the dev dependencies (no claude of its own)", () => {
    const installed = join(work, "prefix", "lib", "node_modules", "tapedeck");
    expect(JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).name).toBe("tapedeck");
    expect(existsSync(join(installed, "node_modules", ".bin", "claude"))).toBe(false);
    expect(existsSync(join(installed, "node_modules", "@anthropic-ai"))).toBe(false);
  });

  it("installs its manual page where man finds it from the PATH, with a prefix too; help --man shows it", async () => {
    // npm links only an array "man" field (bin-links' linkMans); a string one left `man tapedeck` empty.
    const page = join(work, "prefix", "share", "man", "man1", "tapedeck.1");
    expect(existsSync(page)).toBe(true);
    const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: join(work, "home") };
    const where = execFileSync("man", ["-w", "tapedeck"], { env, encoding: "utf8" }).trim();
    expect(readFileSync(where, "utf8")).toBe(readFileSync(page, "utf8"));
    const shown = await runCli(join(bin, "tapedeck"), ["help", "--man"], {
      cwd: work,
      env: { ...env, MANPAGER: "cat", PAGER: "cat" },
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/tapedeck/i);
    expect(shown.stdout).toContain("show");
  });

  it("without claude on the PATH, demo says how to install it", async () => {
    const res = await packedTapedeck(["demo"], `${bin}:${nodeOnly}`);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("npm install -g @anthropic-ai/claude-code");
    expect(res.stderr).not.toContain("ENOENT");
  });

  it("with the pinned claude on the PATH, demo records a real session and points at what works", async () => {
    const claudeBin = join(REPO, "node_modules", ".bin");
    const res = await packedTapedeck(
      ["demo"],
      `${bin}:${claudeBin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain("Session recorded");
    expect(res.stdout).toMatch(/\d+ events · .* · [1-9]\d* redactions · complete/);
    // The project is gone: the Next lines do not name its session.
    expect(res.stdout).toContain("tapedeck demo --keep");
    expect(res.stdout).not.toMatch(/tapedeck (inspect|export|delete) [0-9a-f]{8}-/);
    expect(res.stderr).toContain(`claude ${join(claudeBin, "claude")} against the built-in mock model`);
  }, 120_000);

  it("demo --keep keeps the project, says so, and its Next lines work as printed", async () => {
    const claudeBin = join(REPO, "node_modules", ".bin");
    const path = `${bin}:${claudeBin}:${dirname(process.execPath)}:/usr/bin:/bin`;
    const res = await packedTapedeck(["demo", "--keep"], path);
    expect(res.code, res.stderr).toBe(0);
    const kept = /Kept the demo project: cd (\S+) && tapedeck last {3}\(remove it with: rm -rf (\S+)\)/.exec(
      res.stderr,
    );
    expect(kept, res.stderr).not.toBeNull();
    try {
      expect(existsSync(join(kept![1]!, ".tapedeck", "claude-sessions"))).toBe(true);
      const next = res.stdout
        .split("Next:\n")[1]!
        .trim()
        .split("\n")
        .map((l) => l.trim());
      expect(next).toHaveLength(3);
      // inspect and export, as printed (delete too would end the demo: it asks, and is left to the user).
      for (const line of next.slice(0, 2)) {
        const args = line.split(/\s+/).slice(1);
        expect(args).toContain("--project");
        const run = await runCli(join(bin, "tapedeck"), args, {
          cwd: work,
          env: { PATH: path, HOME: join(work, "home") },
        });
        expect(run.code, `${line}\n${run.stderr}`).toBe(0);
      }
      expect(existsSync(join(work, next[1]!.split(" --out ")[1]!.split(" ")[0]!))).toBe(true);
    } finally {
      if (kept) rmSync(kept[2]!, { recursive: true, force: true });
    }
  }, 120_000);
});
