// Every provider tapedeck records, one line each: the folder's provider.ts
// names what it offers (adapter, installer, API usage reader, doctor checks;
// entry.ts). The CLI and the proxy look providers up here. Adding a provider
// is its folder plus one line below; test/providers/contract.test.ts then
// checks it offers the same contract as the others, and that the three lean
// lists that cannot load this file agree with it:
// - providers/registry.ts, the hook hot path's adapters (dist/hook.cjs must not
//   load installers or doctor checks: test/hook-entry.cli.test.ts);
// - cli/providers.ts, the names the CLI's usage checks know, without loading
//   any normalizer;
// - providers/usage-facts.ts, what each provider's token figures mean, for the
//   usage reports (tapedeck usage, the viewer's usage page).
import { antigravityProvider } from "./antigravity/provider.ts";
import { claudeProvider } from "./claude/provider.ts";
import { codexProvider } from "./codex/provider.ts";
import type { ProviderEntry } from "./entry.ts";
import { geminiProvider } from "./gemini/provider.ts";
import type { ProviderInstaller } from "./installer.ts";

export type { ProviderEntry };

/** In the order the CLI lists providers. */
export const CATALOG: Readonly<Record<string, ProviderEntry>> = {
  claude: claudeProvider,
  codex: codexProvider,
  gemini: geminiProvider,
  antigravity: antigravityProvider,
};

export function providerEntry(name: string): ProviderEntry | undefined {
  return Object.hasOwn(CATALOG, name) ? CATALOG[name] : undefined;
}

/** The tool names that start a subagent in the provider's sessions; none for a provider without subagents. */
export function subagentToolsOf(name: string): readonly string[] {
  return providerEntry(name)?.subagentTools ?? [];
}

/** Every provider's session variables (`sessionEnv`): a replay started inside any agent inherits none. */
export function agentSessionEnv(): RegExp[] {
  return Object.values(CATALOG).flatMap((entry) => entry.sessionEnv ?? []);
}

export function installerFor(name: string): ProviderInstaller | undefined {
  return providerEntry(name)?.installer;
}

/** The providers `tapedeck install` can set up, in catalog order. */
export function installable(): string[] {
  return Object.keys(CATALOG).filter((name) => CATALOG[name]?.installer);
}
