// The one place that names the OpenTelemetry GenAI semantic conventions tapedeck emits. They are still
// "Development" and moved to their own repository, which publishes only `-dev` prerelease schema versions: a
// change there is a change here, and the schema URL on the instrumentation scope tells a backend which text
// the attributes follow. What each client is called in them is the provider's (providers/<name>/identity.ts).

import { IDENTITIES } from "../providers/identity.ts";

export const GENAI_SEMCONV_VERSION = "1.42.0-dev";
export const SCHEMA_URL = `https://opentelemetry.io/schemas/gen-ai-dev/${GENAI_SEMCONV_VERSION}`;
export const SCOPE_NAME = "tapedeck";

/**
 * The conventions' transition switch: instrumentations that emitted v1.36 or older keep that by default and
 * switch on `gen_ai_latest_experimental`. tapedeck never emitted an older form, so it always writes the
 * latest; the variable is read so that a value is reported back, never refused.
 */
export const STABILITY_OPT_IN = "OTEL_SEMCONV_STABILITY_OPT_IN";
export const LATEST_EXPERIMENTAL = "gen_ai_latest_experimental";

export interface StabilityMode {
  /** always "latest": there is no legacy output to fall back to */
  genai: "latest";
  /** the values the variable named, trimmed */
  requested: string[];
}

export function stabilityMode(env: Record<string, string | undefined> = process.env): StabilityMode {
  const requested = (env[STABILITY_OPT_IN] ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  return { genai: "latest", requested };
}

/** `gen_ai.provider.name` per recorded client: the model vendor's API, as the conventions list them. */
export const PROVIDER_NAME: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(IDENTITIES).map((p) => [p.name, p.telemetry.vendor]),
);

/** `gen_ai.agent.name` of a session's own agent: the client's name for itself in its native telemetry. */
export const AGENT_NAME: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(IDENTITIES).map((p) => [p.name, p.telemetry.agent]),
);

export const ATTR = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  agentId: "gen_ai.agent.id",
  conversationId: "gen_ai.conversation.id",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheCreationTokens: "gen_ai.usage.cache_creation.input_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolArguments: "gen_ai.tool.call.arguments",
  toolResult: "gen_ai.tool.call.result",
  inputMessages: "gen_ai.input.messages",
  outputMessages: "gen_ai.output.messages",
  evaluationName: "gen_ai.evaluation.name",
  evaluationScoreValue: "gen_ai.evaluation.score.value",
  evaluationScoreLabel: "gen_ai.evaluation.score.label",
  errorType: "error.type",
  sessionId: "session.id",
  sessionPreviousId: "session.previous_id",
} as const;

export const EVENT = {
  operationDetails: "gen_ai.client.inference.operation.details",
  evaluationResult: "gen_ai.evaluation.result",
} as const;

export const OPERATION = { invokeAgent: "invoke_agent", chat: "chat", executeTool: "execute_tool" } as const;
