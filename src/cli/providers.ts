// The providers tapedeck records, by name, for the CLI's usage checks and
// messages. Not the catalog (providers/catalog.ts) nor the hot path's registry:
// importing either loads every provider's normalizer, which `status` or `list`
// never run (measured: half of `tapedeck status`'s code).
// test/providers/contract.test.ts keeps these names equal to the catalog's
// adapters' display names, in its order.
const DISPLAY_NAMES: Record<string, string> = {
  claude: "Claude Code",
  codex: "Codex CLI",
  gemini: "Gemini CLI",
  antigravity: "Antigravity",
};

/** Every provider's name, in the registry's order. */
export const PROVIDERS: readonly string[] = Object.keys(DISPLAY_NAMES);

export function isProvider(name: string): boolean {
  return Object.hasOwn(DISPLAY_NAMES, name);
}

/** The name a person knows the provider by ("Claude Code"); an unknown one as it is. */
export function providerName(provider: string): string {
  return DISPLAY_NAMES[provider] ?? provider;
}
