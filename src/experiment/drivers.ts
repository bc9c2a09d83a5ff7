// The replay driver of a provider, from its catalog entry, and the CLI binary it runs.
import { findAgentCli, installHint } from "../demo/agent-bin.ts";
import { providerEntry } from "../providers/catalog.ts";
import type { ReplayDriver } from "./driver.ts";

export function replayDriver(provider: string): ReplayDriver | undefined {
  return providerEntry(provider)?.replay;
}

export class MissingCli extends Error {
  override name = "MissingCli";
}

/** TAPEDECK_<NAME>_BIN, else the pinned dev dependency in a checkout, else the CLI on the PATH. */
export function driverBinary(driver: ReplayDriver, env: Record<string, string | undefined>): string {
  const override = env[`TAPEDECK_${driver.cli.name.toUpperCase()}_BIN`];
  const found = override || findAgentCli(driver.cli);
  if (!found) throw new MissingCli(installHint(driver.cli));
  return found;
}
