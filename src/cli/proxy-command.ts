// proxy, run, mirror restore: the API capture path.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { codexBaseUrlOverride, codexEndpoint } from "../providers/codex/endpoint.ts";
import { createArchiveFeed } from "../proxy/archive-feed.ts";
import { createMirrorExtension } from "../proxy/mirror/extension.ts";
import { RestoreError, restoreMirror } from "../proxy/mirror/restore.ts";
import { loadMirrorSettings, type MirrorOverrides } from "../proxy/mirror/settings.ts";
import { type RunningProxy, startProxy } from "../proxy/server.ts";
import type { ProxyExtension } from "../proxy/types.ts";
import { CliError, EXIT, printJson, projectFromOption } from "./common.ts";
import { builtFile } from "./paths.ts";

interface ProxyOpts {
  port?: string;
  upstream?: string;
  mirror?: boolean;
  mirrorDir?: string;
  mirrorRedact?: boolean;
  thinking?: boolean;
  json?: boolean;
}

const ANTHROPIC_API = "https://api.anthropic.com";

function mirrorOverrides(opts: ProxyOpts): MirrorOverrides {
  const o: MirrorOverrides = {};
  if (opts.mirror !== undefined) o.enabled = opts.mirror;
  if (opts.mirrorDir) o.dir = opts.mirrorDir;
  if (opts.mirrorRedact === false) o.redact = false;
  if (opts.thinking === false) o.includeThinking = false;
  return o;
}

function extensionsFor(opts: ProxyOpts): {
  extensions: ProxyExtension[];
  mirror: boolean;
  mirrorDir: string;
} {
  const loaded = loadMirrorSettings({
    overrides: mirrorOverrides(opts),
    warn: (m) => process.stderr.write(`tapedeck: mirror setting ignored: ${m}\n`),
  });
  const extensions: ProxyExtension[] = [createArchiveFeed()];
  if (loaded.settings.enabled) extensions.push(createMirrorExtension(loaded.settings));
  return { extensions, mirror: loaded.settings.enabled, mirrorDir: loaded.settings.dir };
}

function parsePort(port: string | undefined): number {
  if (port === undefined) return 0;
  const n = Number(port);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`invalid port "${port}"`, EXIT.usage);
  return n;
}

function checkUpstream(url: string): string {
  try {
    const u = new URL(url);
    if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("protocol");
    return url;
  } catch {
    throw new CliError(`invalid upstream URL "${url}"`, EXIT.usage);
  }
}

async function start(
  opts: ProxyOpts,
  upstream: string,
): Promise<{ proxy: RunningProxy; mirror: boolean; mirrorDir: string }> {
  const { extensions, mirror, mirrorDir } = extensionsFor(opts);
  try {
    const proxy = await startProxy({
      port: parsePort(opts.port),
      upstream: checkUpstream(upstream),
      extensions,
    });
    return { proxy, mirror, mirrorDir };
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot start the proxy: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

async function proxyCommand(opts: ProxyOpts): Promise<void> {
  const upstream = opts.upstream ?? ANTHROPIC_API;
  const { proxy, mirror, mirrorDir } = await start(opts, upstream);
  if (opts.json)
    printJson({ url: proxy.url, port: proxy.port, upstream, mirror, mirror_dir: mirror ? mirrorDir : null });
  else {
    process.stderr.write(
      [
        `tapedeck proxy on ${proxy.url} -> ${upstream}`,
        `mirror: ${mirror ? `on (${mirrorDir})` : "off"}   archive feed: on for projects with recording on`,
        `use it with: ANTHROPIC_BASE_URL=${proxy.url} claude`,
        `         or: codex -c 'openai_base_url="${proxy.url}/v1"' with --upstream https://api.openai.com (a custom provider: model_providers.<id>.base_url); tapedeck run codex sets this up`,
        "Ctrl-C to stop",
      ].join("\n") + "\n",
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      void proxy.close().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

/** The agent binary to run: the one on PATH, else this package's dev dependency. */
function agentBinary(name: string, override: string | undefined): string {
  if (override) return override;
  const local = join(builtFile("cli.js"), "..", "..", "node_modules", ".bin", name);
  const onPath = (process.env.PATH ?? "").split(":").some((d) => d && existsSync(join(d, name)));
  return onPath || !existsSync(local) ? name : local;
}

interface AgentLaunch {
  binary: string;
  /** The API the agent would have called. */
  upstream: string;
  /** The agent's command line and environment, pointed at the proxy. */
  through(proxyUrl: string): { args: string[]; env: NodeJS.ProcessEnv };
}

function claudeLaunch(args: string[], opts: ProxyOpts): AgentLaunch {
  return {
    binary: agentBinary("claude", process.env.TAPEDECK_CLAUDE_BIN),
    upstream: opts.upstream ?? process.env.ANTHROPIC_BASE_URL ?? ANTHROPIC_API,
    through: (url) => ({ args, env: { ...process.env, ANTHROPIC_BASE_URL: url } }),
  };
}

/**
 * Codex keeps its API URL in config: the run gets a `-c` override of the active provider's base URL. The proxy
 * forwards to the URL's origin and Codex keeps the path, so the proxy sees `/v1/responses` as the API would.
 */
function codexLaunch(args: string[], opts: ProxyOpts): AgentLaunch {
  const endpoint = codexEndpoint(args);
  if (endpoint.userOverride) {
    throw new CliError(
      `the command line sets -c ${endpoint.userOverride}, which would send codex around the proxy; drop it and pass its URL as --upstream`,
      EXIT.usage,
    );
  }
  if (endpoint.chatgpt && !opts.upstream) {
    throw new CliError(
      "codex is signed in with ChatGPT, so it calls ChatGPT's backend, not the OpenAI API the proxy forwards to; use an API key (OPENAI_API_KEY or `codex login --with-api-key`) or a custom model provider, or pass --upstream",
      EXIT.usage,
    );
  }
  const base = opts.upstream ?? endpoint.baseUrl;
  if (!base) {
    throw new CliError(
      `codex's model provider "${endpoint.provider}" has no base_url in ${endpoint.from}; pass --upstream <url>`,
      EXIT.usage,
    );
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new CliError(`invalid upstream URL "${base}"`, EXIT.usage);
  }
  const path = url.pathname.replace(/\/+$/, "");
  return {
    binary: agentBinary("codex", process.env.TAPEDECK_CODEX_BIN),
    upstream: url.origin,
    through: (proxyUrl) => ({
      args: [...codexBaseUrlOverride(endpoint.provider, `${proxyUrl}${path}`), ...args],
      env: process.env,
    }),
  };
}

const LAUNCHERS: Record<string, (args: string[], opts: ProxyOpts) => AgentLaunch> = {
  claude: claudeLaunch,
  codex: codexLaunch,
};

async function runCommand(agent: string, args: string[], opts: ProxyOpts): Promise<void> {
  const launcher = LAUNCHERS[agent];
  if (!launcher) {
    throw new CliError(`cannot run "${agent}" (available: ${Object.keys(LAUNCHERS).join(", ")})`, EXIT.usage);
  }
  const launch = launcher(args, opts);
  const { proxy } = await start(opts, launch.upstream);
  const spec = launch.through(proxy.url);
  const child = spawn(launch.binary, spec.args, { stdio: "inherit", env: spec.env });
  const forward = (signal: NodeJS.Signals) => () => {
    child.kill(signal);
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const handlers = signals.map((s) => [s, forward(s)] as const);
  for (const [s, h] of handlers) process.on(s, h);
  const code = await new Promise<number>((resolve) => {
    child.on("error", (error) => {
      process.stderr.write(
        `tapedeck: cannot run ${agent}: ${(error as NodeJS.ErrnoException).code ?? "error"}\n`,
      );
      resolve(127);
    });
    child.on("exit", (c, signal) => resolve(c ?? (signal ? 128 + (signalNumber(signal) ?? 1) : 1)));
  });
  for (const [s, h] of handlers) process.off(s, h);
  await proxy.close();
  process.exitCode = code;
}

function signalNumber(signal: NodeJS.Signals): number | undefined {
  return ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15, SIGKILL: 9 } as Record<string, number>)[signal];
}

interface RestoreOpts {
  project?: string;
  claudeHome?: string;
  mirrorDir?: string;
  force?: boolean;
  json?: boolean;
}

function restoreCommand(sessionId: string, opts: RestoreOpts): void {
  const project = projectFromOption(opts.project);
  try {
    const result = restoreMirror({
      sessionId,
      projectDir: project,
      claudeHome: opts.claudeHome,
      mirrorDir: opts.mirrorDir,
      force: opts.force,
    });
    if (opts.json) printJson(result);
    else {
      process.stdout.write(
        `Restored ${result.records} records from ${result.files} mirror file(s) to ${result.path}` +
          `${result.backup ? `\nThe previous transcript was kept as ${result.backup}` : ""}\n` +
          `Resume with: claude --resume ${sessionId}\n`,
      );
    }
  } catch (error) {
    if (error instanceof RestoreError) throw new CliError(error.message);
    throw error;
  }
}

export function registerProxyCommands(program: Command): void {
  const proxyOptions = (c: Command) =>
    c
      .option("--port <n>", "listen port on 127.0.0.1 (default: a free one)")
      .option("--mirror", "mirror each session's conversation to a JSONL backup (default: off)")
      .option("--no-mirror", "do not mirror, whatever the config says")
      .option("--mirror-dir <dir>", "where mirror files go (default: ~/.claude/session-mirrors)")
      .option("--no-mirror-redact", "write the mirror without redaction (a byte-faithful private backup)")
      .option("--no-thinking", "leave thinking blocks out of the mirror");
  proxyOptions(
    program
      .command("proxy")
      .description(
        "run the API proxy: forwards to the model API untouched, feeds exact usage into recorded sessions",
      )
      .option("--upstream <url>", "the API to forward to", ANTHROPIC_API)
      .option("--json", "print the proxy's address as JSON"),
  ).action(proxyCommand);
  proxyOptions(
    program
      .command("run <agent> [args...]")
      .description(
        "run claude or codex through a temporary proxy: tapedeck run claude -- -p 'hello', tapedeck run codex -- exec 'hello'",
      )
      .option(
        "--upstream <url>",
        "the API to forward to (default: claude: $ANTHROPIC_BASE_URL or the Anthropic API; codex: its provider's base_url)",
      ),
  ).action(runCommand);
  const mirror = program.command("mirror").description("the proxy's transcript mirror");
  mirror
    .command("restore <session-id>")
    .description("write a session's mirror back as Claude Code's transcript so `claude --resume` works again")
    .option("--project <dir>", "the project the session ran in (default: current directory)")
    .option("--claude-home <dir>", "Claude's config directory (default: ~/.claude)")
    .option("--mirror-dir <dir>", "mirror root (default: the configured one)")
    .option("--force", "replace an existing transcript (it is backed up first)")
    .option("--json", "machine-readable output")
    .action(restoreCommand);
}
