// A replay driver and spawner that run no agent: the orchestrator's order, guards and records are tested
// without a CLI (the e2e tests run the real ones).
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import type { ReplayDriver, Spawn } from "../../src/core/ports/replay-driver.ts";
import { event, identity, spec } from "../helpers/session.ts";

/** A git project with one commit and a recorded baseline of `prompts` (main agent) plus a subagent prompt. */
export function baselineProject(root: string, prompts: string[], provider = "claude"): { revision: string } {
  const git = (args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
      cwd: root,
      encoding: "utf8",
    }).trim();
  git(["init", "-q"]);
  writeFileSync(join(root, "file.txt"), "content\n");
  git(["add", "-A"]);
  git(["commit", "-q", "-m", "init"]);
  const events = [
    event("session_start", "s"),
    ...prompts.map((p, i) => event("user_prompt", `p${i}`, { prompt: p })),
    { ...event("user_prompt", "sub", { prompt: "a subagent's task" }), agent_id: "agent-1" },
    event("user_prompt", "empty", { prompt: "   " }),
  ];
  recordEvents(
    spec(root, {
      identity: identity("base-1", provider),
      sessionRoot: join(root, ".tapedeck", `${provider}-sessions`),
    }),
    events,
  );
  return { revision: git(["rev-parse", "HEAD"]) };
}

export interface FakeCall {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** Every turn answers `answer(prompt, env)`; `fail(prompt, env)` makes one exit 1. */
export function fakeSpawner(
  calls: FakeCall[],
  opts: {
    fail?: (args: string[], env: Record<string, string>) => boolean;
    cost?: number;
    answer?: string;
  } = {},
): Spawn {
  return async (command, args, { cwd, env }) => {
    calls.push({ command, args, env, cwd });
    if (args.includes("install"))
      return { code: 0, signal: null, stdout: "{}", stderr: "", timedOut: false, durationMs: 1 };
    const failed = opts.fail?.(args, env) ?? false;
    const prompt = args.at(-1) ?? "";
    const stdout = JSON.stringify({
      session_id: "new-session",
      result: opts.answer ?? `answer to ${prompt}`,
      total_cost_usd: opts.cost ?? 0.01,
    });
    return {
      code: failed ? 1 : 0,
      signal: null,
      stdout: failed ? "" : stdout,
      stderr: "",
      timedOut: false,
      durationMs: 5,
    };
  };
}

export const fakeDriver: ReplayDriver = {
  provider: "claude",
  cli: { name: "fake", npmPackage: "fake" },
  userMemoryFiles: [],
  prepareHome(paths) {
    return { settingsRoot: join(paths.home, ".fake"), env: { FAKE_HOME: paths.home }, secrets: [] };
  },
  command(bin, turn) {
    return { command: bin, args: turn.sessionId ? ["--resume", turn.sessionId, turn.prompt] : [turn.prompt] };
  },
  parse(run, turn) {
    const json = run.stdout
      ? (JSON.parse(run.stdout) as { session_id: string; result: string; total_cost_usd: number })
      : undefined;
    return {
      ok: run.code === 0,
      exitCode: run.code,
      signal: run.signal,
      timedOut: run.timedOut,
      durationMs: run.durationMs,
      sessionId: json?.session_id ?? turn.sessionId,
      ...(json ? { answer: json.result, costUsd: json.total_cost_usd } : {}),
      ...(run.code === 0 ? {} : { error: `fake exited with ${run.code}` }),
    };
  },
};
