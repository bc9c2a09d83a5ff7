// Exact usage of a Claude Code model call, read from the Anthropic Messages
// API traffic: `message_start` carries the id, model and input counts,
// `message_delta` the final output count, `message_stop` ends the message.
import type { Usage } from "../../core/archive/schemas.ts";
import {
  type ApiRequestView,
  type ApiUsageAccumulator,
  type ApiUsageReader,
  type ApiUsageResult,
  shortHeader,
  taggedBodyText,
  tokenCount,
} from "../api-usage.ts";
import { isRecord, nonEmptyString } from "../shared.ts";
import { CLAUDE_CAPABILITIES } from "./normalize.ts";

const COUNTS = [
  "input_tokens",
  "output_tokens",
  "cache_creation_input_tokens",
  "cache_read_input_tokens",
] as const;

function isMessagesCall(req: ApiRequestView): boolean {
  return req.method === "POST" && /^\/v1\/messages(\?|$)/.test(req.url);
}

class MessageAccumulator implements ApiUsageAccumulator {
  private id: string | undefined;
  private model: string | undefined;
  private readonly counts: Record<string, number> = {};

  private merge(usage: unknown): void {
    if (!isRecord(usage)) return;
    for (const k of COUNTS) {
      const n = tokenCount(usage[k]);
      if (n !== undefined) this.counts[k] = n;
    }
  }

  private result(): ApiUsageResult | undefined {
    if (this.id === undefined) return undefined;
    const usage: Usage = { source: "proxy" };
    if (this.model !== undefined) usage.model = this.model;
    usage.message_id = this.id;
    for (const k of COUNTS) if (this.counts[k] !== undefined) usage[k] = this.counts[k];
    return { responseId: this.id, usage, payload: { message_id: this.id, model: this.model } };
  }

  event(json: unknown): ApiUsageResult | undefined {
    if (!isRecord(json)) return undefined;
    if (json.type === "message_start" && isRecord(json.message)) {
      this.id = nonEmptyString(json.message.id);
      this.model = nonEmptyString(json.message.model);
      this.merge(json.message.usage);
    } else if (json.type === "message_delta") {
      this.merge(json.usage);
    } else if (json.type === "message_stop") {
      return this.result();
    }
    return undefined;
  }

  body(json: unknown): ApiUsageResult | undefined {
    if (!isRecord(json)) return undefined;
    this.id = nonEmptyString(json.id);
    this.model = nonEmptyString(json.model);
    this.merge(json.usage);
    return this.result();
  }
}

export const claudeApiUsage: ApiUsageReader = {
  provider: "claude",
  capabilities: CLAUDE_CAPABILITIES,
  identify(req) {
    if (!isMessagesCall(req)) return undefined;
    const sessionId = shortHeader(req, "x-claude-code-session-id");
    if (!sessionId) return undefined;
    const agentId = shortHeader(req, "x-claude-code-agent-id");
    return agentId ? { sessionId, agentId } : { sessionId };
  },
  /** Claude puts the project in its environment block: "Primary working directory: /path". */
  workingDirectory(req) {
    return taggedBodyText(req.rawBody, "Primary working directory: ");
  },
  accumulator: () => new MessageAccumulator(),
  streamEvents: ["message_start", "message_delta", "message_stop"],
};
