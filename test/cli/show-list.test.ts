// `tapedeck show` and `tapedeck list` on sessions recorded through the hook's recorder (`tapedeck hook claude`
// with Claude's payload shapes): columns, the failed flag, filters, colour rules and --follow. The commands run
// in process (test/helpers/program.ts), on a stdout that is a terminal for what a terminal changes; the built
// CLI in a child for --follow, which runs until the session ends or Ctrl-C (a real SIGINT) stops it.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { nextCommands, tokensLine } from "../../src/cli/summary.ts";
import { runProgram } from "../helpers/program.ts";
import { useTempProjects } from "../helpers/session.ts";

const CLI = join(process.cwd(), "dist", "cli.js");
const project = useTempProjects();

beforeAll(() => {
  if (!existsSync(CLI)) execFileSync("npm", ["run", "build", "--silent"], { stdio: "inherit" });
});

function env(home: string): Record<string, string> {
  const { NO_COLOR: _, ...rest } = process.env as Record<string, string>;
  return { ...rest, TAPEDECK_HOME: home };
}

function cli(args: string[], home: string, opts: { terminalColumns?: number; noColor?: string } = {}) {
  return runProgram(args, {
    env: { NO_COLOR: opts.noColor, TAPEDECK_HOME: home },
    terminalColumns: opts.terminalColumns,
  });
}

async function hook(root: string, home: string, payload: Record<string, unknown>) {
  const r = await runProgram(["hook", "claude"], {
    stdin: JSON.stringify({ transcript_path: join(root, "none.jsonl"), cwd: root, ...payload }),
    cwd: root,
    env: { NO_COLOR: undefined, TAPEDECK_HOME: home, CLAUDE_PROJECT_DIR: root },
  });
  expect(r.code, r.stderr).toBe(0);
}

async function installed(): Promise<{ root: string; home: string }> {
  const root = project();
  const home = join(root, "tapedeck-home");
  mkdirSync(home, { mode: 0o700 });
  const r = await cli(["install", "claude", "--yes", "--transport", "command", "--project", root], home);
  expect(r.code, r.stderr).toBe(0);
  return { root, home };
}

const SECRET = "AKIAZ7QX3M2KD9PLW4HB";

/** Two turns: a failing command, then an API error (StopFailure). */
async function failedSession(root: string, home: string, id = "sess-fail"): Promise<void> {
  const s = { session_id: id };
  await hook(root, home, { ...s, hook_event_name: "SessionStart", source: "startup" });
  await hook(root, home, {
    ...s,
    hook_event_name: "UserPromptSubmit",
    prompt_id: "p1",
    prompt: `deploy with ${SECRET}\nnow`,
  });
  await hook(root, home, {
    ...s,
    hook_event_name: "PreToolUse",
    prompt_id: "p1",
    tool_name: "Bash",
    tool_input: { command: "make deploy" },
    tool_use_id: "toolu_1",
  });
  await hook(root, home, {
    ...s,
    hook_event_name: "PostToolUseFailure",
    prompt_id: "p1",
    tool_name: "Bash",
    tool_input: { command: "make deploy" },
    tool_use_id: "toolu_1",
    error: "Exit code 2\nmake: *** no rule",
    duration_ms: 58,
  });
  await hook(root, home, {
    ...s,
    hook_event_name: "Stop",
    prompt_id: "p1",
    last_assistant_message: "It failed.",
  });
  await hook(root, home, { ...s, hook_event_name: "UserPromptSubmit", prompt_id: "p2", prompt: "try again" });
  await hook(root, home, {
    ...s,
    hook_event_name: "StopFailure",
    prompt_id: "p2",
    error: "overloaded_error",
    last_assistant_message: "API Error: 529",
  });
  await hook(root, home, { ...s, hook_event_name: "SessionEnd", reason: "other" });
}

describe("list", () => {
  it("shows the title, turns, tool errors and a failed session as failed, from the manifest", async () => {
    const { root, home } = await installed();
    await failedSession(root, home);
    const out = await cli(["list", "--project", root], home);
    expect(out.code, out.stderr).toBe(0);
    const [header, row] = out.stdout.trimEnd().split("\n");
    expect(header).toMatch(
      /^SESSION +PROVIDER +STARTED \(UTC\) +DURATION +TURNS +ERRORS +TOKENS +STATUS +RUN +TITLE$/,
    );
    expect(row).toMatch(
      /^sess-fail +Claude Code +\S+ \S+ +\S+ +2 +1 +— +failed +— +deploy with \[REDACTED:[a-z_]+\] now$/,
    );
    expect(out.stdout).not.toContain(SECRET);
    const [json] = JSON.parse((await cli(["list", "--json", "--project", root], home)).stdout);
    expect(json).toMatchObject({
      status: "complete",
      failed: true,
      failure: "overloaded_error",
      turns: 2,
      tool_errors: 1,
    });
  });

  it("fits the title to the terminal's width, and keeps the whole (60 characters) when piped", async () => {
    const { root, home } = await installed();
    await failedSession(root, home);
    const screen = await cli(["list", "--project", root], home, { terminalColumns: 110 });
    expect(screen.code, screen.stderr).toBe(0);
    const lines = screen.stdout.split(/\r?\n/).filter(Boolean);
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(110);
    expect(lines[1]).toMatch(/deploy with \[RED\S*…$/);
    expect((await cli(["list", "--project", root], home)).stdout).toMatch(
      /deploy with \[REDACTED:[a-z_]+\] now\n$/,
    );
  });

  it("--limit, --since and --all-projects (from the registry)", async () => {
    const a = await installed();
    await failedSession(a.root, a.home, "one");
    await failedSession(a.root, a.home, "two");
    const b = await installed();
    // The second project records into its own tree but registers in the same tapedeck home.
    const r = await cli(
      ["install", "claude", "--yes", "--transport", "command", "--project", b.root],
      a.home,
    );
    expect(r.code).toBe(0);
    await failedSession(b.root, a.home, "three");
    const rows = async (args: string[]) =>
      (await cli(["list", ...args], a.home)).stdout
        .trimEnd()
        .split("\n")
        .slice(1)
        .map((l) => l.split(/ +/)[0]);
    expect(await rows(["--project", a.root])).toHaveLength(2);
    expect(await rows(["--project", a.root, "--limit", "1"])).toHaveLength(1);
    expect(await rows(["--project", a.root, "--since", "1d"])).toHaveLength(2);
    expect((await cli(["list", "--project", a.root, "--since", "2999-01-01"], a.home)).stdout).toContain(
      "No recorded sessions",
    );
    const all = await cli(["list", "--all-projects"], a.home);
    expect(all.stdout.split("\n")[0]).toMatch(/^SESSION +PROJECT +PROVIDER/);
    expect(all.stdout).toContain(a.root);
    expect(all.stdout).toContain(b.root);
    expect((await rows(["--all-projects"])).sort()).toEqual(["one", "three", "two"]);
    expect((await cli(["list", "--limit", "0", "--project", a.root], a.home)).code).toBe(2);
    expect((await cli(["list", "--since", "yesterday", "--project", a.root], a.home)).code).toBe(2);
  });
});

/** A live session (started, a first prompt p1) and `show --follow` on it: its output so far, its exit, a wait. */
async function following(sessionId: string, prompt: string) {
  const { root, home } = await installed();
  const s = { session_id: sessionId };
  await hook(root, home, { ...s, hook_event_name: "SessionStart", source: "startup" });
  await hook(root, home, { ...s, hook_event_name: "UserPromptSubmit", prompt_id: "p1", prompt });
  const child = spawn(process.execPath, [CLI, "show", sessionId, "--follow", "--project", root], {
    env: env(home),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  // "close", not "exit": its output is all read by then.
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  /** Waits for `what` in the output, or for the child's exit without it. */
  const until = async (what: string) => {
    await new Promise<void>((resolve) => {
      const seen = () => {
        if (!out.includes(what)) return;
        child.stdout.off("data", seen);
        resolve();
      };
      child.stdout.on("data", seen);
      void exited.then(() => resolve());
      seen();
    });
    expect(out).toContain(what);
  };
  return { root, home, s, child, exited, until, out: () => out };
}

describe("show", () => {
  it("prints the turns: prompt, the call and its error with exit code and duration, the failed turn", async () => {
    const { root, home } = await installed();
    await failedSession(root, home);
    const out = await cli(["show", "last", "--project", root], home);
    expect(out.code, out.stderr).toBe(0);
    const text = out.stdout;
    expect(text).not.toMatch(/\x1b/);
    expect(text).not.toContain(SECRET);
    expect(text).toMatch(/── Turn 1 · 1 tool call · 1 error\n/);
    expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} \+\d+\.\d{3}s +Bash {2}make deploy$/m);
    expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} \+\d+\.\d{3}s +error {2}exit 2 · 58 ms$/m);
    expect(text).toContain("│ make: *** no rule");
    expect(text).toMatch(/── Turn 2 · 0 tool calls · failed\n/);
    expect(text).toContain("turn failed: overloaded_error");
    expect(text).toContain("2 turns · 1 tool call · 1 tool error · failed: overloaded_error");
    expect(text).toMatch(/\nRecord: 8 events · 1 redaction\n$/);
    const only = (await cli(["show", "last", "--kinds", "tool_error", "--project", root], home)).stdout;
    expect(only).toContain("error  exit 2");
    expect(only).not.toContain("prompt");
    expect(only).not.toContain("── Turn 2");
    const bad = await cli(["show", "last", "--kinds", "tool_errr", "--project", root], home);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown event kind "tool_errr"');
    const json = JSON.parse((await cli(["show", "last", "--json", "--project", root], home)).stdout);
    expect(json.turns).toHaveLength(2);
    expect(json.turns[0].items[1]).toMatchObject({
      name: "Bash",
      result: { ok: false, exit_code: 2, duration_ms: 58 },
    });
    expect(json.totals).toMatchObject({ turns: 2, tool_errors: 1, failures: ["overloaded_error"] });
  });

  it("colours on a terminal only, and never with NO_COLOR", async () => {
    const { root, home } = await installed();
    await failedSession(root, home);
    const run = async (noColor?: string) => {
      const r = await cli(["show", "last", "--project", root], home, { terminalColumns: 200, noColor });
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    const coloured = await run();
    expect(coloured).toContain("\x1b[31merror\x1b[0m");
    const plain = await run("1");
    expect(plain).toContain("error  exit 2");
    expect(plain).not.toMatch(/\x1b\[\d+m/);
  });

  it("--follow prints each turn as the live session goes on and stops at its end", async () => {
    const { root, home, s, exited, until, out } = await following("live", "first");
    // The history first, as turns (the one in progress too), then new events line by line as they come.
    await until("Following: new events");
    expect(out()).toContain("── Turn 1 · 0 tool calls");
    expect(out()).toContain("│ first");
    await hook(root, home, {
      ...s,
      hook_event_name: "PreToolUse",
      prompt_id: "p1",
      tool_name: "Bash",
      tool_input: { command: "ls" },
      tool_use_id: "t1",
    });
    await until("Bash  ls");
    await hook(root, home, {
      ...s,
      hook_event_name: "PostToolUseFailure",
      prompt_id: "p1",
      tool_name: "Bash",
      tool_use_id: "t1",
      error: "Exit code 2",
      duration_ms: 7,
    });
    await until("error Bash  exit 2 · 7 ms");
    await hook(root, home, {
      ...s,
      hook_event_name: "Stop",
      prompt_id: "p1",
      last_assistant_message: "answer one",
    });
    await until("answer one");
    await hook(root, home, { ...s, hook_event_name: "UserPromptSubmit", prompt_id: "p2", prompt: "second" });
    await until("── Turn 2");
    await hook(root, home, { ...s, hook_event_name: "SessionEnd", reason: "other" });
    expect(await exited).toBe(0);
    expect(out()).toContain("2 turns · 1 tool call · 1 tool error");
    // Following a session that has ended prints it and exits.
    const again = await cli(["show", "live", "--follow", "--project", root], home);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("2 turns · 1 tool call · 1 tool error");
  });
});

describe("show --follow, stopped", () => {
  it("Ctrl-C ends it with the totals and exit 130", async () => {
    const { child, exited, until, out } = await following("live2", "still going");
    await until("Following");
    expect(out()).toContain("still going");
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(out()).toContain("still going");
    expect(out()).toContain("1 turn · 0 tool calls");
  });
});

describe("show with hostile recorded text", () => {
  it("prints escape sequences and bidi controls from the archive as U+FFFD, even on a terminal", async () => {
    const { root, home } = await installed();
    const s = { session_id: "hostile" };
    await hook(root, home, {
      ...s,
      hook_event_name: "UserPromptSubmit",
      prompt_id: "p",
      prompt: "hi\u001b]0;owned\u0007",
    });
    await hook(root, home, {
      ...s,
      hook_event_name: "PreToolUse",
      prompt_id: "p",
      tool_name: "Bash\u001b[2J",
      tool_input: { command: "echo \u202eabc" },
      tool_use_id: "t",
    });
    const out = (await cli(["show", "hostile", "--project", root], home)).stdout;
    expect(out).toContain("hi\ufffd");
    expect(out).toContain("Bash\ufffd");
    expect(out).not.toMatch(/[\x1b\x07\u202e]/);
  });
});

describe("a planted events file", () => {
  it("a symlink or FIFO in place of events.jsonl is named by show and export md, never followed nor waited on", async () => {
    const { root, home } = await installed();
    await hook(root, home, { session_id: "planted", hook_event_name: "SessionStart", source: "startup" });
    const events = join(root, ".tapedeck", "claude-sessions", "planted", "events.jsonl");
    renameSync(events, `${events}.real`);
    symlinkSync("/etc/passwd", events);
    for (const args of [["show"], ["export", "--format", "md"]]) {
      const [command, ...rest] = args;
      const r = await cli([command!, "planted", ...rest, "--project", root], home);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`${events}: is a symlink; tapedeck reads only a regular file`);
      expect(r.stdout).not.toContain("root:");
    }
    unlinkSync(events);
    execFileSync("mkfifo", [events]);
    const r = await cli(["show", "planted", "--project", root], home);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${events}: is not a regular file`);
  });
});

describe("the manifest's counters are what list reads", () => {
  it("are in the manifest, so list reads no event", async () => {
    const { root, home } = await installed();
    await failedSession(root, home);
    const dir = join(root, ".tapedeck", "claude-sessions", "sess-fail");
    const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
    expect(m).toMatchObject({
      failure: "overloaded_error",
      counts_by_kind: { user_prompt: 2, tool_error: 1 },
    });
    expect(m.title).toMatch(/^deploy with \[REDACTED:/);
  });
});

describe("the session summary", () => {
  it("shows cache writes beside cache reads, and suggests show", () => {
    const usage = {
      input_tokens: 1160,
      output_tokens: 196,
      cache_read_input_tokens: 11600,
      cache_creation_input_tokens: 580,
      sources: ["claude-transcript"],
    };
    expect(tokensLine(usage, "claude")).toBe(
      "1160 in · 196 out · 11600 cache read · 580 cache write (claude-transcript)",
    );
    expect(nextCommands("abc")[0]).toBe("tapedeck show abc");
  });
});
