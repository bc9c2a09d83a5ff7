// Who Antigravity is in what tapedeck writes (providers/identity.ts).
import type { ProviderIdentity } from "../identity-shape.ts";

export const antigravityIdentity: ProviderIdentity = {
  name: "antigravity",
  displayName: "Antigravity",
  // Its models are Gemini's; inspect_swe has no Antigravity agent: Claude Code's (identity.ts's default).
  telemetry: { vendor: "gcp.gemini", agent: "antigravity" },
  scenario: { inspectSolver: "claude_code", budgetLimit: false },
};
