// How `tapedeck run <agent>` starts an agent through the proxy: the part of a provider's catalog entry that
// knows its binary, the API it would have called, and how its command line and environment point it at the
// proxy with the proxy's credential (never on the command line, where every local user can read it).
import type { AgentCli } from "./agent-cli.ts";

/** The running proxy as a launch needs it. */
export interface ProxyAddress {
  /** The base URL with the secret path segment: what the agent is pointed at. */
  url: string;
  /** Scheme, host and port only, for an agent that sends the secret as a header instead. */
  origin: string;
  secret: string;
}

export interface AgentLaunch {
  binary: string;
  /** The API the agent would have called: the proxy forwards there. */
  upstream: string;
  /** The agent's command line and environment, pointed at the proxy, with its credential. */
  through(proxy: ProxyAddress): { args: string[]; env: NodeJS.ProcessEnv };
}

export interface AgentLauncher {
  cli: AgentCli;
  /** The launch of `args` (the agent's own, passed on exactly); `upstream` is `--upstream` when given. */
  launch(args: string[], o: { upstream?: string; env: NodeJS.ProcessEnv }): AgentLaunch;
}
