// The seams between recording, replay and reading: every command that takes a SESSION opens a replay's
// session, `list` marks it with its baseline, --all-projects opens another project's session from anywhere,
// an ambiguous prefix lists its candidates, `show --kinds tool_error` shows the failed call, an injection is
// named with its size, and `inspect` says what --json alone said.
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registerSession } from "../../src/core/archive/session-registry.ts";
import { runCliInProcess } from "../helpers/program.ts";
import { recordSession, runSessionsDir } from "../helpers/scoped-sessions.ts";
import { event } from "../helpers/session.ts";
import { useTempProjects } from "../helpers/temp-project.ts";

const project = useTempProjects("tapedeck-seams-");

function withReplay(extra: ReturnType<typeof event>[] = []) {
  const root = project();
  const home = join(root, "home");
  mkdirSync(home, { mode: 0o700 });
  recordSession(root, "base-1111", { minute: 1 });
  const replay = recordSession(root, "run-2222", {
    sessionRoot: runSessionsDir(root, "exp-20261130-a"),
    replayOf: "claude:base-1111",
    minute: 2,
    extra,
  });
  const cli = (args: string[]) => runCliInProcess([...args, "--project", root], home);
  return { root, home, replay, cli };
}

describe("a replay's session opens everywhere a session does", () => {
  it("show, inspect and export take the id replay printed; list marks it with its baseline", async () => {
    const { cli } = withReplay();
    const show = await cli(["show", "claude:run-2222"]);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("prompt of run-2222");
    const inspect = await cli(["inspect", "run-22"]);
    expect(inspect.code, inspect.stderr).toBe(0);
    expect(inspect.stdout).toContain("Run:          replay of claude:base-1111");
    const md = await cli(["export", "run-2222", "--format", "md"]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain("answer of run-2222");
    const jsonl = await cli(["export", "run-2222", "--format", "jsonl"]);
    expect(JSON.parse(jsonl.stdout.split("\n")[0]!).replay_of_session_id).toBe("claude:base-1111");

    const list = await cli(["list"]);
    expect(list.code, list.stderr).toBe(0);
    const row = list.stdout.split("\n").find((l) => l.startsWith("run-2222"));
    expect(row).toContain("replay of base-111");
    expect(list.stdout.split("\n").find((l) => l.startsWith("base-1111"))).toMatch(/complete\s+—/);
    const runs = await cli(["list", "--runs", "--json"]);
    expect(JSON.parse(runs.stdout).map((s: { session_id: string }) => s.session_id)).toEqual([
      "claude:run-2222",
    ]);
    const noRuns = await cli(["list", "--no-runs", "--json"]);
    expect(JSON.parse(noRuns.stdout).map((s: { session_id: string }) => s.session_id)).toEqual([
      "claude:base-1111",
    ]);
  });

  it("--all-projects opens another project's session from outside it; without it the miss says where", async () => {
    const { root, home } = withReplay();
    registerSession(
      { provider: "claude", provider_session_id: "base-1111", project_root: root },
      { TAPEDECK_HOME: join(home, ".tapedeck") },
    );
    const elsewhere = project();
    const miss = await runCliInProcess(["show", "run-2222", "--project", elsewhere], home);
    expect(miss.code).toBe(3);
    expect(miss.stderr).toContain(`It is a session of ${root}: add --all-projects`);
    for (const command of [["show"], ["inspect"], ["export", "--format", "md"]]) {
      const [name, ...rest] = command;
      const r = await runCliInProcess(
        [name!, "run-2222", ...rest, "--all-projects", "--project", elsewhere],
        home,
      );
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
    }
  });

  it("an ambiguous prefix is a usage error that lists the candidates", async () => {
    const { cli } = withReplay();
    const r = await cli(["show", "claude:"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"claude:" matches 2 sessions; give more of the id:');
    expect(r.stderr).toContain("claude:run-2222");
    expect(r.stderr).toContain("replay of claude:base-1111");
    expect(r.stderr).toContain("claude:base-1111");
    expect(r.stderr).not.toContain("\ufffd");
  });
});

describe("every event visible", () => {
  it("show --kinds tool_error prints the call that failed beside its error", async () => {
    const { cli } = withReplay([
      event("tool_call", "call-1", {
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_use_id: "toolu_1",
        tool_input: { command: "make deploy" },
      }),
      event("tool_error", "err-1", {
        hook_event_name: "PostToolUseFailure",
        tool_name: "Bash",
        tool_use_id: "toolu_1",
        tool_input: { command: "make deploy" },
        error: "Exit code 2\nno rule to make target",
      }),
    ]);
    const r = await cli(["show", "run-2222", "--kinds", "tool_error"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("make deploy");
    expect(r.stdout).toContain("no rule to make target");
  });

  it("a memory injection is named with its items, size and query in show and the Markdown export", async () => {
    const { cli } = withReplay([
      event("provider_event", "inj-1", {
        hook_event_name: "UserPromptSubmit",
        type: "context_injection",
        bytes: 1337,
        budget_bytes: 4096,
        item_ids: ["mem_aaaa", "mem_bbbb"],
        matched: 2,
        truncated: false,
        query: '"deploy" OR "staging"',
        context: "<tapedeck-memory>the staging host is db-7</tapedeck-memory>",
      }),
    ]);
    const show = await cli(["show", "run-2222"]);
    expect(show.stdout).toContain("memory injected: 2 items, 1.3 KB");
    expect(show.stdout).toContain("mem_aaaa, mem_bbbb");
    expect(show.stdout).toContain('query "deploy" OR "staging"');
    const md = await cli(["export", "run-2222", "--format", "md"]);
    expect(md.stdout).toContain("memory injected: 2 items, 1.3 KB");
  });

  it("a Write result reads as what happened to the file, not as the tool's JSON", async () => {
    const { cli } = withReplay([
      event("tool_call", "w-call", {
        hook_event_name: "PreToolUse",
        tool_name: "Write",
        tool_use_id: "toolu_w",
        tool_input: { file_path: "/p/hello.txt", content: "a\nb\n" },
      }),
      event("tool_result", "w-result", {
        hook_event_name: "PostToolUse",
        tool_name: "Write",
        tool_use_id: "toolu_w",
        tool_response: {
          type: "create",
          filePath: "/p/hello.txt",
          content: "a\nb\n",
          structuredPatch: [],
          originalFile: null,
        },
      }),
    ]);
    const r = await cli(["show", "run-2222"]);
    expect(r.stdout).toContain("created /p/hello.txt (2 lines)");
    expect(r.stdout).not.toContain('"structuredPatch"');
  });

  it("inspect's own output has the checksum, the spool, the recovery state and the capabilities", async () => {
    const { cli } = withReplay();
    const r = await cli(["inspect", "base-1111"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Session base-1111 · Claude Code/);
    expect(r.stdout).not.toContain("Session recorded");
    expect(r.stdout).toContain("Checksum:     ok (sha256 matches)");
    expect(r.stdout).toContain("Spool:        empty");
    expect(r.stdout).toContain("Recovery:     nothing to recover");
    expect(r.stdout).toContain("Capabilities: session_start, user_prompt");
  });
});

describe("a small session's footprint", () => {
  it("the id table starts small: a few events cost well under the 32 KB it once took", () => {
    const { replay } = withReplay();
    const ids = readFileSync(join(replay.dir, "ids.bin"));
    expect(ids.length).toBeLessThanOrEqual(1024);
  });
});
