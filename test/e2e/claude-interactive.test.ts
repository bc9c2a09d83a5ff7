// @module-tag claude
/**
 * The real `claude` in an interactive session under a pseudo-terminal, recorded with the default (http)
 * transport, its hook server killed between turns (issue 11, item 1). What a user sees is the screen, so that is
 * what is checked, replayed cell by cell (see pty-screen.ts): claude never shows a word of tapedeck's trouble,
 * every turn after the kill is recorded, and the session ends complete.
 * - killed: the server is SIGKILLed after the first turn (a crash, an OOM kill, a user's `kill`); the next
 *   turn's first hook records in its own process and starts a server again, which the third turn uses;
 * - squatted: killed, and its port then taken by another local user (nobody), who must receive nothing.
 * And what claude itself makes hard to record: a prompt typed while claude is busy (queued, no hook fires for it),
 * and a response whose transcript line is written after its turn's Stop hook ran.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { ownProcessAlive } from "../../src/core/base/pids.ts";
import { CLAUDE_BIN, claudeTranscriptPath, offlineClaudeEnv } from "../../src/demo/claude-offline.ts";
import { liveServer, type RunInfo, runFilePath } from "../../src/serve/runfile.ts";
import { until } from "../helpers/poll.ts";
import { expectCompleteSession, readEventsFile } from "./archive-checks.ts";
import { hookTrouble } from "./claude-hook-trouble.ts";
import { spawnInPty, type Terminal } from "./pty-screen.ts";
import { type ClaudeSandbox, hookServerPids, useBuild, useClaudeSandbox } from "./sandboxes.ts";
import { type Squatter, squatAsNobody } from "./squatter.ts";

useBuild();

/** Measured on a loaded 2-core machine: startup ~1 s, a Bash turn ~1.5 s, exit ~0.5 s; generous bounds. */
const STARTUP_MS = 15_000;
const TURN_MS = 15_000;
/** The Stop hook runs after the answer is on screen. */
const RECORDED_MS = 10_000;
const EXIT_MS = 10_000;

/** The status line tapedeck installs: the one place claude's screen may name tapedeck. */
const STATUS_LINE = /^ *tapedeck ● REC capture-only *$/gm;
/** Claude's own spinner note while any hook runs, e.g. "(running PostToolUse hook · 0s · ↓ 6 tokens)". */
const HOOK_PROGRESS = /\(running [\w:]+ hooks?\b[^)\n]*\)?/g;
/** Claude's footer while a turn (or its Stop hook) runs. */
const BUSY = /esc to interrupt/;
/** What a hook's trouble looks like on claude's screen ("UserPromptSubmit hook failed: connect ECONNREFUSED"). */
const TROUBLE = /hook|fail|error|ECONNREFUSED|tapedeck|HTTP/i;

/**
 * Every distinct line, of every screen shown, that speaks of a hook or of tapedeck; `sandbox` (the temp dir's
 * name, which says tapedeck, in the project path claude shows) is not counted.
 */
function troubleOnScreen(frames: string[], sandbox: string): string[] {
  const lines = new Set<string>();
  for (const frame of frames) {
    const shown = frame.split(sandbox).join("<sandbox>").replace(STATUS_LINE, "").replace(HOOK_PROGRESS, "");
    for (const line of shown.split("\n")) {
      if (TROUBLE.test(line)) lines.add(line.trim());
    }
  }
  return [...lines];
}

/** The real claude, interactive, offline against the sandbox's mock; resolves once its prompt is up. */
async function startClaude(sb: ClaudeSandbox, started: Terminal[]): Promise<Terminal> {
  const term = spawnInPty(CLAUDE_BIN, ["--permission-mode", "bypassPermissions"], {
    cwd: sb.projectDir,
    env: offlineClaudeEnv(sb.home, sb.mock.url, { TERM: "xterm-256color" }),
  });
  started.push(term);
  await term.waitFor(/bypass permissions on/, STARTUP_MS);
  await term.waitFor(/^❯/m, STARTUP_MS);
  return term;
}

/** Types `prompt` and waits for `answer` on screen and for claude to be idle again. */
async function ask(term: Terminal, prompt: string, answer: string, recorded?: () => Promise<void>) {
  term.type(`${prompt}\r`);
  await term.waitFor(new RegExp(`● ${answer}$`, "m"), TURN_MS);
  await recorded?.();
  // Claude queues a prompt typed while it is busy (a turn or its Stop hook still running) and runs no
  // UserPromptSubmit hook for it (measured: such a prompt is never recorded); a user who waits sees this.
  await term.waitFor((screen) => !BUSY.test(screen), TURN_MS);
}

/** Types `/exit`: claude ends the session and exits 0. */
async function exitClaude(term: Terminal): Promise<void> {
  term.type("/exit\r");
  expect(await term.waitExit(EXIT_MS), `claude did not exit; its screen:\n${term.screen()}`).toBe(0);
}

describe("an interactive claude session, recorded over the default transport, its hook server killed", () => {
  const sb = useClaudeSandbox("claude-interactive");
  const archive = () => join(sb.projectDir, ".tapedeck", "claude-sessions");
  // The CLI and claude get HOME and no TAPEDECK_HOME, so both use HOME/.tapedeck (this process has one set).
  const runFile = () => runFilePath(sb.projectDir, { TAPEDECK_HOME: join(sb.home, ".tapedeck") });
  const terminals: Terminal[] = [];
  const squatters: Squatter[] = [];

  afterAll(async () => {
    for (const t of terminals) t.kill();
    for (const s of squatters) await s.close();
    for (const pid of hookServerPids(sb.projectDir)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });

  const sessionIds = () =>
    existsSync(archive()) ? readdirSync(archive()).filter((n) => !n.startsWith(".")) : [];
  const eventsOf = (id: string): Envelope[] => readEventsFile(join(archive(), id, "events.jsonl"));
  const count = (id: string, kind: string) => eventsOf(id).filter((e) => e.kind === kind).length;

  interface Turn {
    word: string;
    /** Message ids the mock served during the turn. */
    served: string[];
    /** The turn's prompt id, as its first user_prompt was recorded. */
    turnId?: string;
  }

  interface Session {
    term: Terminal;
    id: string;
    turns: Turn[];
  }

  /** Starts claude and waits for its prompt and for the session's SessionStart in the archive. */
  async function start(): Promise<Session> {
    const known = new Set(sessionIds());
    const term = await startClaude(sb, terminals);
    const isNew = () => sessionIds().find((id) => !known.has(id));
    expect(await until(() => isNew() !== undefined, RECORDED_MS), "session_start").toBe(true);
    return { term, id: isNew()!, turns: [] };
  }

  /** Asks for a Bash command; the turn is over once its Stop is in the archive. */
  async function turn(s: Session, word: string): Promise<void> {
    const served0 = sb.mock.usageLog.length;
    const stops = count(s.id, "assistant_message");
    await ask(s.term, `SCENARIO_BASH echo ${word}`, `Done: ${word}`, async () => {
      const stopped = await until(() => count(s.id, "assistant_message") > stops, RECORDED_MS);
      expect(stopped, `Stop of ${word}`).toBe(true);
    });
    s.turns.push(servedTurn(s, word, `SCENARIO_BASH echo ${word}`, served0));
  }

  /** The turn's record: what the mock served from `served0` (to `served1`), and its prompt's recorded turn id. */
  function servedTurn(s: Session, word: string, prompt: string, served0: number, served1?: number): Turn {
    const served = sb.mock.usageLog.slice(served0, served1).filter((u) => u.scenario.startsWith("bash"));
    const recorded = eventsOf(s.id).find((e) => e.kind === "user_prompt" && e.payload.prompt === prompt);
    return { word, served: served.map((u) => u.messageId), turnId: recorded?.turn_id };
  }

  async function exit(s: Session): Promise<void> {
    await exitClaude(s.term);
    expect(await until(() => count(s.id, "session_end") > 0, RECORDED_MS), "session_end").toBe(true);
  }

  /** SIGKILLs the project's hook server (its run file stays behind, naming a dead pid). */
  async function killServer(): Promise<RunInfo> {
    expect(await until(() => liveServer(runFile()) !== undefined, RECORDED_MS), "a hook server up").toBe(
      true,
    );
    const server = liveServer(runFile())!;
    process.kill(server.pid, "SIGKILL");
    expect(await until(() => !ownProcessAlive(server.pid), 5000), "the server gone").toBe(true);
    return server;
  }

  /** What the user saw and what claude noted about its hooks: nothing. The session is complete in the archive. */
  async function expectUndisturbed(s: Session): Promise<void> {
    expect(troubleOnScreen(s.term.frames(), basename(sb.root))).toEqual([]);
    const transcript = claudeTranscriptPath(sb.home, sb.projectDir, s.id);
    expect(hookTrouble([transcript])).toEqual([]);
    await expectCompleteSession({
      dir: join(archive(), s.id),
      provider: "claude",
      id: s.id,
      inspect: async () => {
        const res = await sb.cli(["inspect", s.id, "--json", "--project", sb.projectDir]);
        expect(res.code, res.stderr).toBe(0);
        return JSON.parse(res.stdout) as unknown;
      },
    });
  }

  /** Undisturbed, and every turn recorded, in order, complete. */
  async function expectUndisturbedAndRecorded(s: Session): Promise<void> {
    const events = eventsOf(s.id);
    const lifecycle = events.filter((e) => e.kind !== "turn_usage");
    expect(lifecycle.map((e) => e.kind)).toEqual([
      "session_start",
      ...s.turns.flatMap(() => ["user_prompt", "tool_call", "tool_result", "assistant_message"]),
      "session_end",
    ]);
    s.turns.forEach(({ word }, i) => {
      const [prompt, call, result, answer] = lifecycle.slice(1 + 4 * i, 5 + 4 * i);
      const command = `echo ${word}`;
      expect(prompt!.payload).toMatchObject({
        hook_event_name: "UserPromptSubmit",
        prompt: `SCENARIO_BASH ${command}`,
      });
      expect(call!.payload).toMatchObject({ tool_name: "Bash", tool_input: { command } });
      expect(result!.payload).toMatchObject({
        tool_use_id: call!.payload.tool_use_id,
        tool_response: { stdout: word },
      });
      expect(answer!.payload).toMatchObject({ hook_event_name: "Stop", text: `Done: ${word}` });
      expect(new Set([prompt, call, result, answer].map((e) => e!.turn_id)).size).toBe(1);
    });
    await expectUndisturbed(s);
  }

  const sessions: Session[] = [];

  it("install with the default transport", async () => {
    const res = await sb.cli(["install", "claude", "--yes", "--project", sb.projectDir]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^Transport +http$/m);
  });

  it("killed between turns: the screen shows nothing, the turns after the kill are recorded, the session completes", async () => {
    const s = await start();
    sessions.push(s);
    await turn(s, "one");
    const crashed = await killServer();
    await turn(s, "two");
    // The first hook after the kill found the server dead, recorded in its own process and started another.
    expect(await until(() => liveServer(runFile()) !== undefined, RECORDED_MS), "a server again").toBe(true);
    const back = liveServer(runFile())!;
    expect(back.pid).not.toBe(crashed.pid);
    await turn(s, "three");
    expect(liveServer(runFile())?.pid).toBe(back.pid);
    await exit(s);
    await expectUndisturbedAndRecorded(s);
  });

  it("killed, its port then taken by another user: the squatter receives nothing, the screen shows nothing, the turns are recorded", async () => {
    const s = await start();
    sessions.push(s);
    await turn(s, "four");
    const crashed = await killServer();
    const squatter = await squatAsNobody(crashed.port);
    squatters.push(squatter);
    await turn(s, "five");
    await turn(s, "six");
    await exit(s);
    expect(squatter.received()).toEqual([]);
    await squatter.close();
    await expectUndisturbedAndRecorded(s);
  });

  it("a prompt typed while claude is busy is recorded, in the turn that took it in", async () => {
    const s = await start();
    sessions.push(s);
    const served0 = sb.mock.usageLog.length;
    const stops = count(s.id, "assistant_message");
    const first = "SCENARIO_BASH sleep 3; echo seven";
    const queued = "SCENARIO_BASH echo eight";
    s.term.type(`${first}\r`);
    // Typed while the first prompt's command still runs: claude queues it and fires no UserPromptSubmit for it
    // (measured: it takes it in mid-turn, after the tool result, as an attachment of the transcript).
    await s.term.waitFor(BUSY, TURN_MS);
    await new Promise((r) => setTimeout(r, 1000));
    s.term.type(`${queued}\r`);
    await s.term.waitFor(/● Done: eight$/m, TURN_MS);
    expect(await until(() => count(s.id, "assistant_message") > stops, RECORDED_MS), "Stop").toBe(true);
    await s.term.waitFor((screen) => !BUSY.test(screen), TURN_MS);
    const busy = servedTurn(s, "seven", first, served0);
    s.turns.push(busy);
    await turn(s, "nine");
    await exit(s);

    const prompts = eventsOf(s.id).filter((e) => e.kind === "user_prompt");
    expect(prompts.map((e) => [e.payload.prompt, e.payload.queued ?? false, e.turn_id])).toEqual([
      [first, false, busy.turnId],
      [queued, true, busy.turnId],
      ["SCENARIO_BASH echo nine", false, s.turns[1]!.turnId],
    ]);
    expect(busy.turnId).toBeDefined();
    const answers = eventsOf(s.id).filter((e) => e.kind === "assistant_message");
    expect(answers.map((e) => [e.payload.text, e.turn_id])).toEqual([
      ["Done: eight", busy.turnId],
      ["Done: nine", s.turns[1]!.turnId],
    ]);
    await expectUndisturbed(s);
  });

  it("a prompt typed while a Stop hook runs is recorded, as the turn it starts", async () => {
    // A slow Stop hook of the user's own beside tapedeck's: claude is busy until it is done.
    const settings = join(sb.projectDir, ".claude", "settings.local.json");
    const installed = readFileSync(settings, "utf8");
    const slow = JSON.parse(installed) as { hooks: Record<string, unknown[]> };
    slow.hooks.Stop = [...(slow.hooks.Stop ?? []), { hooks: [{ type: "command", command: "sleep 3" }] }];
    writeFileSync(settings, JSON.stringify(slow));
    try {
      const s = await start();
      sessions.push(s);
      const served0 = sb.mock.usageLog.length;
      const stops = count(s.id, "assistant_message");
      s.term.type("SCENARIO_BASH echo ten\r");
      await s.term.waitFor(/● Done: ten$/m, TURN_MS);
      const served1 = sb.mock.usageLog.length;
      // Typed while the Stop hooks run (measured: claude dequeues it into a turn of its own, with a new
      // prompt id and no UserPromptSubmit).
      await new Promise((r) => setTimeout(r, 500));
      s.term.type("SCENARIO_BASH echo eleven\r");
      await s.term.waitFor(/● Done: eleven$/m, TURN_MS);
      expect(await until(() => count(s.id, "assistant_message") >= stops + 2, RECORDED_MS), "Stops").toBe(
        true,
      );
      await s.term.waitFor((screen) => !BUSY.test(screen), TURN_MS);
      s.turns.push(servedTurn(s, "ten", "SCENARIO_BASH echo ten", served0, served1));
      s.turns.push(servedTurn(s, "eleven", "SCENARIO_BASH echo eleven", served1));
      await exit(s);

      const prompts = eventsOf(s.id).filter((e) => e.kind === "user_prompt");
      expect(prompts.map((e) => [e.payload.prompt, e.payload.queued ?? false])).toEqual([
        ["SCENARIO_BASH echo ten", false],
        ["SCENARIO_BASH echo eleven", true],
      ]);
      const [ten, eleven] = s.turns.map((t) => t.turnId);
      expect(ten).toBeDefined();
      expect(eleven).toBeDefined();
      expect(eleven).not.toBe(ten);
      const answers = eventsOf(s.id).filter((e) => e.kind === "assistant_message");
      expect(answers.map((e) => [e.payload.text, e.turn_id])).toEqual([
        ["Done: ten", ten],
        ["Done: eleven", eleven],
      ]);
      await expectUndisturbed(s);
    } finally {
      writeFileSync(settings, installed);
    }
  });

  it("usage: every response the mock served is counted exactly once, in the turn that got it", () => {
    // Interactive claude can write a turn's last response to its transcript after the Stop hook read it
    // (measured: 5 of 18 turns); the recorder counts it later, in its own turn, or at SessionEnd.
    expect(sessions).toHaveLength(4);
    for (const s of sessions) {
      const usage = eventsOf(s.id).filter((e) => e.kind === "turn_usage");
      const counted = usage.map((e) => String(e.payload.message_id));
      expect(new Set(counted).size).toBe(counted.length);
      expect([...counted].sort()).toEqual(s.turns.flatMap((t) => t.served).sort());
      for (const t of s.turns) {
        expect(t.turnId, t.word).toBeDefined();
        const inTurn = usage.filter((e) => e.turn_id === t.turnId).map((e) => String(e.payload.message_id));
        expect([...inTurn].sort(), t.word).toEqual([...t.served].sort());
      }
    }
  });
});

describe("control: the screen check sees a failing hook", () => {
  const sb = useClaudeSandbox("claude-interactive-control");
  const terminals: Terminal[] = [];
  afterAll(() => {
    for (const t of terminals) t.kill();
  });

  it("a hook that fails the way a dead server did is on the screen and in the transcript", async () => {
    // What claude showed for every hook once the server of the old http hooks was gone.
    const failing = { type: "command", command: "echo 'connect ECONNREFUSED 127.0.0.1:9' >&2; exit 1" };
    mkdirSync(join(sb.projectDir, ".claude"), { recursive: true });
    writeFileSync(
      join(sb.projectDir, ".claude", "settings.local.json"),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [failing] }] } }),
    );
    const term = await startClaude(sb, terminals);
    await ask(term, "SCENARIO_BASH echo control", "Done: control");
    await exitClaude(term);
    const shown = troubleOnScreen(term.frames(), basename(sb.root));
    expect(shown).toEqual(expect.arrayContaining([expect.stringMatching(/UserPromptSubmit hook failed/)]));
    expect(shown.join("\n")).toContain("ECONNREFUSED");
    const transcripts = readdirSync(join(sb.home, ".claude", "projects"), {
      recursive: true,
      encoding: "utf8",
    })
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(sb.home, ".claude", "projects", f));
    expect(hookTrouble(transcripts)).toEqual([expect.objectContaining({ type: "hook_non_blocking_error" })]);
  });
});
