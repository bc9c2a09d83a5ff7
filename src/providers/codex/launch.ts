// `tapedeck run codex`: the real codex, pointed at the proxy through `-c` overrides of its model provider's
// base URL (Codex keeps its API URL in config, not in an environment variable).
import { EXIT, UserError } from "../../core/base/user-error.ts";
import { SECRET_HEADER } from "../../core/ports/proxy-extension.ts";
import { agentBinary } from "../agent-cli.ts";
import type { AgentLaunch, AgentLauncher } from "../launch.ts";
import { codexBaseUrlOverride, codexEndpoint } from "./endpoint.ts";

export const codexCli = { name: "codex", npmPackage: "@openai/codex" };

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
function codexLaunch(args: string[], o: { upstream?: string; env: NodeJS.ProcessEnv }): AgentLaunch {
  const endpoint = codexEndpoint(args);
  if (endpoint.userOverride) {
    throw new UserError(
      `the command line sets -c ${endpoint.userOverride}, which would send codex around the proxy; drop it and pass its URL as --upstream`,
      EXIT.usage,
    );
  }
  if (endpoint.chatgpt && !o.upstream) {
    throw new UserError(
      "codex is signed in with ChatGPT, so it calls ChatGPT's backend, not the OpenAI API the proxy forwards to; use an API key (OPENAI_API_KEY or `codex login --with-api-key`) or a custom model provider, or pass --upstream",
      EXIT.usage,
    );
  }
  const base = o.upstream ?? endpoint.baseUrl;
  if (!base) {
    throw new UserError(
      `codex's model provider "${endpoint.provider}" has no base_url in ${endpoint.from}; pass --upstream <url>`,
      EXIT.usage,
    );
  }
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UserError(`invalid upstream URL "${base}"`, EXIT.usage);
  }
  const path = url.pathname.replace(/\/+$/, "");
  const builtIn = endpoint.provider === "openai";
  return {
    binary: agentBinary(codexCli, { env: o.env }),
    upstream: url.origin,
    through: (proxy) =>
      builtIn
        ? // Built-in providers take no headers from config ("cannot be overridden"): the secret path it is.
          {
            args: [...codexBaseUrlOverride(endpoint.provider, `${proxy.url}${path}`), ...args],
            env: o.env,
          }
        : {
            args: [
              ...codexBaseUrlOverride(endpoint.provider, `${proxy.origin}${path}`),
              ...codexSecretHeaderOverride(endpoint.provider),
              ...args,
            ],
            env: { ...o.env, [CODEX_SECRET_ENV]: proxy.secret },
          },
  };
}

export const codexLauncher: AgentLauncher = { cli: codexCli, launch: codexLaunch };
