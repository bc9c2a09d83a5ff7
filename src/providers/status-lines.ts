// What each provider adds to the status line (its folder's status-line.ts), for the status-line hook
// (hook-entry.ts) and `tapedeck status --statusline`: a lean list, because the registry loads every
// normalizer, which a status line never runs. test/providers/contract.test.ts keeps it equal to the catalog
// entries' own `statusLine`.
import { claudeStatusLine } from "./claude/status-line.ts";
import type { StatusLinePart } from "./types.ts";

export const STATUS_LINES: Readonly<Record<string, StatusLinePart>> = {
  claude: claudeStatusLine,
};

export function statusLineFor(name: string): StatusLinePart | undefined {
  return Object.hasOwn(STATUS_LINES, name) ? STATUS_LINES[name] : undefined;
}
