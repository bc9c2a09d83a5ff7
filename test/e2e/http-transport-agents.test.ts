// @module-tag codex
// @module-tag gemini
// The http transport (the default) with the real `codex` and `gemini`: every hook is the bash client of the
// project's hook server, which records in-process whenever the server is down. The same archive as the
// command transport records (test/e2e/codex-record.test.ts, gemini-record.test.ts cover that one in depth),
// nothing on the agent's output, and a server killed between runs, its port taken by another user, noticed by
// nobody.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Envelope } from "../../src/core/archive/schemas.ts";
import { parseClientCommand } from "../../src/serve/client-command.ts";
import { liveServer, readRunFile, runFilePath } from "../../src/serve/runfile.ts";
import { until } from "../helpers/poll.ts";
import { type Agent, CODEX, GEMINI, type RunOptions, runOk } from "./agents.ts";
import { expectNoSecrets, readEventsFile, walk } from "./archive-checks.ts";
import { GITHUB_TOKEN, plantSecrets } from "./planted-secrets.ts";
import { hookServerPids, type Sandbox, useBuild } from "./sandboxes.ts";
import { squatAsNobody } from "./squatter.ts";

useBuild();

const { needles: NEEDLES } = plantSecrets({ github_token: GITHUB_TOKEN });

const runFileOf = (sb: Sandbox) => runFilePath(sb.projectDir, { TAPEDECK_HOME: join(sb.home, ".tapedeck") });

function describeAgent(agent: Agent, sb: Sandbox, limits: RunOptions = {}): void {
  /** One prompt, in a new session or resuming `resumed`: the session and what the agent printed. */
  const say = async (prompt: string, resumed?: string) => {
    const res = await runOk(agent, sb, resumed ? agent.resume(resumed, prompt) : [prompt], limits);
    return { session: agent.session(res)!, stdout: res.stdout, stderr: res.stderr };
  };
  const kinds = (events: Envelope[]) => events.map((e) => e.kind);
  const events = (id: string) =>
    readEventsFile(join(sb.projectDir, ".tapedeck", `${agent.name}-sessions`, id, "events.jsonl"));
  let session = "";
  // What the agents print on their own (Codex's "Reading additional input", Gemini's YOLO and terminal
  // warnings) is theirs; a failing hook would be named (Codex, Gemini: "[WARNING] Hook(s) [...] failed").
  // Gemini's one-time notice of new project hooks (it names them, "tapedeck") is its own too.
  const expectOwnStderr = (stderr: string) =>
    expect(
      stderr.replace(/WARNING: The following project-level hooks[\s\S]*?remove them\.\n/, ""),
    ).not.toMatch(/hook|tapedeck|ECONNREFUSED|EACCES/i);
  let firstKinds: string[] = [];

  it("install defaults to the http transport: every hook runs the hook client", async () => {
    const res = await sb.cli(["install", agent.name, "--project", sb.projectDir, "--yes"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^Transport +http$/m);
    const text = (await import("node:fs")).readFileSync(agent.settings(sb), "utf8");
    const commands = [...text.matchAll(/"command": "((?:[^"\\]|\\.)*)"/g)].map((m) =>
      JSON.parse(`"${m[1]}"`),
    );
    const ours = commands.filter((c: string) => c.endsWith("# tapedeck"));
    expect(ours.length).toBeGreaterThan(5);
    for (const c of ours) {
      expect(parseClientCommand(c), c).toMatchObject({ provider: agent.name, runFile: runFileOf(sb) });
    }
  });

  it("records a run with a shell command, nothing on the agent's output; the run's first hook started the server", async () => {
    const prompt = `SCENARIO_BASH echo hello token=${GITHUB_TOKEN}`;
    const res = await say(prompt);
    session = res.session;
    expectOwnStderr(res.stderr);
    expect(res.stdout).not.toMatch(/tapedeck|hook-client|ECONNREFUSED/);
    firstKinds = kinds(events(session));
    expect(firstKinds).toEqual(
      expect.arrayContaining(["session_start", "user_prompt", "tool_call", "tool_result"]),
    );
    expect(firstKinds.at(-1)).toBe("session_end");
    expect(await until(() => liveServer(runFileOf(sb)) !== undefined)).toBe(true);
    expectNoSecrets(join(sb.projectDir, ".tapedeck"), NEEDLES);
  });

  it("a warm server records the next run the same way, and only one server runs", async () => {
    const before = events(session).length;
    const res = await say("SCENARIO_BASH echo again", session);
    expect(res.session).toBe(session);
    expectOwnStderr(res.stderr);
    const added = kinds(events(session).slice(before));
    expect(added).toEqual(expect.arrayContaining(["user_prompt", "tool_call", "tool_result", "session_end"]));
    const info = liveServer(runFileOf(sb))!;
    expect(hookServerPids(sb.projectDir)).toEqual([info.pid]);
  });

  it("the server killed, its port taken by another user: nothing reaches them, nothing shows, every event is recorded", async () => {
    const info = readRunFile(runFileOf(sb))!;
    process.kill(info.pid, "SIGKILL");
    expect(await until(() => liveServer(runFileOf(sb)) === undefined)).toBe(true);
    const squatter = await squatAsNobody(info.port);
    try {
      const before = events(session).length;
      const res = await say("SCENARIO_BASH echo while-squatted", session);
      expectOwnStderr(res.stderr);
      expect(res.stdout).not.toMatch(/tapedeck|hook-client|ECONNREFUSED/);
      const added = kinds(events(session).slice(before));
      expect(added).toEqual(
        expect.arrayContaining(["user_prompt", "tool_call", "tool_result", "session_end"]),
      );
      expect(squatter.received()).toEqual([]);
    } finally {
      await squatter.close();
    }
  });

  it("uninstall stops the server and leaves no process behind", async () => {
    // The squatted run's failed start holds its claim for 5 s; a hook after that brings the server back.
    let back = false;
    for (let attempt = 0; attempt < 4 && !back; attempt += 1) {
      await say("SCENARIO_BASH echo back", session);
      back = await until(() => liveServer(runFileOf(sb)) !== undefined, 2500);
    }
    expect(back).toBe(true);
    const res = await sb.cli(["uninstall", agent.name, "--project", sb.projectDir]);
    expect(res.code, res.stderr).toBe(0);
    expect(
      await until(() => hookServerPids(sb.projectDir).length === 0),
      `servers: ${hookServerPids(sb.projectDir)}`,
    ).toBe(true);
    expect(walk(join(sb.home, ".tapedeck", "run")).filter((f) => f.path.endsWith(".endpoint"))).toEqual([]);
  });
}

describe("the real codex over the http transport", () => {
  describeAgent(CODEX, CODEX.sandbox("codex-http"));
});

describe("the real gemini over the http transport", () => {
  describeAgent(GEMINI, GEMINI.sandbox("gemini-http"), { timeoutMs: 45_000 });
});
