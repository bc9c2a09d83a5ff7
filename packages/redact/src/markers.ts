// The marks redaction leaves where it took something out: `[REDACTED:<kind>]` for a span (scan.ts, value.ts)
// and `[OMITTED:<what>]` for a whole text (text.ts). A kind is a rule's name or a project pattern's
// (rules-file.ts: lowercase letters, digits, underscores); an omission's may hold a hyphen (`process-table`).
// Text derived from redacted text (a search's terms) leaves them out: they say what was removed, not what the
// text is about.
export const REDACTION_MARKER = /\[(?:REDACTED|OMITTED):[a-z0-9_-]{1,64}\]/g;
