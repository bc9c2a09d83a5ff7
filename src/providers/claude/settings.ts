// Claude Code settings edits: add or remove exactly tapedeck's hooks and
// status line, leaving every other hook, permission and server untouched.
// Entries are recognised by a marker comment at the end of their command.

export const HOOK_MARKER = "# tapedeck";

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

export interface HookCommandSpec {
  /**
   * The shell command every hook runs (without the marker): the Node hook itself (command transport) or the
   * bash client of the project's hook server (http transport). Never Claude's own http hooks: those print
   * "hook failed" on the agent's screen whenever the server is down, and carry their token in the settings file.
   */
  command: string;
  timeoutSeconds: number;
}

type Json = Record<string, unknown>;

interface HookEntry {
  type: string;
  command?: string;
  url?: string;
  timeout?: number;
  [k: string]: unknown;
}

interface MatcherGroup {
  matcher?: string;
  hooks: HookEntry[];
  [k: string]: unknown;
}

export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function isOurs(entry: unknown): boolean {
  if (!entry || typeof entry !== "object") return false;
  const e = entry as HookEntry;
  if (typeof e.command === "string" && e.command.trimEnd().endsWith(HOOK_MARKER)) return true;
  // Installs before the hook client used Claude's http hooks, which cannot carry a comment: they carried our
  // header instead. Still recognised, so that a re-install or uninstall removes them.
  const headers = (e as { headers?: Record<string, unknown> }).headers;
  return e.type === "http" && !!headers && headers["X-Tapedeck"] === "1";
}

/** Removes tapedeck's hooks and status line; answers how many entries were removed. */
export function removeTapedeck(settings: Json): number {
  let removed = 0;
  const hooks = settings.hooks;
  if (hooks && typeof hooks === "object" && !Array.isArray(hooks)) {
    for (const [event, groups] of Object.entries(hooks as Json)) {
      if (!Array.isArray(groups)) continue;
      const kept: unknown[] = [];
      for (const group of groups) {
        if (!group || typeof group !== "object" || !Array.isArray((group as MatcherGroup).hooks)) {
          kept.push(group);
          continue;
        }
        const g = group as MatcherGroup;
        const before = g.hooks.length;
        const rest = g.hooks.filter((h) => !isOurs(h));
        removed += before - rest.length;
        if (rest.length > 0) kept.push({ ...g, hooks: rest });
        else if (before === 0) kept.push(g);
      }
      if (kept.length > 0) (hooks as Json)[event] = kept;
      else delete (hooks as Json)[event];
    }
    if (Object.keys(hooks as Json).length === 0) delete settings.hooks;
  }
  if (isOurs(settings.statusLine)) {
    delete settings.statusLine;
    removed += 1;
  }
  return removed;
}

/** Adds tapedeck's hooks (replacing any older tapedeck entries: install is idempotent). */
export function addTapedeck(settings: Json, spec: HookCommandSpec): void {
  removeTapedeck(settings);
  const hooks = (settings.hooks && typeof settings.hooks === "object" ? settings.hooks : {}) as Json;
  for (const { event, toolMatcher } of CLAUDE_HOOK_EVENTS) {
    const entry: HookEntry = {
      type: "command",
      command: `${spec.command} ${HOOK_MARKER}`,
      timeout: spec.timeoutSeconds,
    };
    const group: MatcherGroup = toolMatcher ? { matcher: "*", hooks: [entry] } : { hooks: [entry] };
    const existing = Array.isArray(hooks[event]) ? (hooks[event] as unknown[]) : [];
    hooks[event] = [...existing, group];
  }
  settings.hooks = hooks;
}

export function hasForeignStatusLine(settings: Json): boolean {
  return settings.statusLine !== undefined && !isOurs(settings.statusLine);
}

export function addStatusLine(settings: Json, command: string): void {
  settings.statusLine = { type: "command", command: `${command} ${HOOK_MARKER}`, padding: 0 };
}

/** One of tapedeck's entries in the hooks table, as `doctor` reports it. */
export interface FoundHook {
  event: string;
  type: string;
  command?: string;
  url?: string;
  headers?: Record<string, unknown>;
}

/** tapedeck's entries in the hooks table, recognised as `removeTapedeck` and `countTapedeckHooks` do. */
export function findTapedeckHooks(settings: Json): FoundHook[] {
  const out: FoundHook[] = [];
  const hooks = settings.hooks;
  if (!hooks || typeof hooks !== "object" || Array.isArray(hooks)) return out;
  for (const [event, groups] of Object.entries(hooks as Json)) {
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      const entries = (group as { hooks?: unknown } | null)?.hooks;
      if (!Array.isArray(entries)) continue;
      for (const entry of entries) {
        if (!isOurs(entry)) continue;
        const e = entry as { type?: unknown; command?: unknown; url?: unknown; headers?: unknown };
        out.push({
          event,
          type: typeof e.type === "string" ? e.type : "?",
          ...(typeof e.command === "string" ? { command: e.command } : {}),
          ...(typeof e.url === "string" ? { url: e.url } : {}),
          ...(e.headers && typeof e.headers === "object"
            ? { headers: e.headers as Record<string, unknown> }
            : {}),
        });
      }
    }
  }
  return out;
}

export function countTapedeckHooks(settings: Json): number {
  let n = 0;
  const hooks = settings.hooks;
  if (!hooks || typeof hooks !== "object") return 0;
  for (const groups of Object.values(hooks as Json)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups) {
      if (g && typeof g === "object" && Array.isArray((g as MatcherGroup).hooks)) {
        n += (g as MatcherGroup).hooks.filter(isOurs).length;
      }
    }
  }
  return n;
}
