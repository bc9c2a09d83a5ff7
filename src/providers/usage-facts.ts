// Each provider's usage facts (core/read/usage-facts.ts) by name, for the usage reports of the CLI and the viewer:
// a lean list, because the catalog (catalog.ts) loads every normalizer and installer, which a report never
// runs. test/providers/contract.test.ts keeps it equal to the catalog entries' own `usage`.
import { factsFor, type UsageFacts } from "../core/read/usage-facts.ts";
import { antigravityUsageFacts } from "./antigravity/usage-facts.ts";
import { claudeUsageFacts } from "./claude/usage-facts.ts";
import { codexUsageFacts } from "./codex/usage-facts.ts";
import { geminiUsage } from "./gemini/usage-facts.ts";

export const USAGE_FACTS: Readonly<Record<string, UsageFacts>> = {
  claude: claudeUsageFacts,
  codex: codexUsageFacts,
  gemini: geminiUsage,
  antigravity: antigravityUsageFacts,
};

/** A provider's usage facts; Anthropic's meaning with no known gap for a name no provider has. */
export function usageFactsOf(provider: string): UsageFacts {
  return factsFor(USAGE_FACTS, provider);
}
