// What a tool call acts on, as its input names it: the fields a one-line summary of the call looks for after
// its command, first found first. Memory's item text and the viewer's call line read the same list, so a
// call reads alike in both (the viewer also knows Codex's `cmd`, which memory's stored text never took).
export const TOOL_SUBJECT_FIELDS = [
  "file_path",
  "path",
  "pattern",
  "url",
  "query",
  "description",
  "prompt",
] as const;
