// Who Codex CLI is in what tapedeck writes (providers/identity.ts).
import type { ProviderIdentity } from "../identity-shape.ts";

export const codexIdentity: ProviderIdentity = {
  name: "codex",
  displayName: "Codex CLI",
  telemetry: { vendor: "openai", agent: "codex" },
  scenario: { inspectSolver: "codex_cli", budgetLimit: false },
};
