// Claude Code settings edits: add or remove exactly tapedeck's hooks and
// status line, leaving every other hook, permission and server untouched.
// The table itself is edited by hooks-table.ts, as for every provider; Claude's
// own are its events, its status line and the http hooks of older installs.
import {
  appendHooks,
  countHooks,
  type FoundHook,
  findHooks,
  groupOf,
  type HookCommandSpec,
  hasMarker,
  markedCommand,
  removeHooks,
  type Settings,
} from "../hooks-table.ts";
import { isRecord } from "../shared.ts";

/** The hook events tapedeck listens to, and whether their matcher applies to tools. */
export const CLAUDE_HOOK_EVENTS: ReadonlyArray<{ event: string; toolMatcher: boolean }> = [
  { event: "SessionStart", toolMatcher: false },
  { event: "UserPromptSubmit", toolMatcher: false },
  { event: "UserPromptExpansion", toolMatcher: false },
  { event: "PreToolUse", toolMatcher: true },
  { event: "PostToolUse", toolMatcher: true },
  { event: "PostToolUseFailure", toolMatcher: true },
  { event: "Stop", toolMatcher: false },
  { event: "StopFailure", toolMatcher: false },
  { event: "SubagentStart", toolMatcher: false },
  { event: "SubagentStop", toolMatcher: false },
  { event: "PreCompact", toolMatcher: false },
  { event: "PostCompact", toolMatcher: false },
  { event: "Notification", toolMatcher: false },
  { event: "CwdChanged", toolMatcher: false },
  { event: "InstructionsLoaded", toolMatcher: false },
  { event: "PreModelSwitch", toolMatcher: false },
  { event: "SessionEnd", toolMatcher: false },
];

/** Claude's entries: the marker, or an older install's http hook with our header. */
function isOurs(entry: unknown): boolean {
  if (hasMarker(entry)) return true;
  // Installs before the hook client used Claude's http hooks, which cannot carry a comment: they carried our
  // header instead. Still recognised, so that a re-install or uninstall removes them.
  if (!isRecord(entry)) return false;
  const headers = entry.headers;
  return entry.type === "http" && isRecord(headers) && headers["X-Tapedeck"] === "1";
}

/** Removes tapedeck's hooks and status line; answers how many entries were removed. */
export function removeTapedeck(settings: Settings): number {
  let removed = removeHooks(settings, isOurs);
  if (isOurs(settings.statusLine)) {
    delete settings.statusLine;
    removed += 1;
  }
  return removed;
}

/** Adds tapedeck's hooks (replacing any older tapedeck entries: install is idempotent). */
export function addTapedeck(settings: Settings, spec: HookCommandSpec): void {
  removeTapedeck(settings);
  const entry = { type: "command", command: markedCommand(spec.command), timeout: spec.timeoutSeconds };
  appendHooks(
    settings,
    CLAUDE_HOOK_EVENTS.map(({ event, toolMatcher }) => ({ event, group: groupOf(entry, toolMatcher) })),
  );
}

export function hasForeignStatusLine(settings: Settings): boolean {
  return settings.statusLine !== undefined && !isOurs(settings.statusLine);
}

export function addStatusLine(settings: Settings, command: string): void {
  settings.statusLine = { type: "command", command: markedCommand(command), padding: 0 };
}

/** tapedeck's entries in the hooks table, recognised as `removeTapedeck` and `countTapedeckHooks` do. */
export function findTapedeckHooks(settings: Settings): FoundHook[] {
  return findHooks(settings, isOurs);
}

export function countTapedeckHooks(settings: Settings): number {
  return countHooks(settings, isOurs);
}
