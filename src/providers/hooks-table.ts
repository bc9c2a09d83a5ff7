// tapedeck's entries in an agent's hooks table. Claude Code, Codex and Gemini CLI read the same shape:
//
//   "hooks": {"<Event>": [{"matcher": "*", "hooks": [{"type": "command", "command": "... # tapedeck"}]}]}
//
// and tapedeck's entries are the ones whose command ends with the marker comment (the shell the agent runs
// them with ignores it). This module writes, finds, counts and removes exactly those entries, for every
// installer and for `doctor`, which so reads with the code that wrote. Each installer names its events and
// the fields of its entry (Gemini's timeout in milliseconds and hook name, Codex's clamped timeouts) and keeps
// what lives beside the table (Claude's status line, Gemini's master switch) to itself.
import { isRecord } from "./shared.ts";

export const HOOK_MARKER = "# tapedeck";

/** A provider's settings file, parsed: the installers edit it in place. */
export type Settings = Record<string, unknown>;

export interface HookCommandSpec {
  /**
   * The shell command every hook runs (without the marker): the Node hook itself (command transport) or the
   * bash client of the project's hook server (http transport). Never Claude's own http hooks: those print
   * "hook failed" on the agent's screen whenever the server is down, and carry their token in the settings file.
   */
  command: string;
  timeoutSeconds: number;
}

/** One argument for a POSIX shell: '...' with each ' inside written as '\''. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command an entry runs, marked as tapedeck's. */
export function markedCommand(command: string): string {
  return `${command} ${HOOK_MARKER}`;
}

/** Whether an entry carries the marker: what every installer writes. */
export function hasMarker(entry: unknown): boolean {
  if (!isRecord(entry)) return false;
  const command = entry.command;
  return typeof command === "string" && command.trimEnd().endsWith(HOOK_MARKER);
}

/** How an installer recognises its entries: the marker, or also what an older install of it wrote. */
export type IsOurs = (entry: unknown) => boolean;

/** One of tapedeck's entries where it sits in the table. */
export interface TableHook {
  event: string;
  /** its matcher group's index under the event, and its own index in the group (Codex keys trust by both) */
  groupIndex: number;
  hookIndex: number;
  group: Settings;
  entry: Settings;
}

/** One of tapedeck's entries in the hooks table, as `doctor` reports it. */
export interface FoundHook {
  event: string;
  type: string;
  command?: string;
  url?: string;
  headers?: Record<string, unknown>;
}

/** The hooks table, when the settings have one an agent would read. */
function hooksTable(settings: Settings): Settings | undefined {
  return isRecord(settings.hooks) ? settings.hooks : undefined;
}

function isGroup(value: unknown): value is Settings & { hooks: unknown[] } {
  return isRecord(value) && Array.isArray(value.hooks);
}

/** tapedeck's entries, in the table's order. */
export function tableHooks(settings: Settings, isOurs: IsOurs = hasMarker): TableHook[] {
  const hooks = hooksTable(settings);
  if (!hooks) return [];
  const out: TableHook[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    // Non-array values (Gemini's legacy hooks.enabled/disabled/notifications) are not hook lists.
    if (!Array.isArray(groups)) continue;
    groups.forEach((group, groupIndex) => {
      if (!isGroup(group)) return;
      group.hooks.forEach((entry, hookIndex) => {
        if (isOurs(entry)) out.push({ event, groupIndex, hookIndex, group, entry: entry as Settings });
      });
    });
  }
  return out;
}

export function countHooks(settings: Settings, isOurs: IsOurs = hasMarker): number {
  return tableHooks(settings, isOurs).length;
}

export function findHooks(settings: Settings, isOurs: IsOurs = hasMarker): FoundHook[] {
  return tableHooks(settings, isOurs).map(({ event, entry: e }) => ({
    event,
    type: typeof e.type === "string" ? e.type : "?",
    ...(typeof e.command === "string" ? { command: e.command } : {}),
    ...(typeof e.url === "string" ? { url: e.url } : {}),
    ...(isRecord(e.headers) ? { headers: e.headers } : {}),
  }));
}

/**
 * Removes tapedeck's entries and answers how many went. A group left empty goes with them (one that was empty
 * already is the user's and stays), an event left without groups too, and the table once it is empty.
 */
export function removeHooks(settings: Settings, isOurs: IsOurs = hasMarker): number {
  const hooks = hooksTable(settings);
  if (!hooks) return 0;
  let removed = 0;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    const kept: unknown[] = [];
    for (const group of groups) {
      if (!isGroup(group)) {
        kept.push(group);
        continue;
      }
      const rest = group.hooks.filter((h) => !isOurs(h));
      removed += group.hooks.length - rest.length;
      if (rest.length > 0) kept.push(rest.length === group.hooks.length ? group : { ...group, hooks: rest });
      else if (group.hooks.length === 0) kept.push(group);
    }
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  if (Object.keys(hooks).length === 0) delete settings.hooks;
  return removed;
}

/** One matcher group to append under an event. */
export interface HookGroup {
  event: string;
  group: Settings;
}

/** Appends the groups after the user's own under each event; the installer removed its older entries first. */
export function appendHooks(settings: Settings, groups: readonly HookGroup[]): void {
  const hooks = hooksTable(settings) ?? {};
  for (const { event, group } of groups) {
    const existing = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    hooks[event] = [...existing, group];
  }
  settings.hooks = hooks;
}

/** A matcher group of a copy of one entry; `matcher: "*"` for events whose matcher applies to tools. */
export function groupOf(entry: Settings, toolMatcher: boolean): Settings {
  return toolMatcher ? { matcher: "*", hooks: [{ ...entry }] } : { hooks: [{ ...entry }] };
}
