/**
 * Runs the real `codex` CLI (devDependency, 0.171) offline against a local mock of the Responses API, with a
 * throwaway HOME and CODEX_HOME so that nothing from the developer's own Codex setup leaks into a test or gets
 * modified by it.
 *
 * What offline needs (measured): a custom model provider in `$CODEX_HOME/config.toml` (`wire_api = "responses"`,
 * `base_url` ending in `/v1`, `env_key` naming a variable that holds any value), retries off so a broken mock
 * fails fast, `supports_websockets = false`, and the project listed as trusted, or codex ignores its
 * `.codex/` layer (hooks included). Hooks in `.codex/hooks.json` then still need trust: `runCodex` passes
 * `--dangerously-bypass-hook-trust` unless told otherwise.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findAgentCli } from "../providers/agent-cli.ts";
import { codexCli } from "../providers/codex/launch.ts";
import { makeHomeDirs, type OfflineHome, offlineEnv } from "./offline-home.ts";
import { type AgentRun, type OfflineRunOptions, runAgentProcess } from "./run-agent.ts";

/**
 * The `codex` the tests run, in the one lookup order (providers/agent-cli.ts: TAPEDECK_CODEX_BIN, this checkout's
 * pinned dev dependency, the PATH), else the bare name.
 */
export const CODEX_BIN: string = findAgentCli(codexCli) ?? codexCli.name;

/** The variable the mock provider's `env_key` names; any value passes, the mock never checks it. */
export const MOCK_KEY_ENV = "TAPEDECK_MOCK_OPENAI_KEY";
export const DUMMY_OPENAI_KEY = "sk-mock-dummy";
export const MOCK_MODEL = "gpt-mock";

/** A run's HOME and project; CODEX_HOME is `<home>/.codex`. */
export interface CodexHome extends OfflineHome {
  codexHome: string;
}

export interface MakeCodexHomeOptions {
  /** Extra top-level config lines (TOML), e.g. `model_auto_compact_token_limit = 2000`. */
  extraConfig?: string;
  /** Initialise the project as a git repository (default true: codex finds the project root by `.git`). */
  git?: boolean;
}

/** A TOML basic string: JSON's escapes (\\ \" \n \t \uXXXX ...) are all valid TOML escapes. */
export function tomlString(s: string): string {
  return JSON.stringify(s);
}

/**
 * Prepares `<dir>` as HOME with `<dir>/.codex/config.toml` pointing codex at the mock (`baseUrl`, with or
 * without the `/v1` suffix), `approval_policy = "never"`, `sandbox_mode = "danger-full-access"`, the project
 * trusted, and nothing that goes to the network (no update check, no analytics, no feedback, no web search).
 */
export function makeCodexHome(
  dir: string,
  projectDir: string,
  baseUrl: string,
  opts: MakeCodexHomeOptions = {},
): CodexHome {
  const { home, projectDir: project } = makeHomeDirs(dir, projectDir);
  if (opts.git !== false && !existsSync(join(project, ".git"))) {
    // Codex finds the project root (whose .codex/ it reads) by `.git`.
    try {
      execFileSync("git", ["init", "-q"], { cwd: project, stdio: "ignore" });
    } catch {
      // No git binary: a minimal repository layout is marker enough.
      mkdirSync(join(project, ".git", "refs", "heads"), { recursive: true });
      mkdirSync(join(project, ".git", "objects"), { recursive: true });
      writeFileSync(join(project, ".git", "HEAD"), "ref: refs/heads/main\n");
    }
  }
  const codexHome = join(home, ".codex");
  mkdirSync(codexHome, { recursive: true });
  const url = baseUrl.replace(/\/+$/, "");
  const v1 = url.endsWith("/v1") ? url : `${url}/v1`;
  const projects = new Set([project, projectDir]);
  const lines = [
    `model = ${tomlString(MOCK_MODEL)}`,
    `model_provider = "mock"`,
    `approval_policy = "never"`,
    `sandbox_mode = "danger-full-access"`,
    `check_for_update_on_startup = false`,
    `web_search = "disabled"`,
    ...(opts.extraConfig ? [opts.extraConfig] : []),
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[feedback]",
    "enabled = false",
    "",
    "[model_providers.mock]",
    `name = "mock"`,
    `base_url = ${tomlString(v1)}`,
    `env_key = ${tomlString(MOCK_KEY_ENV)}`,
    `wire_api = "responses"`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "supports_websockets = false",
    "",
    // Hooks are on by default in 0.171; said explicitly so a future default cannot silently switch them off.
    "[features]",
    "hooks = true",
    "",
    ...[...projects].flatMap((p) => [`[projects.${tomlString(p)}]`, `trust_level = "trusted"`, ""]),
  ];
  writeFileSync(join(codexHome, "config.toml"), `${lines.join("\n")}\n`);
  return { home, codexHome, projectDir: project };
}

/**
 * `args`: the arguments after `codex exec`, e.g. `["SCENARIO_BASH echo hi"]` or `["resume", threadId, "next
 * prompt"]`; `--json` and `--dangerously-bypass-hook-trust` are added (after `resume` for a resume) unless
 * present. The timeout is 60 s unless given.
 */
export interface RunCodexOptions extends OfflineRunOptions {
  codexHome: string;
  /** Run with the hooks' trust as stored in config.toml instead of bypassing it. */
  trustHooks?: "bypass" | "stored";
  /** Run through `tapedeck run codex --` (the built CLI at this path) so the calls pass the proxy. */
  viaTapedeck?: string;
}

/** One line of `codex exec --json`. */
export interface CodexJsonEvent {
  type: string;
  thread_id?: string;
  item?: CodexItem;
  usage?: CodexTurnUsage;
  error?: { message?: string };
  message?: string;
  [k: string]: unknown;
}

export interface CodexItem {
  id: string;
  type: string;
  text?: string;
  message?: string;
  command?: string;
  aggregated_output?: string;
  exit_code?: number | null;
  status?: string;
  tool?: string;
  receiver_thread_ids?: string[];
  [k: string]: unknown;
}

/** `turn.completed.usage`: codex's running total for the THREAD, not this turn's count. */
export interface CodexTurnUsage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens?: number;
  output_tokens: number;
  reasoning_output_tokens: number;
}

export interface CodexResult extends AgentRun {
  events: CodexJsonEvent[];
  /** Lines of stdout that were not JSON. */
  unparsed: string[];
  threadId?: string;
  /** Completed items, in order (warnings are items of type `error`). */
  items: CodexItem[];
  /** The text of the last completed agent_message. */
  finalMessage?: string;
  /** The usage of the last `turn.completed` (cumulative over the thread, see CodexTurnUsage). */
  turnUsage?: CodexTurnUsage;
  turnFailed?: string;
}

function withDefaultArgs(args: string[], trust: "bypass" | "stored"): string[] {
  const out = [...args];
  const at = out[0] === "resume" ? 1 : 0;
  const extra: string[] = [];
  if (!out.includes("--json")) extra.push("--json");
  if (trust === "bypass" && !out.includes("--dangerously-bypass-hook-trust")) {
    extra.push("--dangerously-bypass-hook-trust");
  }
  out.splice(at, 0, ...extra);
  return ["exec", ...out];
}

/** Parses `codex exec --json` output. */
export function parseCodexJson(stdout: string): Omit<CodexResult, keyof AgentRun> {
  const events: CodexJsonEvent[] = [];
  const unparsed: string[] = [];
  for (const line of stdout.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const value = JSON.parse(line) as unknown;
      if (value && typeof value === "object" && typeof (value as { type?: unknown }).type === "string") {
        events.push(value as CodexJsonEvent);
      } else unparsed.push(line);
    } catch {
      unparsed.push(line);
    }
  }
  const items = events.filter((e) => e.type === "item.completed" && e.item).map((e) => e.item as CodexItem);
  const out: ReturnType<typeof parseCodexJson> = { events, unparsed, items };
  const started = events.find((e) => e.type === "thread.started");
  if (typeof started?.thread_id === "string") out.threadId = started.thread_id;
  const final = items.filter((i) => i.type === "agent_message").at(-1);
  if (typeof final?.text === "string") out.finalMessage = final.text;
  const completed = events.filter((e) => e.type === "turn.completed").at(-1);
  if (completed?.usage) out.turnUsage = completed.usage;
  const failed = events.filter((e) => e.type === "turn.failed").at(-1);
  if (failed) out.turnFailed = failed.error?.message ?? "turn failed";
  return out;
}

export async function runCodex(opts: RunCodexOptions): Promise<CodexResult> {
  const tmp = join(opts.home, ".tmp");
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const env = offlineEnv(opts.home, {
    CODEX_HOME: opts.codexHome,
    [MOCK_KEY_ENV]: DUMMY_OPENAI_KEY,
    TMPDIR: tmp,
    // Keeps codex's own logging quiet and its terminal detection stable.
    RUST_LOG: "error",
    TERM: "dumb",
    NO_COLOR: "1",
    ...opts.env,
  });
  const args = withDefaultArgs(opts.args, opts.trustHooks ?? "bypass");
  const [command, argv] = opts.viaTapedeck
    ? [process.execPath, [opts.viaTapedeck, "run", "codex", "--", ...args]]
    : [CODEX_BIN, args];
  if (opts.viaTapedeck) env.TAPEDECK_CODEX_BIN = CODEX_BIN;
  const run = await runAgentProcess(command, argv, {
    cwd: opts.cwd,
    env,
    timeoutMs: opts.timeoutMs ?? 60_000,
  });
  return { ...run, ...parseCodexJson(run.stdout) };
}
