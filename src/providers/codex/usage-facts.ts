// What Codex CLI's token figures mean (core/read/usage-facts.ts): OpenAI's Responses counts, where input_tokens
// includes the cached tokens (cached_input_tokens is a subset) and output_tokens the reasoning ones.
import type { UsageFacts } from "../../core/read/usage-facts.ts";

export const codexUsageFacts: UsageFacts = {
  records_usage: true,
  input_includes_cache_read: true,
  output_excludes_reasoning: false,
  response_needs_message_id: true,
  sources: {
    "codex-transcript": "each response's token_usage_record in Codex's rollout file",
    "codex-app-server": "the app server's token usage of each response",
    proxy: "the API's own count of each response, through tapedeck's proxy",
  },
  gaps: [
    {
      // Measured with 0.171: a separate thread whose calls write no rollout file.
      text: "the interactive TUI's title-generation call has no rollout file: counted only when the proxy records",
      closed_by: "proxy",
    },
  ],
};
