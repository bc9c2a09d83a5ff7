// The captured Gemini CLI 0.61.0 hook payloads of one first run (fixtures/gemini), in the order the CLI fired
// them: the turn the adapter and the hook path are both tested on.
export const CAPTURED_FIRST_RUN = [
  "SessionStart.json",
  "BeforeAgent.json",
  "PreCompress.json",
  "BeforeModel.json",
  "BeforeToolSelection.json",
  "AfterModel.thought-chunk.json",
  "AfterModel.json",
  "AfterModel.final-chunk-with-functionCall.json",
  "BeforeTool.json",
  "AfterTool.json",
  "AfterAgent.json",
  "SessionEnd.json",
] as const;

/** The events that run records, in order: what the adapter gives alone and the hook path appends. */
export const CAPTURED_FIRST_RUN_KINDS = [
  "session_start",
  "user_prompt",
  "turn_usage",
  "tool_call",
  "tool_result",
  "assistant_message",
  "session_end",
] as const;
