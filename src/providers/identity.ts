// Who each provider is, for the readers that name it in what they write: its name and display name (the CLI's
// messages), its names in OpenTelemetry's GenAI conventions (the OTLP export) and in the evaluation tools a
// scenario is exported to. Each provider's folder states its own (providers/<name>/identity.ts); this lean list
// carries them by name, because the catalog (catalog.ts) loads every normalizer and installer, which `list`,
// `status` or an export never run. test/providers/contract.test.ts keeps it equal to the catalog entries'
// own `identity`, in its order.
import { antigravityIdentity } from "./antigravity/identity.ts";
import { claudeIdentity } from "./claude/identity.ts";
import { codexIdentity } from "./codex/identity.ts";
import { geminiIdentity } from "./gemini/identity.ts";
import type { ProviderIdentity } from "./identity-shape.ts";

export type { ProviderIdentity } from "./identity-shape.ts";

/**
 * The inspect_swe agent of a client it has none for (Antigravity, a session of an unknown provider): Claude
 * Code's, the agent the scenario's prompts were most likely written for.
 */
export const DEFAULT_INSPECT_SOLVER = "claude_code";

export const IDENTITIES: Readonly<Record<string, ProviderIdentity>> = {
  claude: claudeIdentity,
  codex: codexIdentity,
  gemini: geminiIdentity,
  antigravity: antigravityIdentity,
};

export function identityOf(name: string): ProviderIdentity | undefined {
  return Object.hasOwn(IDENTITIES, name) ? IDENTITIES[name] : undefined;
}
