// Who Gemini CLI is in what tapedeck writes (providers/identity.ts).
import type { ProviderIdentity } from "../identity-shape.ts";

export const geminiIdentity: ProviderIdentity = {
  name: "gemini",
  displayName: "Gemini CLI",
  telemetry: { vendor: "gcp.gemini", agent: "gemini-cli" },
  scenario: { inspectSolver: "gemini_cli", budgetLimit: false },
};
