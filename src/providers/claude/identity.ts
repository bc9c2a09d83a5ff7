// Who Claude Code is in what tapedeck writes (providers/identity.ts).
import type { ProviderIdentity } from "../identity-shape.ts";

export const claudeIdentity: ProviderIdentity = {
  name: "claude",
  displayName: "Claude Code",
  // The prompt_id of its hooks is the prompt.id on its native OpenTelemetry events and metrics; Codex's and
  // Gemini's turn ids are their own.
  telemetry: { vendor: "anthropic", agent: "claude-code", turnIdIsPromptId: true },
  // --max-budget-usd stops a run past its cost (Claude reports each turn's total_cost_usd).
  scenario: { inspectSolver: "claude_code", budgetLimit: true },
};
