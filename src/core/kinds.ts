// The normalized event kinds, in a module without zod so that the hook hot
// path (and provider adapters) can use the list itself, not only its type.
export const EVENT_KINDS = [
  "session_start",
  "user_prompt",
  "assistant_message",
  "tool_call",
  "tool_result",
  "tool_error",
  "compaction",
  "subagent_start",
  "subagent_stop",
  "session_end",
  "turn_usage",
  "provider_event",
] as const;
