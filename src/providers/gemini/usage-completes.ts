// Gemini's usage facts (usage-facts.ts) with how its two sources pair, as the catalog and the usage reports'
// lean list give them: the chat file records each response the hooks reported, in the same order
// (chat-usage.ts), so a gemini-chat record completes the gemini-hook one before it instead of standing for
// a response of its own.
import type { UsageFacts } from "../../core/usage-facts.ts";
import { geminiUsageFacts } from "./usage-facts.ts";

export const geminiUsage: UsageFacts = {
  ...geminiUsageFacts,
  completes: { "gemini-chat": "gemini-hook" },
};
