// What Gemini CLI's token figures mean (core/read/usage-facts.ts). AfterModel's promptTokenCount includes the cached
// tokens, and candidatesTokenCount leaves out the thinking tokens, which Gemini bills as output; the hooks carry
// neither count, the chat file does (chat-usage.ts records them as their own turn_usage, source gemini-chat).
// The chat file records each response the hooks reported, in the same order, so a gemini-chat record
// completes the gemini-hook one before it instead of standing for a response of its own.
import type { UsageFacts } from "../../core/read/usage-facts.ts";

export const geminiUsage: UsageFacts = {
  records_usage: true,
  input_includes_cache_read: true,
  output_excludes_reasoning: true,
  response_needs_message_id: false,
  sources: {
    "gemini-hook": "AfterModel's final chunk of each response: input (cache reads included) and output",
    "gemini-chat": "the chat file's cache reads and thinking tokens of each response, which no hook carries",
  },
  omits: { "gemini-hook": ["cache_read_input_tokens"] },
  completes: { "gemini-chat": "gemini-hook" },
  gaps: [
    {
      // Measured with 0.61: a generateContent (role utility_router) before each prompt fires no hook and is not
      // in the chat file, and the proxy cannot tie Gemini's requests to a session.
      text: "the model-router call before each prompt reaches no hook or file: not counted",
    },
  ],
};
