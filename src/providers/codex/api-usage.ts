// Exact usage of a Codex model call, read from the OpenAI Responses API
// traffic: `response.completed` (or `response.incomplete`) carries the
// response id, model and usage. Codex names the session in its headers:
// `session-id` is the root thread (the hooks' session_id), `thread-id` the
// calling thread, a subagent's own when it differs.
import type { Usage } from "../../core/archive/schemas.ts";
import {
  type ApiRequestView,
  type ApiUsageAccumulator,
  type ApiUsageReader,
  type ApiUsageResult,
  shortHeader,
  tokenCount,
} from "../api-usage.ts";
import { isRecord, nonEmptyString } from "../shared.ts";
import { CODEX_CAPABILITIES } from "./normalize.ts";

const FINAL_EVENTS = new Set(["response.completed", "response.incomplete"]);
const MAX_METADATA_CHARS = 16 * 1024;

function isResponsesCall(req: ApiRequestView): boolean {
  const path = req.url.split("?")[0] ?? "";
  return req.method === "POST" && /\/responses$/.test(path);
}

/**
 * The Responses usage in the archive's names. OpenAI semantics are kept: `input_tokens` includes the cached
 * ones, `output_tokens` the reasoning ones, `total_tokens` is their sum. The same mapping as the rollout's
 * `token_usage_record`, so both recorders of one response agree.
 */
export function responsesUsage(raw: unknown, responseId: string, model: string | undefined): Usage {
  const usage: Usage = { source: "proxy" };
  if (model !== undefined) usage.model = model;
  usage.message_id = responseId;
  if (!isRecord(raw)) return usage;
  const set = (key: keyof Usage, value: unknown) => {
    const n = tokenCount(value);
    if (n !== undefined) (usage as Record<string, unknown>)[key] = n;
  };
  set("input_tokens", raw.input_tokens);
  if (isRecord(raw.input_tokens_details))
    set("cache_read_input_tokens", raw.input_tokens_details.cached_tokens);
  set("output_tokens", raw.output_tokens);
  if (isRecord(raw.output_tokens_details)) {
    set("reasoning_output_tokens", raw.output_tokens_details.reasoning_tokens);
  }
  set("total_tokens", raw.total_tokens);
  return usage;
}

function fromResponse(response: unknown): ApiUsageResult | undefined {
  if (!isRecord(response)) return undefined;
  const id = nonEmptyString(response.id);
  if (id === undefined || !isRecord(response.usage)) return undefined;
  const model = nonEmptyString(response.model);
  const payload: Record<string, unknown> = { response_id: id };
  if (model !== undefined) payload.model = model;
  const status = nonEmptyString(response.status);
  if (status !== undefined && status !== "completed") payload.status = status;
  return { responseId: id, usage: responsesUsage(response.usage, id, model), payload };
}

class ResponseAccumulator implements ApiUsageAccumulator {
  private done = false;
  event(json: unknown): ApiUsageResult | undefined {
    if (this.done || !isRecord(json) || typeof json.type !== "string" || !FINAL_EVENTS.has(json.type)) {
      return undefined;
    }
    const result = fromResponse(json.response);
    if (result) this.done = true;
    return result;
  }
  body(json: unknown): ApiUsageResult | undefined {
    return fromResponse(json);
  }
}

/** The turn id from `x-codex-turn-metadata` (JSON), when it parses. */
function turnIdOf(req: ApiRequestView): string | undefined {
  const raw = shortHeader(req, "x-codex-turn-metadata", MAX_METADATA_CHARS);
  if (!raw) return undefined;
  try {
    const meta = JSON.parse(raw) as unknown;
    const turn = isRecord(meta) ? nonEmptyString(meta.turn_id) : undefined;
    return turn && turn.length <= 256 ? turn : undefined;
  } catch {
    return undefined;
  }
}

export const codexApiUsage: ApiUsageReader = {
  provider: "codex",
  capabilities: CODEX_CAPABILITIES,
  identify(req) {
    if (!isResponsesCall(req)) return undefined;
    const sessionId = shortHeader(req, "session-id");
    if (!sessionId) return undefined;
    const out: { sessionId: string; agentId?: string; turnId?: string } = { sessionId };
    const thread = shortHeader(req, "thread-id");
    if (thread && thread !== sessionId) out.agentId = thread;
    const turn = turnIdOf(req);
    if (turn) out.turnId = turn;
    return out;
  },
  /**
   * Codex opens each conversation with a message whose text starts with `<environment_context>` and whose first
   * element is `<cwd>`, the working directory. Only such a message counts (AGENTS.md and other files come as
   * messages with a heading of their own), and the last one wins.
   */
  workingDirectory(req) {
    const text = req.rawBody.toString("utf8");
    const all = [
      ...text.matchAll(
        /"text":"<environment_context>(?:\\n|\\t|\\r| )*<cwd>((?:[^<"\\]|\\.){1,4096}?)<\/cwd>/g,
      ),
    ];
    const raw = all.at(-1)?.[1];
    if (raw === undefined) return undefined;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return undefined;
    }
  },
  accumulator: () => new ResponseAccumulator(),
  streamEvents: [...FINAL_EVENTS],
};
