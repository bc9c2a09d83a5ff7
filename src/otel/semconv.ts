// The one place that names the OpenTelemetry GenAI semantic conventions tapedeck emits, and the table every
// name it sends is held to (test/otel/conformance.test.ts). The conventions are still "Development" and live
// in their own repository (open-telemetry/semantic-conventions-genai), which had published no release tag
// when this was written: its manifest declares the `gen-ai-dev/1.42.0-dev` schema, so that is the pin, read
// at the registry revision below and against its migration guide (docs/gen-ai/non-normative/migration.md).
// A change there is a change here: the table says where each name may appear, and a name that is not in it
// (or that the conventions removed) fails the test. What each client is called in them is the provider's
// (providers/<name>/identity.ts).

import { IDENTITIES } from "../providers/identity.ts";

export const GENAI_SEMCONV_VERSION = "1.42.0-dev";
/** The conventions' commit the names below were read at (the repository has no tag to name instead). */
export const GENAI_SEMCONV_REVISION = "fee465db333bdd6a7d2faa320edab5cf3101a4f4";
export const SCHEMA_URL = `https://opentelemetry.io/schemas/gen-ai-dev/${GENAI_SEMCONV_VERSION}`;
export const SCOPE_NAME = "tapedeck";

/**
 * The conventions' transition switch. tapedeck writes the latest names always; for one release the
 * `dup` value also writes the name the conventions renamed since tapedeck last emitted it
 * (`gen_ai.usage.cache_creation.input_tokens`, now `gen_ai.usage.cache_write.input_tokens`), so a dashboard
 * built on the old name keeps working while it moves. To be removed in the release after this one.
 */
export const STABILITY_OPT_IN = "OTEL_SEMCONV_STABILITY_OPT_IN";
export const LATEST_EXPERIMENTAL = "gen_ai_latest_experimental";
export const GENAI_DUP = "gen_ai_latest_experimental/dup";

export interface StabilityMode {
  genai: "latest" | "dup";
  /** the values the variable named, trimmed */
  requested: string[];
}

export function stabilityMode(env: Record<string, string | undefined> = process.env): StabilityMode {
  const requested = (env[STABILITY_OPT_IN] ?? "")
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
  return { genai: requested.includes(GENAI_DUP) ? "dup" : "latest", requested };
}

/** `gen_ai.provider.name` per recorded client: the model vendor's API, as the conventions list them. */
export const PROVIDER_NAME: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(IDENTITIES).map((p) => [p.name, p.telemetry.vendor]),
);

/** `gen_ai.agent.name` of a session's own agent: the client's name for itself in its native telemetry. */
export const AGENT_NAME: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(IDENTITIES).map((p) => [p.name, p.telemetry.agent]),
);

/**
 * The clients whose archived turn id is what their own telemetry calls `prompt.id` (each provider's identity
 * says so), so a tapedeck span joins them on `session.id` + `prompt.id`.
 */
export const PROMPT_ID_PROVIDERS: ReadonlySet<string> = new Set(
  Object.values(IDENTITIES)
    .filter((i) => i.telemetry.turnIdIsPromptId === true)
    .map((i) => i.name),
);

export const ATTR = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  agentName: "gen_ai.agent.name",
  conversationId: "gen_ai.conversation.id",
  conversationCompacted: "gen_ai.conversation.compacted",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  responseId: "gen_ai.response.id",
  finishReasons: "gen_ai.response.finish_reasons",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  cacheReadTokens: "gen_ai.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.usage.cache_write.input_tokens",
  /** the name before the conventions' rename (#440): written only in the `dup` mode, for one release */
  cacheCreationTokensLegacy: "gen_ai.usage.cache_creation.input_tokens",
  reasoningTokens: "gen_ai.usage.reasoning.output_tokens",
  tokenModality: "gen_ai.token.modality",
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
  evaluationExplanation: "gen_ai.evaluation.explanation",
  errorType: "error.type",
  sessionId: "session.id",
  sessionPreviousId: "session.previous_id",
  promptId: "prompt.id",
} as const;

export const EVENT = {
  operationDetails: "gen_ai.client.inference.operation.details",
  evaluationResult: "gen_ai.evaluation.result",
} as const;

export const OPERATION = { invokeAgent: "invoke_agent", chat: "chat", executeTool: "execute_tool" } as const;

/** The inference usage counters (token-metrics.yaml): monotonic sums, unit `{token}`. */
export const METRIC = {
  inputTokens: "gen_ai.client.inference.usage.input_tokens",
  outputTokens: "gen_ai.client.inference.usage.output_tokens",
  cacheReadTokens: "gen_ai.client.inference.usage.cache_read.input_tokens",
  cacheWriteTokens: "gen_ai.client.inference.usage.cache_write.input_tokens",
  reasoningTokens: "gen_ai.client.inference.usage.reasoning.output_tokens",
} as const;

/**
 * Where a name appears in tapedeck's output: a span of one operation, the operation-details log record, the
 * evaluation-result span event, a metric data point, or (for metric and event names) the name itself.
 */
export type Place =
  | "invoke_agent"
  | "chat"
  | "execute_tool"
  | "evaluate"
  | "log:operation_details"
  | "event:evaluation_result"
  | "metric_point"
  | "metric"
  | "event";

/**
 * Every gen_ai.* name tapedeck emits, where the pinned conventions allow it. `legacy` names are written only
 * in the `dup` mode. Held by test/otel/conformance.test.ts against everything the exporter produces.
 */
export const GENAI_NAMES: Readonly<Record<string, { on: readonly Place[]; legacy?: true }>> = {
  [ATTR.operationName]: { on: ["invoke_agent", "chat", "execute_tool", "evaluate", "metric_point"] },
  // Not on internal invoke_agent spans since #289: the agent runs locally, the model's vendor is the chat's.
  [ATTR.providerName]: { on: ["chat", "evaluate", "metric_point"] },
  [ATTR.agentName]: { on: ["invoke_agent"] },
  [ATTR.conversationId]: {
    on: ["invoke_agent", "chat", "execute_tool", "evaluate", "log:operation_details"],
  },
  [ATTR.conversationCompacted]: { on: ["chat"] },
  [ATTR.requestModel]: { on: ["invoke_agent", "chat", "metric_point"] },
  [ATTR.responseModel]: { on: ["chat"] },
  [ATTR.responseId]: { on: ["chat"] },
  [ATTR.finishReasons]: { on: ["chat"] },
  [ATTR.inputTokens]: { on: ["invoke_agent", "chat"] },
  [ATTR.outputTokens]: { on: ["invoke_agent", "chat"] },
  // Not on internal invoke_agent spans since #469.
  [ATTR.cacheReadTokens]: { on: ["chat"] },
  [ATTR.cacheWriteTokens]: { on: ["chat"] },
  [ATTR.cacheCreationTokensLegacy]: { on: ["chat"], legacy: true },
  [ATTR.reasoningTokens]: { on: ["chat"] },
  [ATTR.tokenModality]: { on: ["metric_point"] },
  [ATTR.toolName]: { on: ["execute_tool"] },
  [ATTR.toolCallId]: { on: ["execute_tool"] },
  [ATTR.toolType]: { on: ["execute_tool"] },
  [ATTR.toolArguments]: { on: ["execute_tool"] },
  [ATTR.toolResult]: { on: ["execute_tool"] },
  [ATTR.inputMessages]: { on: ["invoke_agent", "log:operation_details"] },
  [ATTR.outputMessages]: { on: ["invoke_agent", "log:operation_details"] },
  [ATTR.evaluationName]: { on: ["event:evaluation_result"] },
  [ATTR.evaluationScoreValue]: { on: ["event:evaluation_result"] },
  [ATTR.evaluationScoreLabel]: { on: ["event:evaluation_result"] },
  [ATTR.evaluationExplanation]: { on: ["event:evaluation_result"] },
  [EVENT.operationDetails]: { on: ["event"] },
  [EVENT.evaluationResult]: { on: ["event"] },
  [METRIC.inputTokens]: { on: ["metric"] },
  [METRIC.outputTokens]: { on: ["metric"] },
  [METRIC.cacheReadTokens]: { on: ["metric"] },
  [METRIC.cacheWriteTokens]: { on: ["metric"] },
  [METRIC.reasoningTokens]: { on: ["metric"] },
};

/**
 * Names the conventions removed or renamed since tapedeck first emitted them (migration guide), and
 * where: a name here on that place fails the conformance test even if a table entry would allow it.
 */
export const REMOVED_NAMES: Readonly<Record<string, { on: readonly Place[] | "everywhere"; why: string }>> = {
  "gen_ai.agent.id": {
    on: ["invoke_agent"],
    why: "#242: not on internal invoke_agent spans; now a stable hosted-agent id",
  },
  "gen_ai.agent.version": { on: ["invoke_agent"], why: "#322: not on internal invoke_agent spans" },
  "gen_ai.provider.name": { on: ["invoke_agent"], why: "#289: not on internal invoke_agent spans" },
  "gen_ai.usage.cache_read.input_tokens": {
    on: ["invoke_agent"],
    why: "#469: not on internal invoke_agent spans",
  },
  "gen_ai.usage.cache_creation.input_tokens": {
    on: ["invoke_agent"],
    why: "#440: renamed gen_ai.usage.cache_write.input_tokens; #469: not on invoke_agent spans",
  },
  "gen_ai.system": { on: "everywhere", why: "replaced by gen_ai.provider.name" },
  "gen_ai.client.token.usage": { on: "everywhere", why: "#374: replaced by the inference usage counters" },
  "gen_ai.token.type": { on: "everywhere", why: "#374: removed with gen_ai.client.token.usage" },
};
