// The baseline session a replay, scenario or experiment test starts from, recorded the one way each of
// those tests did by hand: the project committed with the provider's memory file, tapedeck's hooks
// installed (command transport), then the real agent run offline on the first prompt and resumed on each
// further one, every run exiting 0.
import { join } from "node:path";
import { expect } from "vitest";
import { type AnthropicMock, startAnthropicMock } from "../../src/demo/anthropic-mock.ts";
import { DUMMY_OPENAI_KEY, MOCK_KEY_ENV, runCodex } from "../../src/demo/codex-offline.ts";
import { DUMMY_GEMINI_KEY, runGemini } from "../../src/demo/gemini-offline.ts";
import { offlineClaudeEnv, runClaude } from "./claude-runner.ts";
import { commitProject, tapedeck } from "./replay-harness.ts";
import type { ClaudeSandbox, CodexSandbox, GeminiSandbox } from "./sandboxes.ts";

export type Provider = "claude" | "codex" | "gemini";

interface AgentRun {
  code: number | null;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: the agent's own result object (claude's and gemini's JSON).
  json?: any;
}

interface Agent {
  memoryFile: string;
  /** The environment tapedeck (and through it a replayed agent) runs with. */
  env: Record<string, string>;
  /** One run of the agent: a new session, or `resume` of one; its result and the session's id. */
  run(prompt: string, resume?: string): Promise<{ result: AgentRun; id: string | undefined }>;
}

/** An agent whose session `resume` continues through `resumeFlag` (`--resume`, codex's `resume` subcommand). */
function agentOf(
  memoryFile: string,
  env: Record<string, string>,
  resumeFlag: string,
  run: (args: string[]) => Promise<{ result: AgentRun; id: string | undefined }>,
): Agent {
  return { memoryFile, env, run: (prompt, resume) => run(resume ? [resumeFlag, resume, prompt] : [prompt]) };
}

/** Claude against `baseUrl` (the sandbox's mock unless the test runs one of its own). */
export function claudeAgent(sb: ClaudeSandbox, baseUrl = sb.mock.url): Agent {
  return agentOf("CLAUDE.md", offlineClaudeEnv(sb.home, baseUrl), "--resume", async (args) => {
    const result = await runClaude({ home: sb.home, cwd: sb.projectDir, baseUrl, args });
    return { result, id: result.sessionId };
  });
}

export function codexAgent(sb: CodexSandbox): Agent {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: sb.home,
    CODEX_HOME: sb.codexHome,
    [MOCK_KEY_ENV]: DUMMY_OPENAI_KEY,
  };
  return agentOf("AGENTS.md", env, "resume", async (args) => {
    const result = await runCodex({ home: sb.home, codexHome: sb.codexHome, cwd: sb.projectDir, args });
    return { result, id: result.threadId };
  });
}

export function geminiAgent(sb: GeminiSandbox): Agent {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: sb.home,
    GOOGLE_GEMINI_BASE_URL: sb.mock.url,
    GEMINI_API_KEY: DUMMY_GEMINI_KEY,
    GEMINI_CLI_NO_RELAUNCH: "true",
  };
  return agentOf("GEMINI.md", env, "--resume", async (args) => {
    const result = await runGemini({ home: sb.home, cwd: sb.projectDir, baseUrl: sb.mock.url, args });
    return { result, id: result.sessionId };
  });
}

export interface Baseline {
  /** The provider's session id (claude's and gemini's session, codex's thread). */
  id: string;
  /** The session's directory in the project's archive. */
  archive: string;
  /** The project's commit. */
  revision: string;
  /** Each run's result, in the order of the prompts. */
  runs: AgentRun[];
}

/** Records one session of `prompts` in the sandbox's project, whose memory file holds `fact`. */
export async function recordBaseline(
  provider: Provider,
  sb: { projectDir: string },
  agent: Agent,
  opts: { fact: string; prompts: readonly string[] },
): Promise<Baseline> {
  const revision = commitProject(sb.projectDir, agent.memoryFile, opts.fact);
  const installed = await tapedeck(["install", provider, "--transport", "command", "--yes"], {
    cwd: sb.projectDir,
    env: agent.env,
  });
  expect(installed.code, installed.stderr).toBe(0);
  const runs: AgentRun[] = [];
  let id: string | undefined;
  for (const prompt of opts.prompts) {
    const next = await agent.run(prompt, id);
    expect(next.result.code, next.result.stderr).toBe(0);
    runs.push(next.result);
    id ??= next.id;
  }
  expect(id, "the first run names its session").toBeDefined();
  return { id: id!, archive: join(sb.projectDir, ".tapedeck", `${provider}-sessions`, id!), revision, runs };
}

/** A mock claude that knows the codename only when the project's memory file (holding it) reached the request. */
export function startRecallMock(codename: string): Promise<AnthropicMock> {
  return startAnthropicMock({
    port: 0,
    script: (ctx) => {
      if (!ctx.promptText.includes("SCENARIO_RECALL") || ctx.toolResult) return undefined;
      const knows = JSON.stringify(ctx.body).includes(codename);
      const text = knows ? `The codename is ${codename}.` : "I do not know the codename.";
      return {
        kind: "message",
        scenario: "recall",
        content: [{ type: "text", text }],
        stopReason: "end_turn",
      };
    },
  });
}

/** What a recall baseline's CLAUDE.md holds, and the prompt that asks for it. */
export const CODENAME = "ZEPHYR-7";
export const CODENAME_FACT = `The project codename is ${CODENAME}.`;
export const RECALL = "SCENARIO_RECALL what is the codename?";

/**
 * A claude baseline of `first`, then the codename asked for, against `mock` (startRecallMock(CODENAME)): the
 * answer depends on the context, so the codename comes back only because CLAUDE.md reached the request.
 */
export async function recordRecallBaseline(
  sb: ClaudeSandbox,
  mock: AnthropicMock,
  first: string,
): Promise<{ baseline: Baseline; env: Record<string, string> }> {
  const agent = claudeAgent(sb, mock.url);
  const baseline = await recordBaseline("claude", sb, agent, {
    fact: CODENAME_FACT,
    prompts: [first, RECALL],
  });
  expect(baseline.runs[1]!.json?.result).toBe(`The codename is ${CODENAME}.`);
  return { baseline, env: agent.env };
}
