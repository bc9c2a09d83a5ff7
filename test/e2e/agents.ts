// The real agent CLIs as the end-to-end tests drive them, one row each: the sandbox it runs in, one run of it
// there (offline, against the sandbox's mock), how a session is resumed, what a run started and answered, and
// where install writes its hooks. A test over several agents, and each agent's "run it, it exits 0", are
// written once here.
import { join } from "node:path";
import { expect } from "vitest";
import { type ClaudeResult, runClaude } from "../../src/demo/claude-offline.ts";
import { type CodexResult, runCodex } from "../../src/demo/codex-offline.ts";
import { type GeminiResult, runGemini } from "../../src/demo/gemini-offline.ts";
import { e2eAgent } from "../tiers.ts";
import {
  type ClaudeSandbox,
  type CodexSandbox,
  type GeminiSandbox,
  type Sandbox,
  useClaudeSandbox,
  useCodexSandbox,
  useGeminiSandbox,
} from "./sandboxes.ts";

/** What every agent run answers, whatever else its CLI prints. */
export interface AgentResult {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface RunOptions {
  /** The agent's own time limit (each runner's default otherwise). */
  timeoutMs?: number;
}

export interface Agent<S extends Sandbox = Sandbox, R extends AgentResult = AgentResult> {
  name: "claude" | "codex" | "gemini";
  sandbox(prefix: string): S;
  /** One run in the sandbox's project: `args` are the prompt and flags after the runner's own. */
  exec(sb: S, args: string[], opts?: RunOptions): Promise<R>;
  /** The arguments that continue `session` with `prompt`. */
  resume(session: string, prompt: string): string[];
  /** The session a run started or continued (Codex's thread). */
  session(res: R): string | undefined;
  /** The agent's final answer. */
  answer(res: R): string;
  /** The model request bodies the sandbox's mock received so far. */
  bodies(sb: S): unknown[];
  /** The project's settings file that install writes the hooks into. */
  settings(sb: S): string;
}

export const CLAUDE: Agent<ClaudeSandbox, ClaudeResult> = {
  name: "claude",
  sandbox: useClaudeSandbox,
  exec: (sb, args, opts) =>
    runClaude({ home: sb.home, cwd: sb.projectDir, baseUrl: sb.mock.url, args, ...opts }),
  resume: (session, prompt) => ["--resume", session, prompt],
  session: (res) => res.sessionId,
  answer: (res) => String(res.json?.result ?? ""),
  bodies: (sb) => sb.mock.requests.filter((r) => r.path.startsWith("/v1/messages")).map((r) => r.body),
  settings: (sb) => join(sb.projectDir, ".claude", "settings.local.json"),
};

export const CODEX: Agent<CodexSandbox, CodexResult> = {
  name: "codex",
  sandbox: useCodexSandbox,
  exec: (sb, args, opts) =>
    runCodex({ codexHome: sb.codexHome, home: sb.home, cwd: sb.projectDir, args, ...opts }),
  resume: (session, prompt) => ["resume", session, prompt],
  session: (res) => res.threadId,
  answer: (res) => res.finalMessage ?? "",
  bodies: (sb) => sb.mock.requests.map((r) => r.body),
  settings: (sb) => join(sb.projectDir, ".codex", "hooks.json"),
};

export const GEMINI: Agent<GeminiSandbox, GeminiResult> = {
  name: "gemini",
  sandbox: useGeminiSandbox,
  exec: (sb, args, opts) =>
    runGemini({ home: sb.home, cwd: sb.projectDir, baseUrl: sb.mock.url, args, ...opts }),
  // Gemini resumes by position: in these projects the latest session is always the one meant.
  resume: (_session, prompt) => ["--resume", "latest", prompt],
  session: (res) => res.sessionId,
  answer: (res) => res.response ?? "",
  bodies: (sb) => sb.mock.requests.map((r) => r.body),
  settings: (sb) => join(sb.projectDir, ".gemini", "settings.json"),
};

/**
 * The rows of a table over several agents that this run asks for: `npm run test:e2e codex` runs only Codex's
 * rows of a file that also has Claude's and Gemini's (test/tiers.ts); without an agent, every row.
 */
export function rowsFor<T>(rows: readonly T[], agentOf: (row: T) => string): T[] {
  const wanted = e2eAgent();
  return rows.filter((row) => wanted === undefined || agentOf(row) === wanted);
}

/** One run that finishes in time and exits 0; the agent's own result. */
export async function runOk<S extends Sandbox, R extends AgentResult>(
  agent: Agent<S, R>,
  sb: S,
  args: string[],
  opts?: RunOptions,
): Promise<R> {
  const res = await agent.exec(sb, args, opts);
  expect(res.timedOut, res.stderr).toBe(false);
  expect(res.code, `stdout: ${res.stdout}\nstderr: ${res.stderr}`).toBe(0);
  return res;
}

/**
 * A conversation with the agent: the first prompt starts a session and each later one resumes it; `fresh` runs a
 * prompt in a new session of its own (the conversation stays the first one's). Every run exits 0.
 */
export function conversation<S extends Sandbox, R extends AgentResult>(
  agent: Agent<S, R>,
  sb: S,
  limits?: RunOptions,
) {
  let id = "";
  const run = async (args: string[]): Promise<R> => {
    const res = await runOk(agent, sb, args, limits);
    id ||= agent.session(res)!;
    return res;
  };
  return {
    /** The conversation's session, "" before its first run. */
    get id(): string {
      return id;
    },
    say: (prompt: string) => run(id ? agent.resume(id, prompt) : [prompt]),
    fresh: (prompt: string) => run([prompt]),
  };
}
