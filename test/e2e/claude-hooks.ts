// The hook events of Claude Code a recorder relies on: claude-smoke proves the real claude fires each of them,
// claude-record that install writes every one.
export const RELIED_ON_HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "Stop",
  "StopFailure",
  "SubagentStart",
  "SubagentStop",
  "PreCompact",
  "PostCompact",
  "SessionEnd",
] as const;

export type ReliedOnHookEvent = (typeof RELIED_ON_HOOK_EVENTS)[number];
