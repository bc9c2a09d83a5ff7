// Retrieval for Claude Code: UserPromptSubmit's `additionalContext` (2.1.332, measured against the mock). It
// reaches the model as a `role: "system"` message, "UserPromptSubmit hook additional context: <text>", in the
// requests of the turn the prompt starts. Kept whole below 10,000 characters; longer, claude saves it to a
// file and sends the model a 2 KB preview instead, which loses the marker's close tag (the budget stays below).
import type { ContextInjector } from "../../core/ports/injection.ts";

export const claudeInjector: ContextInjector = {
  hookEvent: "UserPromptSubmit",
  output: (context) =>
    JSON.stringify({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: context } }),
};
