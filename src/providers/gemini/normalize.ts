// Maps Gemini CLI (0.61) hook payloads to provider-neutral events.
//
// This runs in the hook hot path: it imports only types from the core (never
// zod) and never throws, because a failing recorder must not disturb Gemini.
// It selects fields but does not redact or bound them; the core does that.
//
// Gemini facts this mapping relies on (see test/fixtures/gemini/):
// - Every hook carries session_id, transcript_path (the chat file), cwd,
//   hook_event_name and an ISO `timestamp` taken when the hook fired. There is
//   no prompt id and no tool call id anywhere.
// - BeforeModel and BeforeToolSelection carry the whole history flattened to
//   text; AfterModel fires once per streamed chunk and repeats it. Only the
//   chunk with a finishReason ends a response, and its usageMetadata is the
//   response's total (earlier chunks carry promptTokenCount only).
// - PreCompress(auto) fires before every model call once the history is not
//   empty, whether or not anything is compressed; there is no PostCompress.
// - A failed shell command still gets a plain AfterTool; the failure shows
//   only in the text (an `Exit Code: N` trailer line in llmContent).
// - A chunk's `llm_response.text` is that chunk's text only, and AfterAgent's
//   prompt_response joins every response of the turn: the text said before a
//   tool call is taken from the chat file at BeforeTool (chat-text.ts).
// - SessionEnd can fire several times for one exit.
//
// This module is stateless. What needs memory across hooks (pairing a tool
// call with its result, one turn id per prompt, detecting a compaction that
// really happened, closing a response whose stream never finished) is done by
// the adapter's enrich step from the observation the result carries
// (NormalizeResult.observation, see adapter.ts).
import type { NormalizeResult } from "../../core/archive/event.ts";
import type { EventKind, Usage } from "../../core/archive/schemas.ts";
import {
  capabilities,
  type HookNormalize,
  type HookRule,
  hookNormalizer,
  hookTime,
  keepOwnFields,
  type Mapper,
  payloadContext,
  payloadEventId,
  replyPayload,
} from "../hook-normalizer.ts";
import {
  digest,
  hookName,
  idFor,
  isRecord,
  type MappedEvent,
  nonEmptyString,
  type Payload,
  select,
} from "../shared.ts";

export const GEMINI_PROVIDER = "gemini";

export const GEMINI_CAPABILITIES = capabilities({
  // Gemini has no subagent hooks.
  omitKinds: ["subagent_start", "subagent_stop"],
  features: [
    // One turn_usage per model response, from the usageMetadata of its final AfterModel chunk.
    "turn_usage:gemini-hook",
    // Gemini has no tool call ids: derived from session, turn, tool, input and occurrence.
    "tool_use_id:synthetic",
    // Gemini has no prompt ids: one derived id per BeforeAgent.
    "turn_id:synthetic",
    // A non-zero `Exit Code:` (or a `Signal:`) in the shell tool's text, or a tool_response.error.
    "tool_error:llm-content",
    // /compress is recorded as asked; an automatic compression only once the next request shows it.
    "compaction:PreCompress(manual)",
    "compaction:inferred(auto)",
  ],
});

/** Top-level fields every hook carries; they go to the context, the envelope or nowhere. */
const COMMON_FIELDS = ["session_id", "transcript_path", "cwd", "hook_event_name", "timestamp"];

/**
 * What the adapter's enrich step needs from a hook beyond the events: the
 * facts of hooks that are not recorded themselves (BeforeModel, a streaming
 * AfterModel chunk, PreCompress(auto)). Small by design: it never holds the
 * history.
 */
export interface GeminiObservation {
  hook: string;
  /** The payload's own timestamp, canonical ISO, when it had a valid one. */
  timestamp?: string;
  /** SessionStart: startup, resume, clear, ... */
  source?: string;
  /** PreCompress: auto or manual. */
  trigger?: string;
  /** BeforeModel / AfterModel: messages in the request's (flattened) history. */
  message_count?: number;
  /** BeforeModel: fingerprint of the first `<state_snapshot>` message, the product of a compression. */
  snapshot?: string;
  /** AfterModel: this chunk ends the response (it has a finishReason). */
  final?: boolean;
  /** AfterModel: this chunk holds text the model said (not a thought): the chat file will hold it whole. */
  spoke?: boolean;
  model?: string;
  /** AfterModel: the chunk's usage, already mapped. */
  usage?: Usage;
  usage_metadata?: Payload;
}

/** Gemini's result carries its observation for the adapter's stateful step. */
export type GeminiNormalized = NormalizeResult<GeminiObservation> & { observation: GeminiObservation };

// ---------------------------------------------------------------------------
// Event ids
//
// Gemini stamps every hook with the time it fired, so (hook, session,
// timestamp, selected fields) tells two genuine events apart while a retried
// hook, byte-identical, gets the same id. The selected fields separate two
// hooks of the same name in the same millisecond (parallel tool calls).
// Without a timestamp the whole canonical payload is hashed instead.
// SessionEnd is the exception: it repeats on one exit with new timestamps, so
// its id is the session's alone; the store scopes terminal ids to the epoch
// (one per session_start), so a resumed session can still end again.
// Tool events get their final id from the adapter once it knows the pairing
// (see adapter.ts); the id made here is what is recorded without it.

function eventId(
  kind: EventKind,
  name: string,
  p: Payload,
  providerSessionId: string | null,
  selected: Payload,
): string {
  if (name === "SessionEnd") return idFor(kind, ["session-end", providerSessionId]);
  const timestamp = nonEmptyString(p.timestamp);
  if (timestamp === undefined) return payloadEventId(kind, name, p, providerSessionId);
  return idFor(kind, ["ts", name, providerSessionId, timestamp, selected]);
}

// ---------------------------------------------------------------------------
// Per-event mapping
//
// optional lists what the core may drop, in order, when an event is
// still too large after string and array truncation. For tools, tool_input
// goes first because the tool_call with the same tool_use_id already holds it.

const skip: Mapper = () => null;

/** A hook without a rule, or a PreCompress of a trigger not known: its own fields. */
const mapGeneric = keepOwnFields(new Set(COMMON_FIELDS));

const RULES: Record<string, HookRule> = {
  SessionStart: { kind: "session_start", fields: ["source", "cwd"] },
  BeforeAgent: { kind: "user_prompt", fields: ["prompt"], optional: ["prompt"] },
  // The prompt is repeated here; the user_prompt already holds it.
  AfterAgent: (name, p) => ({
    kind: "assistant_message",
    payload: replyPayload(name, p.prompt_response, p),
    optional_fields: ["text"],
  }),
  BeforeTool: { kind: "tool_call", fields: ["tool_name", "tool_input"], optional: ["tool_input"] },
  AfterTool: mapToolResult,
  // Each carries the whole flattened history, which the prompts, tool results
  // and messages already hold: recording it per model call would grow the
  // session quadratically. The model name and message count reach the
  // turn_usage of the response; the adapter watches BeforeModel for compaction.
  BeforeModel: skip,
  BeforeToolSelection: skip,
  AfterModel: mapModelResponse,
  PreCompress: (name, p) => {
    // auto fires before every model call; the adapter records it only once
    // the next request shows a compression happened.
    if (p.trigger === "auto") return null;
    if (p.trigger === "manual") {
      return { kind: "compaction", payload: select(name, p, ["trigger"], { phase: "pre" }) };
    }
    // A trigger we do not know: kept, but not claimed as a compaction.
    return mapGeneric(name, p);
  },
  Notification: {
    kind: "provider_event",
    fields: ["notification_type", "message", "details"],
    optional: ["details", "message"],
  },
  SessionEnd: { kind: "session_end", fields: ["reason"], terminal: true },
};

function mapToolResult(name: string, p: Payload): MappedEvent {
  const failure = toolFailure(p.tool_response);
  if (failure) {
    return {
      kind: "tool_error",
      payload: select(name, p, ["tool_name", "tool_input", "tool_response"], { success: false, ...failure }),
      optional_fields: ["tool_input", "tool_response"],
    };
  }
  return {
    kind: "tool_result",
    payload: select(name, p, ["tool_name", "tool_input", "tool_response"]),
    optional_fields: ["tool_input", "tool_response"],
  };
}

/**
 * Only the chunk that ends a response (finishReason present) becomes an
 * event: one turn_usage per model response, with that chunk's usageMetadata,
 * which is the response's total. Earlier chunks are observed only.
 */
function mapModelResponse(name: string, p: Payload): MappedEvent | null {
  const chunk = readModelChunk(p);
  if (!chunk.final) return null;
  const payload: Payload = { hook_event_name: name };
  if (chunk.finish_reason !== undefined) payload.finish_reason = chunk.finish_reason;
  if (chunk.model !== undefined) payload.model = chunk.model;
  if (chunk.message_count !== undefined) payload.message_count = chunk.message_count;
  if (chunk.usage_metadata !== undefined) payload.usage_metadata = chunk.usage_metadata;
  const mapped: MappedEvent = { kind: "turn_usage", payload };
  if (chunk.usage) mapped.usage = chunk.usage;
  return mapped;
}

// ---------------------------------------------------------------------------
// Tool failures
//
// AfterTool has no success flag. The shell tool ends its llmContent with a
// trailer: `Exit Code: N` only when the command exited non-zero, `Signal: S`
// when it was killed, then `Process Group PGID: P` (and `Background PIDs:`).
// A successful command has no Exit Code line at all. Only the trailer is read
// (from the end, over known trailer lines), so output that merely contains
// "Exit Code: 3" somewhere does not count. returnDisplay is what the user saw
// (here just the stderr text) and carries no status. A tool_response.error
// (Gemini's ToolResult.error, when a tool reports one) also counts.

export interface ToolFailure {
  error: string;
  exit_code?: number;
  signal?: string;
  error_type?: string;
}

const TRAILER_SKIP = /^(Process Group PGID|Background PIDs|Error):/;
const TRAILER_LINES = 16;

export function toolFailure(response: unknown): ToolFailure | undefined {
  if (!isRecord(response)) return undefined;
  const error = response.error;
  if (isRecord(error)) {
    const message = nonEmptyString(error.message) ?? nonEmptyString(error.type);
    if (message !== undefined) {
      const failure: ToolFailure = { error: message };
      const type = nonEmptyString(error.type);
      if (type !== undefined) failure.error_type = type;
      return failure;
    }
  } else if (nonEmptyString(error) !== undefined) {
    return { error: error as string };
  }
  const trailer = shellTrailer(contentText(response.llmContent));
  if (trailer.exit_code !== undefined && trailer.exit_code !== 0) {
    const failure: ToolFailure = { error: `Exit Code: ${trailer.exit_code}`, exit_code: trailer.exit_code };
    if (trailer.signal !== undefined) failure.signal = trailer.signal;
    return failure;
  }
  if (trailer.signal !== undefined) return { error: `Signal: ${trailer.signal}`, signal: trailer.signal };
  return undefined;
}

function shellTrailer(text: string): { exit_code?: number; signal?: string } {
  const out: { exit_code?: number; signal?: string } = {};
  if (text === "") return out;
  const lines = text.split(/\r?\n/);
  const stop = Math.max(0, lines.length - TRAILER_LINES);
  for (let i = lines.length - 1; i >= stop; i--) {
    const line = (lines[i] ?? "").trim();
    if (line === "" || line === "</untrusted_context>") continue;
    const exit = /^Exit Code: (.*)$/.exec(line);
    if (exit) {
      const code = (exit[1] ?? "").trim();
      if (/^-?\d{1,10}$/.test(code) && out.exit_code === undefined) out.exit_code = Number.parseInt(code, 10);
      continue;
    }
    const signal = /^Signal: (.*)$/.exec(line);
    if (signal) {
      const value = (signal[1] ?? "").trim();
      if (value !== "" && value !== "(none)" && out.signal === undefined) out.signal = value;
      continue;
    }
    if (TRAILER_SKIP.test(line)) continue;
    break;
  }
  return out;
}

/** llmContent is a string, a Part ({text}), or a list of either. */
function contentText(value: unknown): string {
  if (typeof value === "string") return value;
  if (isRecord(value)) return typeof value.text === "string" ? value.text : "";
  if (Array.isArray(value)) return value.map(contentText).join("\n");
  return "";
}

// ---------------------------------------------------------------------------
// Model requests and responses

interface ModelChunk {
  final: boolean;
  finish_reason?: string;
  model?: string;
  message_count?: number;
  usage?: Usage;
  usage_metadata?: Payload;
}

function readModelChunk(p: Payload): ModelChunk {
  const request = isRecord(p.llm_request) ? p.llm_request : undefined;
  const response = isRecord(p.llm_response) ? p.llm_response : undefined;
  const candidates = Array.isArray(response?.candidates) ? response.candidates : [];
  let finish: string | undefined;
  for (const candidate of candidates) {
    finish = isRecord(candidate) ? nonEmptyString(candidate.finishReason) : undefined;
    if (finish !== undefined) break;
  }
  const chunk: ModelChunk = { final: finish !== undefined };
  if (finish !== undefined) chunk.finish_reason = finish;
  const model = nonEmptyString(request?.model) ?? nonEmptyString(response?.modelVersion);
  if (model !== undefined) chunk.model = model;
  if (Array.isArray(request?.messages)) chunk.message_count = request.messages.length;
  if (isRecord(response?.usageMetadata)) {
    chunk.usage_metadata = response.usageMetadata;
    const usage = usageFrom(response.usageMetadata, model);
    if (usage) chunk.usage = usage;
  }
  return chunk;
}

/**
 * Gemini's usageMetadata as a Usage. promptTokenCount includes the cached
 * part (cachedContentTokenCount), unlike Anthropic's input_tokens.
 * thoughtsTokenCount is not in 0.61's hook payload; it is mapped if it appears.
 */
export function usageFrom(meta: Payload, model: string | undefined): Usage | undefined {
  const usage: Usage = { source: "gemini-hook" };
  if (model !== undefined) usage.model = model;
  const fields: Array<[keyof Usage, string]> = [
    ["input_tokens", "promptTokenCount"],
    ["output_tokens", "candidatesTokenCount"],
    ["cache_read_input_tokens", "cachedContentTokenCount"],
    ["reasoning_output_tokens", "thoughtsTokenCount"],
    ["total_tokens", "totalTokenCount"],
  ];
  let counted = false;
  for (const [to, from] of fields) {
    const value = meta[from];
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) {
      (usage as Record<string, unknown>)[to] = value;
      counted = true;
    }
  }
  return counted ? usage : undefined;
}

/**
 * `llm_response.text` is the chunk's text without its thoughts (the SDK's text getter); its `parts` are
 * flattened to strings, thoughts among them, and cannot tell one from the other.
 */
function spokeIn(p: Payload): boolean {
  const response = isRecord(p.llm_response) ? p.llm_response : undefined;
  return typeof response?.text === "string" && response.text.trim() !== "";
}

/** The first message whose text holds a compression's `<state_snapshot>`. */
function snapshotFingerprint(messages: unknown[]): string | undefined {
  for (const message of messages) {
    if (!isRecord(message)) continue;
    const text = contentText(message.content);
    if (text.includes("<state_snapshot>")) return digest(["snapshot", text]).slice(0, 32);
  }
  return undefined;
}

// ---------------------------------------------------------------------------
// Observation (for the adapter's state)

function observe(p: Payload): GeminiObservation {
  const name = hookName(p);
  const observation: GeminiObservation = { hook: name };
  const timestamp = hookTime(p.timestamp);
  if (timestamp !== undefined) observation.timestamp = timestamp;
  switch (name) {
    case "SessionStart": {
      const source = nonEmptyString(p.source);
      if (source !== undefined) observation.source = source;
      break;
    }
    case "PreCompress": {
      const trigger = nonEmptyString(p.trigger);
      if (trigger !== undefined) observation.trigger = trigger;
      break;
    }
    case "BeforeModel": {
      const request = isRecord(p.llm_request) ? p.llm_request : undefined;
      if (Array.isArray(request?.messages)) {
        observation.message_count = request.messages.length;
        const snapshot = snapshotFingerprint(request.messages);
        if (snapshot !== undefined) observation.snapshot = snapshot;
      }
      const model = nonEmptyString(request?.model);
      if (model !== undefined) observation.model = model;
      break;
    }
    case "AfterModel": {
      const chunk = readModelChunk(p);
      observation.final = chunk.final;
      if (spokeIn(p)) observation.spoke = true;
      if (chunk.model !== undefined) observation.model = chunk.model;
      if (chunk.message_count !== undefined) observation.message_count = chunk.message_count;
      if (chunk.usage !== undefined) observation.usage = chunk.usage;
      if (chunk.usage_metadata !== undefined) observation.usage_metadata = chunk.usage_metadata;
      break;
    }
  }
  return observation;
}

// ---------------------------------------------------------------------------
// The normalizer

export const normalizeGeminiHook: HookNormalize<GeminiNormalized> = hookNormalizer({
  // The payload's session_id wins; the hook environment's GEMINI_SESSION_ID names the same session when the
  // payload lacks one. Only without either is a local id invented, which no retry can reproduce. Gemini gives
  // a hook no pid of its own (the hook's parent is a shell).
  context: payloadContext({
    provider: GEMINI_PROVIDER,
    capabilities: GEMINI_CAPABILITIES,
    sessionEnv: "GEMINI_SESSION_ID",
    projectDirEnv: "GEMINI_PROJECT_DIR",
  }),
  contextFields: COMMON_FIELDS,
  rules: RULES,
  eventId,
  time: (p) => hookTime(p.timestamp),
  invalid: (type, json, sid) => ["invalid", type, sid, json],
  observe: (p): GeminiObservation => (p ? observe(p) : { hook: "unknown" }),
});
