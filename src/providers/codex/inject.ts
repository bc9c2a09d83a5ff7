// Retrieval for Codex CLI: UserPromptSubmit's `hookSpecificOutput.additionalContext` (0.171, measured against
// the mock). Codex adds it to the Responses `input` as a `developer` message right after the user's message.
// 8 KiB passed whole.
import type { ContextInjector } from "../../core/ports/injection.ts";

export const codexInjector: ContextInjector = {
  hookEvent: "UserPromptSubmit",
  output: (context) =>
    JSON.stringify({ hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: context } }),
};
