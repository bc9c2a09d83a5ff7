// Throwaway HOME + project + mock model server for an end-to-end test file, one per describe block, removed
// afterwards; and the built CLI run inside it.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { type AnthropicMock, startAnthropicMock } from "../../src/demo/anthropic-mock.ts";
import { makeClaudeHome } from "../../src/demo/claude-offline.ts";
import { makeCodexHome } from "../../src/demo/codex-offline.ts";
import { type GeminiMock, startGeminiMock } from "../../src/demo/gemini-mock.ts";
import { makeGeminiHome } from "../../src/demo/gemini-offline.ts";
import {
  type OpenAIResponsesMock,
  type ResponsesScript,
  startOpenAIResponsesMock,
} from "../../src/demo/openai-responses-mock.ts";
import { type CliResult, runCli } from "./archive-checks.ts";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
export const CLI_JS = join(REPO, "dist", "cli.js");
export const HOOK_JS = join(REPO, "dist", "hook.cjs");
export const SERVE_JS = join(REPO, "dist", "serve.js");

/** Pids of the http hook servers (`dist/serve.js`) running for this project. */
export function hookServerPids(projectDir: string): number[] {
  const table = execFileSync("ps", ["-ax", "-o", "pid=,args="], { encoding: "utf8" });
  return table
    .split("\n")
    .filter((line) => line.includes(SERVE_JS) && line.includes(` --project ${projectDir} `))
    .map((line) => Number.parseInt(line.trim(), 10));
}

/** CI builds before vitest; a local run of one file may not have. */
export function useBuild(): void {
  beforeAll(() => {
    if (!["cli.js", "hook.cjs", "mcp.js"].every((f) => existsSync(join(REPO, "dist", f)))) {
      execFileSync("npm", ["run", "build", "--silent"], { cwd: REPO, stdio: "inherit" });
    }
  }, 120_000);
}

export interface Sandbox {
  root: string;
  home: string;
  projectDir: string;
  /** The environment the CLI and the agent run with (HOME and, for codex, CODEX_HOME). */
  env: Record<string, string>;
  /** Runs the built CLI in the project, with `env` on top of the sandbox's. */
  cli(args: string[], env?: Record<string, string>): Promise<CliResult>;
}

/** A sandbox's mock model server, closed when the sandbox is removed. */
interface Mock {
  url: string;
  close(): Promise<void>;
}

function sandbox<T extends Sandbox & { mock: Mock }>(
  prefix: string,
  setUp: (sb: T) => Promise<void>,
  tearDown: (sb: T) => void = () => {},
): T {
  const sb = {} as T;
  beforeAll(async () => {
    sb.root = mkdtempSync(join(tmpdir(), `tapedeck-${prefix}-`));
    await setUp(sb);
    sb.cli = (args) =>
      runCli(CLI_JS, args, {
        cwd: sb.projectDir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...sb.env },
      });
  });
  afterAll(async () => {
    await sb.mock?.close();
    tearDown(sb);
    if (sb.root) rmSync(sb.root, { recursive: true, force: true });
  });
  return sb;
}

/** A sandbox of an agent that keeps its state under HOME alone: `makeHome` lays out home and project. */
function homeSandbox<T extends Sandbox & { mock: Mock }>(
  prefix: string,
  makeHome: (home: string, project: string) => { home: string; projectDir: string },
  startMock: () => Promise<T["mock"]>,
  tearDown?: (sb: T) => void,
): T {
  return sandbox<T>(
    prefix,
    async (sb) => {
      Object.assign(sb, makeHome(join(sb.root, "home"), join(sb.root, "project")));
      sb.env = { HOME: sb.home };
      sb.mock = await startMock();
    },
    tearDown,
  );
}

export interface ClaudeSandbox extends Sandbox {
  mock: AnthropicMock;
}

export function useClaudeSandbox(prefix: string): ClaudeSandbox {
  return homeSandbox<ClaudeSandbox>(
    prefix,
    makeClaudeHome,
    () => startAnthropicMock({ port: 0 }),
    (sb) => {
      // Claude's default transport starts a hook server per project; it exits by itself a few seconds after
      // its agents, but not before the sandbox is removed.
      if (!sb.projectDir) return;
      for (const pid of hookServerPids(sb.projectDir)) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    },
  );
}

export interface CodexSandbox extends Sandbox {
  codexHome: string;
  mock: OpenAIResponsesMock;
}

/** `script`: the mock's replies where the test wants its own (a text before a call). */
export function useCodexSandbox(prefix: string, opts: { script?: ResponsesScript } = {}): CodexSandbox {
  return sandbox<CodexSandbox>(prefix, async (sb) => {
    sb.mock = await startOpenAIResponsesMock({ port: 0, ...opts });
    Object.assign(sb, makeCodexHome(join(sb.root, "home"), join(sb.root, "project"), sb.mock.url));
    sb.env = { HOME: sb.home, CODEX_HOME: sb.codexHome };
  });
}

export interface GeminiSandbox extends Sandbox {
  mock: GeminiMock;
}

export function useGeminiSandbox(prefix: string): GeminiSandbox {
  return homeSandbox<GeminiSandbox>(prefix, makeGeminiHome, () => startGeminiMock({ port: 0 }));
}
