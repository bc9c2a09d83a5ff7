// proxy, run, mirror restore: the API capture path.
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { loadRedactionRules } from "../core/redact/rules-file.ts";
import { type AgentCli, CLAUDE_CLI, findOnPath, installHint } from "../demo/agent-bin.ts";
import { codexBaseUrlOverride, codexEndpoint } from "../providers/codex/endpoint.ts";
import { createArchiveFeed } from "../proxy/archive-feed.ts";
import { isValidSecret, SECRET_HEADER } from "../proxy/gate.ts";
import { createMirrorExtension } from "../proxy/mirror/extension.ts";
import { RestoreError, restoreMirror } from "../proxy/mirror/restore.ts";
import { loadMirrorSettings, type MirrorOverrides } from "../proxy/mirror/settings.ts";
import { type ProxyLog, type ProxyLogEntry, type RunningProxy, startProxy } from "../proxy/server.ts";
import type { ProxyExtension } from "../proxy/types.ts";
import { providerSessionIdArg } from "./archive-commands.ts";
import { CliError, EXIT, printJson, projectFromOption } from "./common.ts";
import { builtFile } from "./paths.ts";
import { projectRoot } from "./project.ts";

interface ProxyOpts {
  port?: string;
  upstream?: string;
  mirror?: boolean;
  mirrorDir?: string;
  mirrorRedact?: boolean;
  thinking?: boolean;
  json?: boolean;
  verbose?: boolean;
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
  // The mirror applies the rules of the project the proxy was started in, as its hooks do.
  const loadedRules = loadRedactionRules(projectRoot(undefined));
  if (loadedRules.error) process.stderr.write(`tapedeck: redaction rules ignored: ${loadedRules.error}\n`);
  const rules = loadedRules.rules;
  if (loaded.settings.enabled)
    extensions.push(createMirrorExtension(loaded.settings, { redactionRules: rules }));
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

/** A stable secret from the environment (private to the user, unlike a file or the command line), else a fresh one. */
function secretFromEnv(): string | undefined {
  const s = process.env.TAPEDECK_PROXY_SECRET;
  if (s === undefined || s === "") return undefined;
  if (!isValidSecret(s)) {
    throw new CliError("TAPEDECK_PROXY_SECRET must be 32-128 characters of A-Z a-z 0-9 _ -", EXIT.usage);
  }
  return s;
}

/** A log field for a terminal line: printable ASCII only, so a path cannot carry escape sequences. */
function printable(v: ProxyLogEntry[string]): string {
  return String(v ?? "-").replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c));
}

/**
 * The proxy's stderr: with --verbose one line per request (method, path without query, status, bytes in and out,
 * milliseconds; the log entry carries nothing else), and the first upstream failure always when `warnUpstream`.
 */
export function stderrLog(opts: { verbose: boolean; warnUpstream: boolean }, write = writeStderr): ProxyLog {
  return (e) => {
    if (e.msg === "upstream_unreachable" && (opts.warnUpstream || opts.verbose)) {
      write(
        `tapedeck proxy: cannot reach the upstream ${printable(e.upstream)} (${printable(e.error)}); the agent gets 502 until it answers: check --upstream and the network\n`,
      );
    } else if (!opts.verbose) {
      return;
    } else if (e.msg === "request") {
      const aborted = e.aborted_by
        ? ` aborted by ${printable(e.aborted_by)} (${printable(e.abort_reason)})`
        : "";
      write(
        `tapedeck proxy: ${printable(e.method)} ${printable(e.path)} ${printable(e.status)} ${printable(e.req_bytes)} B in ${printable(e.res_bytes)} B out ${printable(e.ms)} ms${aborted}\n`,
      );
    } else if (e.msg === "refused") {
      write(
        `tapedeck proxy: refused a request (${printable(e.reason)}, ${printable(e.status)}); later refusals are counted, not shown\n`,
      );
    }
  };
}

function writeStderr(line: string): void {
  process.stderr.write(line);
}

async function start(
  opts: ProxyOpts,
  upstream: string,
  log?: ProxyLog,
): Promise<{ proxy: RunningProxy; mirror: boolean; mirrorDir: string }> {
  const secret = secretFromEnv();
  const { extensions, mirror, mirrorDir } = extensionsFor(opts);
  try {
    const proxy = await startProxy({
      port: parsePort(opts.port),
      upstream: checkUpstream(upstream),
      extensions,
      log,
      secret,
    });
    return { proxy, mirror, mirrorDir };
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot start the proxy: ${(error as NodeJS.ErrnoException).code ?? "error"}`);
  }
}

async function proxyCommand(opts: ProxyOpts): Promise<void> {
  const upstream = opts.upstream ?? ANTHROPIC_API;
  const log = stderrLog({ verbose: opts.verbose === true, warnUpstream: true });
  const { proxy, mirror, mirrorDir } = await start(opts, upstream, log);
  if (opts.json)
    printJson({ url: proxy.url, port: proxy.port, upstream, mirror, mirror_dir: mirror ? mirrorDir : null });
  else {
    process.stderr.write(
      [
        `tapedeck proxy on ${proxy.origin} -> ${upstream}`,
        `mirror: ${mirror ? `on (${mirrorDir})` : "off"}   archive feed: on for projects with recording on`,
        `use it with: ANTHROPIC_BASE_URL=${proxy.url} claude`,
        // Not the secret URL in a -c for codex: its command line is readable by every local user.
        `         or: TAPEDECK_PROXY_KEY=${proxy.secret} codex -c 'model_providers.<id>.base_url="${proxy.origin}/v1"' -c 'model_providers.<id>.env_http_headers.${SECRET_HEADER}="TAPEDECK_PROXY_KEY"' (a custom provider, with --upstream its API's origin); tapedeck run codex sets this up`,
        "The URL's last segment is a secret: requests without it are refused. Keep it out of shared files and command lines.",
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

const AGENT_CLIS: Record<string, AgentCli> = {
  claude: CLAUDE_CLI,
  codex: { name: "codex", npmPackage: "@openai/codex" },
};

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where a checkout keeps the pinned agent CLIs (dev dependencies): absent from a packaged install. */
function checkoutBin(): string {
  return join(builtFile("cli.js"), "..", "..", "node_modules", ".bin");
}

/**
 * The agent binary to run: the override, else the one on PATH, else this checkout's dev dependency. A packaged
 * install has no dev dependencies: without the agent on PATH the user is told how to install it, not ENOENT.
 */
export function agentBinary(
  name: string,
  override: string | undefined,
  where: { path?: string; localBin?: string } = {},
): string {
  if (override) return override;
  const found = findOnPath(name, where.path ?? process.env.PATH);
  if (found) return found;
  const local = join(where.localBin ?? checkoutBin(), name);
  if (isExecutableFile(local)) return local;
  const cli = AGENT_CLIS[name] ?? { name, npmPackage: name };
  throw new CliError(`${installHint(cli)} (or set TAPEDECK_${name.toUpperCase()}_BIN to its path)`);
}

interface AgentLaunch {
  binary: string;
  /** The API the agent would have called. */
  upstream: string;
  /** The agent's command line and environment, pointed at the proxy, with its credential. */
  through(proxy: RunningProxy): { args: string[]; env: NodeJS.ProcessEnv };
}

function claudeLaunch(args: string[], opts: ProxyOpts): AgentLaunch {
  return {
    binary: agentBinary("claude", process.env.TAPEDECK_CLAUDE_BIN),
    upstream: opts.upstream ?? process.env.ANTHROPIC_BASE_URL ?? ANTHROPIC_API,
    // The secret path goes in the environment, which only this user can read; claude keeps the path prefix.
    through: (proxy) => ({ args, env: { ...process.env, ANTHROPIC_BASE_URL: proxy.url } }),
  };
}

/** The environment variable codex reads the proxy's credential header from (`env_http_headers`). */
const CODEX_SECRET_ENV = "TAPEDECK_PROXY_KEY";

/**
 * `-c model_providers.<id>.env_http_headers.x-tapedeck-proxy-key="TAPEDECK_PROXY_KEY"`: codex sends the
 * credential as a header whose value it reads from the environment, so the command line, which every local user
 * can read in /proc/<pid>/cmdline and ps, names only the variable. Measured with codex 0.171: the dotted key
 * adds the header next to the provider's own, on every call (main, subagent, compaction).
 */
function codexSecretHeaderOverride(provider: string): string[] {
  const id = /^[A-Za-z0-9_-]+$/.test(provider) ? provider : JSON.stringify(provider);
  return [
    "-c",
    `model_providers.${id}.env_http_headers.${SECRET_HEADER}=${JSON.stringify(CODEX_SECRET_ENV)}`,
  ];
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
  const builtIn = endpoint.provider === "openai";
  return {
    binary: agentBinary("codex", process.env.TAPEDECK_CODEX_BIN),
    upstream: url.origin,
    through: (proxy) =>
      builtIn
        ? // Built-in providers take no headers from config ("cannot be overridden"): the secret path it is.
          {
            args: [...codexBaseUrlOverride(endpoint.provider, `${proxy.url}${path}`), ...args],
            env: process.env,
          }
        : {
            args: [
              ...codexBaseUrlOverride(endpoint.provider, `${proxy.origin}${path}`),
              ...codexSecretHeaderOverride(endpoint.provider),
              ...args,
            ],
            env: { ...process.env, [CODEX_SECRET_ENV]: proxy.secret },
          },
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
  // The agent owns the terminal: the proxy speaks only when asked to (--verbose).
  const log = opts.verbose ? stderrLog({ verbose: true, warnUpstream: true }) : undefined;
  const { proxy } = await start(opts, launch.upstream, log);
  const spec = launch.through(proxy);
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

function restoreCommand(sessionArg: string, opts: RestoreOpts): void {
  const project = projectFromOption(opts.project);
  // SESSION as everywhere else: an id, a unique prefix or `last`.
  const sessionId = providerSessionIdArg(project, sessionArg, "claude");
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
    if (error instanceof RestoreError) {
      throw new CliError(error.message, error.code === "not_found" ? EXIT.notFound : EXIT.failed);
    }
    throw error;
  }
}

/**
 * `run`'s arguments after the agent's name: tapedeck's own options at the front (up to the first token that is
 * not one, or `--`), then the agent's arguments, passed on exactly.
 */
export function splitRunArgs(cmd: Command, args: readonly string[]): { ours: string[]; agent: string[] } {
  const ours: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "--") return { ours, agent: args.slice(i + 1) };
    const flag = a.split("=", 1)[0]!;
    const opt = cmd.options.find((o) => o.long === flag || o.short === flag);
    if (!opt) return { ours, agent: args.slice(i) };
    ours.push(a);
    if ((opt.required || opt.optional) && !a.includes("=") && i + 1 < args.length) ours.push(args[++i]!);
  }
  return { ours, agent: [] };
}

export function registerProxyCommands(program: Command): void {
  // Needed by `run`'s passThroughOptions: options after a subcommand belong to that subcommand. The program's
  // only own options are --version and --help, which go first anyway.
  program.enablePositionalOptions();
  const proxyOptions = (c: Command) =>
    c
      .option("--port <n>", "listen port on 127.0.0.1 (default: a free one)")
      .option("--mirror", "mirror each session's conversation to a JSONL backup (default: off)")
      .option("--no-mirror", "do not mirror, whatever the config says")
      .option("--mirror-dir <dir>", "where mirror files go (default: ~/.claude/session-mirrors)")
      .option("--no-mirror-redact", "write the mirror without redaction (a byte-faithful private backup)")
      .option("--no-thinking", "leave thinking blocks out of the mirror")
      .option(
        "--verbose",
        "one line per request on stderr: method, path without query, status, bytes, ms (never content or headers)",
      );
  proxyOptions(
    program
      .command("proxy")
      .description(
        "run the API proxy: forwards to the model API untouched, feeds exact usage into recorded sessions. " +
          "It prints the base URL to give the agent; its last path segment is a secret, and requests without it are refused " +
          "(TAPEDECK_PROXY_SECRET, 32+ characters of A-Za-z0-9_-, keeps it the same across restarts)",
      )
      .option("--upstream <url>", "the API to forward to", ANTHROPIC_API)
      .option("--json", "print the proxy's address as JSON"),
  ).action(proxyCommand);
  proxyOptions(
    program
      .command("run <agent> [args...]")
      .description(
        "run claude or codex through a temporary proxy: tapedeck run claude -p 'hello', tapedeck run codex exec 'hello'. " +
          "tapedeck's own options go before the agent's first option; everything from there (or after --) is the agent's",
      )
      // `run claude -p hi`: -p is claude's. Everything after the agent's name reaches the action, which takes
      // tapedeck's options from its front only (splitRunArgs): `run claude -p x --verbose` is claude's --verbose.
      .passThroughOptions()
      .option(
        "--upstream <url>",
        "the API to forward to (default: claude: $ANTHROPIC_BASE_URL or the Anthropic API; codex: its provider's base_url)",
      ),
  ).action((agent: string, args: string[], _opts: ProxyOpts, cmd: Command) => {
    const split = splitRunArgs(cmd, args);
    cmd.parseOptions(split.ours);
    return runCommand(agent, split.agent, cmd.opts<ProxyOpts>());
  });
  const mirror = program.command("mirror").description("the proxy's transcript mirror");
  mirror
    .command("restore <session>")
    .description("write a session's mirror back as Claude Code's transcript so `claude --resume` works again")
    .option("--project <dir>", "the project the session ran in (default: current directory)")
    .option("--claude-home <dir>", "Claude's config directory (default: ~/.claude)")
    .option("--mirror-dir <dir>", "mirror root (default: the configured one)")
    .option("--force", "replace an existing transcript (it is backed up first)")
    .option("--json", "machine-readable output")
    .action(restoreCommand);
}
