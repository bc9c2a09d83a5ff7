// The CLI as a user runs it, in process (test/helpers/program.ts), on sessions the built hook recorded.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runHook } from "../helpers/cli-run.ts";
import { runProgram } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const CLI = join(process.cwd(), "dist", "cli.js");
const HOOK = join(process.cwd(), "dist", "hook.cjs");

beforeAll(() => {
  if (!existsSync(CLI) || !existsSync(HOOK))
    execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

const project = useTempProjects();

function cli(args: string[], opts: { input?: string; cwd?: string; env?: Record<string, string> } = {}) {
  return runProgram(args, { stdin: opts.input, cwd: opts.cwd, env: opts.env });
}

function hook(root: string, payload: object) {
  const r = runHook(root, payload);
  expect(r.status).toBe(0);
  expect(r.stdout).toBe("");
}

const ids = { session_id: "cli-1", transcript_path: "/nonexistent", prompt_id: "p1" };

function recordSampleSession(root: string) {
  hook(root, { ...ids, hook_event_name: "SessionStart", source: "startup" });
  hook(root, { ...ids, hook_event_name: "UserPromptSubmit", prompt: "list files; key AKIAQ3ZT7RBX5MWN2KPD" });
  hook(root, {
    ...ids,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_use_id: "t1",
    tool_input: { command: "ls" },
  });
  hook(root, {
    ...ids,
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_use_id: "t1",
    tool_input: { command: "ls" },
    tool_response: { stdout: "a\nb" },
  });
  hook(root, { ...ids, hook_event_name: "Stop", last_assistant_message: "Two files." });
  hook(root, { ...ids, hook_event_name: "SessionEnd", reason: "other" });
}

describe("install, record, status", () => {
  it("installs idempotently, keeps the user's settings, and uninstalls exactly", async () => {
    const root = project();
    const settingsPath = join(root, ".claude", "settings.local.json");
    mkdirSync(join(root, ".claude"));
    const mine = {
      permissions: { allow: ["Bash(ls:*)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
      statusLine: { type: "command", command: "echo mine" },
      env: { FOO: "1" },
    };
    writeFileSync(settingsPath, JSON.stringify(mine));
    const first = await cli([
      "install",
      "claude",
      "--project",
      root,
      "--yes",
      "--transport",
      "command",
      "--json",
    ]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ hooks: 17, status_line: "kept yours", recording: "on" });
    const once = readFileSync(settingsPath, "utf8");
    expect(
      (await cli(["install", "claude", "--project", root, "--yes", "--transport", "command"])).code,
    ).toBe(0);
    expect(readFileSync(settingsPath, "utf8")).toBe(once);
    const installed = JSON.parse(once);
    expect(installed.statusLine).toEqual(mine.statusLine);
    expect(installed.hooks.PreToolUse[0]).toEqual(mine.hooks.PreToolUse[0]);
    expect(readFileSync(join(root, ".tapedeck", ".gitignore"), "utf8")).toBe("*\n");
    const un = await cli(["uninstall", "claude", "--project", root]);
    expect(un.code).toBe(0);
    expect(JSON.parse(readFileSync(settingsPath, "utf8"))).toEqual(mine);
  });

  it("refuses to install without a terminal unless --yes, changing nothing", async () => {
    // A session root under the temp directory needs no confirmation, so the CLI is given another
    // temp directory: for it this project is a lasting one.
    const root = project();
    const r = await cli(["install", "claude", "--project", root], {
      env: { TMPDIR: join(root, "elsewhere") },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--yes");
    expect(existsSync(join(root, ".claude", "settings.local.json"))).toBe(false);
  });

  it("record stop makes hooks a no-op; status reflects it", async () => {
    const root = project();
    await cli(["install", "claude", "--project", root, "--yes", "--transport", "command"]);
    expect((await cli(["status", "--project", root, "--statusline"])).stdout).toBe(
      "tapedeck ● REC capture-only\n",
    );
    expect((await cli(["record", "stop", "--project", root])).code).toBe(0);
    hook(root, { ...ids, hook_event_name: "UserPromptSubmit", prompt: "x" });
    expect(existsSync(join(root, ".tapedeck", "claude-sessions"))).toBe(false);
    const statusLine = spawnSync(process.execPath, [HOOK, "--statusline", "claude"], {
      input: JSON.stringify({ workspace: { project_dir: root } }),
      encoding: "utf8",
    });
    expect(statusLine.stdout).toBe("tapedeck ○ off\n");
    expect((await cli(["record", "start", "--project", root])).code).toBe(0);
    hook(root, { ...ids, hook_event_name: "UserPromptSubmit", prompt: "x" });
    expect(existsSync(join(root, ".tapedeck", "claude-sessions", "cli-1", "events.jsonl"))).toBe(true);
  });

  it("record start before install explains what to do", async () => {
    const root = project();
    const r = await cli(["record", "start", "--project", root]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("tapedeck install claude");
  });
});

describe("archive commands", () => {
  it("list, inspect, last, export, repair, delete", async () => {
    const root = project();
    await cli(["install", "claude", "--project", root, "--yes", "--transport", "command"]);
    recordSampleSession(root);

    const list = JSON.parse((await cli(["list", "--project", root, "--json"])).stdout);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ session_id: "claude:cli-1", status: "complete", event_count: 6 });

    const inspect = JSON.parse((await cli(["inspect", "cli-1", "--project", root, "--json"])).stdout);
    expect(inspect.counts_by_kind).toMatchObject({
      session_start: 1,
      user_prompt: 1,
      tool_call: 1,
      tool_result: 1,
    });
    expect(inspect.checksums).toEqual({ ok: true, reason: "sha256 matches" });
    expect(inspect.redaction_count).toBeGreaterThan(0);

    const human = await cli(["last", "--project", root]);
    // inspect names the session (the demo's "Session recorded" is for a session just made).
    expect(human.stdout).toMatch(/^Session cli-1 · Claude Code\n/);
    expect(human.stdout).toMatch(/6 events · .* · 1 redaction · complete/);
    expect(human.stdout).toContain("Saved to .tapedeck/claude-sessions/cli-1/");

    const out = join(root, "export.jsonl");
    expect((await cli(["export", "cli-1", "--project", root, "--format", "jsonl", "--out", out])).code).toBe(
      0,
    );
    const lines = readFileSync(out, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0].record).toBe("manifest");
    expect(lines.slice(1).map((e: { sequence: number }) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(readFileSync(out, "utf8")).not.toContain("AKIAQ3ZT7RBX5MWN2KPD");
    const again = await cli(["export", "cli-1", "--project", root, "--format", "jsonl", "--out", out]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("--force");
    const md = await cli(["export", "cli-1", "--project", root, "--format", "md"]);
    expect(md.stdout).toContain("# Session claude:cli-1");
    expect(md.stdout).toContain("[REDACTED:");

    const repair = JSON.parse((await cli(["repair", "cli-1", "--project", root, "--json"])).stdout);
    expect(repair.report.valid_events).toBe(6);

    const refused = await cli(["delete", "cli-1", "--project", root]);
    expect(refused.code).toBe(2);
    expect(existsSync(join(root, ".tapedeck", "claude-sessions", "cli-1"))).toBe(true);
    expect((await cli(["delete", "cli-1", "--project", root, "--yes"])).code).toBe(0);
    expect(existsSync(join(root, ".tapedeck", "claude-sessions", "cli-1"))).toBe(false);
  });

  it("answers a clear error and exit 3 for an unknown session", async () => {
    const root = project();
    const r = await cli(["inspect", "nope", "--project", root]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('no session matches "nope"');
  });

  it("tapedeck hook --strict reports why nothing was recorded", async () => {
    const root = project();
    const r = await cli(["hook", "claude", "--strict", "--project", root], { input: "{not json" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("not-enabled");
  });
});

describe("redact command", () => {
  it("redacts stdin to stdout", async () => {
    const r = await cli(["redact"], {
      input: "export GITHUB_TOKEN=ghp_Zq8rT2vLmN4pQ7sX1yB5cD9fG3hJ6kW0aE2i\nok\n",
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("Zq8rT2vLmN4pQ7sX1yB5cD9fG3hJ6kW0aE2i");
    expect(r.stdout).toContain("export GITHUB_TOKEN=[REDACTED:");
    expect(r.stdout.endsWith("ok\n")).toBe(true);
  });

  it("--jsonl redacts only the text field", async () => {
    const input = `${JSON.stringify({ id: "1", text: "key AKIAQ3ZT7RBX5MWN2KPD here", other: "AKIAQ3ZT7RBX5MWN2KPD" })}\n`;
    const r = await cli(["redact", "--jsonl"], { input });
    const line = JSON.parse(r.stdout);
    expect(line.id).toBe("1");
    expect(line.text).toBe("key [REDACTED:aws_access_key_id] here");
    expect(line.other).toBe("AKIAQ3ZT7RBX5MWN2KPD");
  });

  it("--jsonl rejects a malformed line with its number", async () => {
    const r = await cli(["redact", "--jsonl"], { input: '{"id":"1","text":"a"}\nnope\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("line 2");
  });
});

describe("help", () => {
  it("lists the commands", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    for (const c of [
      "install",
      "record",
      "list",
      "inspect",
      "export",
      "delete",
      "repair",
      "redact",
      "demo",
      "hook",
      "mcp",
      "proxy",
      "run",
    ]) {
      expect(r.stdout).toContain(c);
    }
  });
});

describe("install extras", () => {
  it("a flag the provider has no extra for is a usage error that changes nothing", async () => {
    const root = project();
    const r = await cli(["install", "claude", "--notify", "--yes", "--project", root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Claude Code has no --notify");
    expect(existsSync(join(root, ".tapedeck"))).toBe(false);
  });

  it("--mcp leaves recording dormant and says how to start it; a re-install keeps the state it finds", async () => {
    const root = project();
    const first = await cli(["install", "gemini", "--mcp", "--yes", "--project", root]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("Recording is dormant");
    expect(first.stdout).toContain("tapedeck record start --provider gemini");
    expect(
      (await cli(["status", "--statusline", "--provider", "gemini", "--project", root])).stdout.trim(),
    ).toBe("tapedeck ○ off");
    expect((await cli(["record", "start", "--provider", "gemini", "--project", root])).code).toBe(0);
    expect((await cli(["install", "gemini", "--mcp", "--yes", "--project", root])).code).toBe(0);
    expect(
      (await cli(["status", "--statusline", "--provider", "gemini", "--project", root])).stdout.trim(),
    ).toBe("tapedeck ● REC capture-only");
  });
});
