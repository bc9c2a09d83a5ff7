// The agent `tapedeck run` starts, and how it is pointed at the proxy: its binary, the API it would have
// called, and its command line and environment with the proxy's credential (never on the command line where
// another user could read it).
import { join } from "node:path";
import { type AgentCli, CLAUDE_CLI, findOnPath, installHint, isExecutableFile } from "../demo/agent-bin.ts";
import { codexBaseUrlOverride, codexEndpoint } from "../providers/codex/endpoint.ts";
import { SECRET_HEADER } from "../proxy/gate.ts";
import type { RunningProxy } from "../proxy/server.ts";
import { CliError, EXIT } from "./errors.ts";
import { builtFile } from "./paths.ts";
import { ANTHROPIC_API, type ProxyOpts } from "./proxy-start.ts";

const AGENT_CLIS: Record<string, AgentCli> = {
  claude: CLAUDE_CLI,
  codex: { name: "codex", npmPackage: "@openai/codex" },
};

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

export interface AgentLaunch {
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

export const LAUNCHERS: Record<string, (args: string[], opts: ProxyOpts) => AgentLaunch> = {
  claude: claudeLaunch,
  codex: codexLaunch,
};
