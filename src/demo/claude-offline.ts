/**
 * Runs the real `claude` CLI (devDependency) offline against a local mock of the Messages API, with a throwaway
 * HOME so that nothing from the developer's own Claude setup leaks into a test or gets modified by it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findAgentCli, installHint } from "../providers/agent-cli.ts";
import { claudeCli } from "../providers/claude/launch.ts";
import { makeHomeDirs, type OfflineHome, offlineEnv } from "./offline-home.ts";
import { type JsonAgentRun, type OfflineRunOptions, runAgentForJson } from "./run-agent.ts";

/**
 * The `claude` the demo and the tests run, in the one lookup order (providers/agent-cli.ts: TAPEDECK_CLAUDE_BIN,
 * this checkout's pinned dev dependency, the PATH); undefined when there is none (see installHint).
 */
export const CLAUDE_BIN_FOUND: string | undefined = findAgentCli(claudeCli);
/** The same, or the bare name (for messages and the tests, which always have the dev dependency). */
export const CLAUDE_BIN: string = CLAUDE_BIN_FOUND ?? claudeCli.name;

/** Any value passes: the mock never checks it. It only has to look like a key so claude skips login. */
export const DUMMY_API_KEY = "sk-ant-dummy";

export type ClaudeHome = OfflineHome;

/**
 * Prepares a HOME in which `claude` starts without any interactive prompt (onboarding, folder trust, "use this
 * API key?", bypass-mode consent) and a git-initialised project dir, as claude's git context expects one.
 */
export function makeClaudeHome(dir: string, projectDir: string): ClaudeHome {
  const { home, projectDir: project } = makeHomeDirs(dir, projectDir);
  execFileSync("git", ["init", "-q"], { cwd: project, stdio: "ignore" });

  const projectState = {
    hasTrustDialogAccepted: true,
    hasCompletedProjectOnboarding: true,
    projectOnboardingSeenCount: 1,
    allowedTools: [],
  };
  const config = {
    hasCompletedOnboarding: true,
    numStartups: 1,
    bypassPermissionsModeAccepted: true,
    // claude remembers approved keys by their last 20 characters; only the interactive TUI asks.
    customApiKeyResponses: { approved: [DUMMY_API_KEY.trim().slice(-20)], rejected: [] },
    // Both spellings: the caller may pass a symlinked path (e.g. macOS /var -> /private/var).
    projects: { [project]: projectState, [projectDir]: projectState },
  };
  writeFileSync(join(home, ".claude.json"), JSON.stringify(config, null, 2));
  mkdirSync(join(home, ".claude"), { recursive: true });
  return { home, projectDir: project };
}

/**
 * `args`: prompt and flags, e.g. `["SCENARIO_BASH echo hi"]` or `["--resume", id, "/compact"]`; `-p`,
 * `--output-format json` and `--permission-mode bypassPermissions` are added unless already present. The
 * timeout is 45 s unless given.
 */
export interface RunClaudeOptions extends OfflineRunOptions {
  /** The mock's URL, e.g. `http://127.0.0.1:40123`. */
  baseUrl: string;
}

/** `json`: the `--output-format json` result. */
export type ClaudeResult = JsonAgentRun;

function withDefaultArgs(args: string[]): string[] {
  const out = [...args];
  if (!out.includes("-p") && !out.includes("--print")) out.unshift("-p");
  if (!out.includes("--output-format")) out.push("--output-format", "json");
  if (!out.includes("--permission-mode") && !out.includes("--dangerously-skip-permissions")) {
    out.push("--permission-mode", "bypassPermissions");
  }
  return out;
}

/** The whole environment of an offline claude (print mode or interactive): nothing inherited but PATH. */
export function offlineClaudeEnv(home: string, baseUrl: string, extra?: Record<string, string>) {
  // Keeps claude's per-session scratch (task outputs, sockets) inside HOME, so deleting the test dir cleans it.
  const scratch = join(home, ".claude-tmp");
  mkdirSync(scratch, { recursive: true, mode: 0o700 });
  return offlineEnv(home, {
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: DUMMY_API_KEY,
    DISABLE_TELEMETRY: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    // bypassPermissions refuses to run as root unless claude believes it is sandboxed.
    IS_SANDBOX: "1",
    CLAUDE_CODE_TMPDIR: scratch,
    ...extra,
  });
}

export async function runClaude(opts: RunClaudeOptions): Promise<ClaudeResult> {
  const env = offlineClaudeEnv(opts.home, opts.baseUrl, opts.env);
  if (!CLAUDE_BIN_FOUND) throw new Error(installHint(claudeCli));
  return runAgentForJson(CLAUDE_BIN, withDefaultArgs(opts.args), {
    cwd: opts.cwd,
    env,
    timeoutMs: opts.timeoutMs ?? 45_000,
  });
}

/** claude's project slug: every non-alphanumeric character of the real cwd becomes `-`. */
export function claudeProjectSlug(projectDir: string): string {
  return realpathSync(projectDir).replace(/[^a-zA-Z0-9]/g, "-");
}

export function claudeTranscriptPath(home: string, projectDir: string, sessionId: string): string {
  return join(home, ".claude", "projects", claudeProjectSlug(projectDir), `${sessionId}.jsonl`);
}
