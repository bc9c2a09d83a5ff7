// What Claude Code's token figures mean (core/read/usage-facts.ts): Anthropic's counts, cache reads and writes apart
// from input, thinking inside output.
import type { UsageFacts } from "../../core/read/usage-facts.ts";

export const claudeUsageFacts: UsageFacts = {
  records_usage: true,
  // Claude's subscriptions count usage in 5-hour windows from the first message (what ccusage's blocks show).
  usage_window_hours: 5,
  input_includes_cache_read: false,
  output_excludes_reasoning: false,
  response_needs_message_id: false,
  sources: {
    "claude-transcript": "each API response in Claude's transcript, counted once per message id",
    proxy: "the API's own count of each response, through tapedeck's proxy",
  },
  gaps: [
    {
      // The archive feed's measured reason for existing (proxy/extensions/archive-feed.ts).
      text: "/compact's summary call is in no transcript: counted only when the proxy records",
      closed_by: "proxy",
    },
  ],
};
