// Who Claude Code is in what tapedeck writes (providers/identity.ts).
import type { ProviderIdentity } from "../identity-shape.ts";

export const claudeIdentity: ProviderIdentity = {
  name: "claude",
  displayName: "Claude Code",
  telemetry: { vendor: "anthropic", agent: "claude-code" },
  // --max-budget-usd stops a run past its cost (Claude reports each turn's total_cost_usd).
  scenario: { inspectSolver: "claude_code", budgetLimit: true },
};
