// `tapedeck run claude`: the real claude, pointed at the proxy by ANTHROPIC_BASE_URL (the secret path goes in
// the environment, which only this user can read; claude keeps the path prefix on every call, measured with
// 2.1.332: main, subagent and /compact).
import { agentBinary } from "../agent-cli.ts";
import type { AgentLauncher } from "../launch.ts";

export const ANTHROPIC_API = "https://api.anthropic.com";

export const claudeCli = { name: "claude", npmPackage: "@anthropic-ai/claude-code" };

export const claudeLauncher: AgentLauncher = {
  cli: claudeCli,
  launch(args, o) {
    return {
      binary: agentBinary(claudeCli, { env: o.env }),
      upstream: o.upstream ?? o.env.ANTHROPIC_BASE_URL ?? ANTHROPIC_API,
      through: (proxy) => ({ args, env: { ...o.env, ANTHROPIC_BASE_URL: proxy.url } }),
    };
  },
};
