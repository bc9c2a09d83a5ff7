// The shape of a provider's identity (identity.ts lists them): apart, so that each folder's identity.ts can
// name its type without importing the list that imports it.
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
    /** Its archived turn id is the `prompt.id` of its own telemetry's events and metrics (the OTLP join key). */
    turnIdIsPromptId?: boolean;
  };
  scenario: {
    /** The inspect_swe agent that runs this client in Inspect's sandbox. */
    inspectSolver: string;
    /** The client takes a spending limit per run (promptfoo's `max_budget_usd`). */
    budgetLimit: boolean;
  };
}
