// Retrieval for Gemini CLI: BeforeAgent's `hookSpecificOutput.additionalContext` (0.61, measured against the
// mock). Gemini appends it to the user's turn as one more text part, `<hook_context>…</hook_context>`, with `<`
// and `>` inside escaped to `&lt;` `&gt;` (the marker then reads `&lt;tapedeck-memory …&gt;`; stripInjected
// knows that spelling), in the main request and the model router's; the chat file keeps that part too.
import type { ContextInjector } from "../../core/ports/injection.ts";

export const geminiInjector: ContextInjector = {
  hookEvent: "BeforeAgent",
  output: (context) =>
    JSON.stringify({ hookSpecificOutput: { hookEventName: "BeforeAgent", additionalContext: context } }),
};
