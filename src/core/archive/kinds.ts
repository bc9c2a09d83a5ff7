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

export type EventKindName = (typeof EVENT_KINDS)[number];

/** The kinds but `omitted`, in the list's order: a subset that names what it leaves out cannot drift from the list. */
export function eventKindsExcept(...omitted: EventKindName[]): readonly EventKindName[] {
  return EVENT_KINDS.filter((kind) => !omitted.includes(kind));
}
