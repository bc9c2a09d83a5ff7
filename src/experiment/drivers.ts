// The replay driver of a provider, from its catalog entry, and the CLI binary it runs.
import type { ReplayDriver } from "../core/ports/replay-driver.ts";
import { agentBinary, MissingAgentCli } from "../providers/agent-cli.ts";
import { providerEntry } from "../providers/catalog.ts";

export function replayDriver(provider: string): ReplayDriver | undefined {
  return providerEntry(provider)?.replay;
}

export { MissingAgentCli as MissingCli };

/** The CLI a driver runs, in the one lookup order of providers/agent-cli.ts. */
export function driverBinary(driver: ReplayDriver, env: Record<string, string | undefined>): string {
  return agentBinary(driver.cli, { env });
}
