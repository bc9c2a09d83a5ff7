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

export interface ProviderIdentity {
  /** The archive's provider name: the hook argument, the session id's prefix, `--provider`'s value. */
  name: string;
  /** The name a person knows the client by ("Claude Code"). */
  displayName: string;
  telemetry: {
    /** `gen_ai.provider.name`: the model vendor's API, as the GenAI conventions list them. */
    vendor: string;
    /** `gen_ai.agent.name` of a session's own agent: the client's name for itself in its native telemetry. */
    agent: string;
  };
  scenario: {
    /** The inspect_swe agent that runs this client in Inspect's sandbox. */
    inspectSolver: string;
    /** The client takes a spending limit per run (promptfoo's `max_budget_usd`). */
    budgetLimit: boolean;
  };
}

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
