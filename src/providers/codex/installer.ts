// `tapedeck install codex`: tapedeck's hooks in the project's `.codex/hooks.json`
// (Codex 0.171 reads `<repo>/.codex/hooks.json` once the project is trusted),
// in the same shape as Claude Code's hooks, recognised by the same
// `# tapedeck` marker at the end of their command. Every other entry is kept;
// install replaces older tapedeck entries (idempotent), uninstall removes
// exactly them.
//
// Codex runs a hook only once it is TRUSTED and silently skips it otherwise:
// no warning, no error, the session just goes unrecorded. Trust lives in
// `$CODEX_HOME/config.toml`, one table per hook:
//
//   [hooks.state."<abs path of hooks.json>:<event_snake>:<group index>:<hook index>"]
//   trusted_hash = "sha256:<hex>"
//
// The hash (measured against `codex app-server`'s `hooks/list`, which reports
// each hook's `key`, `currentHash` and `trustStatus`) is the sha256 of the
// compact JSON, keys sorted at every level, of the hook's normalized identity:
//   {"event_name": "<event_snake>", "matcher": "<m>" (only when set),
//    "hooks": [{"type": "command", "command": "...", "timeout": <s>, "async": false}]}
// with the timeout as Codex applies it (SessionEnd and Interrupt clamped to
// 3 s). A stored hash that differs means "modified": Codex skips that hook
// until it is trusted again. tapedeck never writes trust itself: trusting a
// hook is the user's decision (the TUI's /hooks), or an automation's
// (`--dangerously-bypass-hook-trust`).
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readAgentFileText } from "../agent-file.ts";
import {
  appendHooks,
  countHooks,
  findHooks,
  groupOf,
  type HookCommandSpec,
  markedCommand,
  removeHooks,
  tableHooks,
} from "../hooks-table.ts";
import type { ProviderInstaller } from "../installer.ts";
import { canonicalJson, isRecord } from "../shared.ts";
import { codexConfigFile, defaultCodexHome } from "./home.ts";
import { parseTomlTables, type TomlTables, type TomlValue, tableKey } from "./toml.ts";

type Json = Record<string, unknown>;

/** The events whose matcher applies to tools. */
const TOOL_EVENTS = new Set(["PreToolUse", "PermissionRequest", "PostToolUse"]);

/**
 * The 12 hook events of Codex 0.171, each with the key Codex names it by in trust entries and hooks/list (its
 * name in snake case) and whether its matcher applies to tools.
 */
export const CODEX_HOOK_EVENTS: ReadonlyArray<{ event: string; key: string; toolMatcher: boolean }> = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  // Record-only: a PermissionRequest hook that exits 0 with empty stdout gives no decision
  // (`hookSpecificOutput.decision` is optional in the output schema), so Codex asks the user as
  // it would without the hook; only an explicit `{"decision":{"behavior":"allow"|"deny"}}` decides.
  // Measured (test/e2e/codex-record.test.ts): with this hook trusted, the approval request still
  // reaches the client, and its accept or decline is what happens.
  "PermissionRequest",
  "PostToolUse",
  "PreCompact",
  "PostCompact",
  "SubagentStart",
  "SubagentStop",
  "Stop",
  "Interrupt",
  "SessionEnd",
].map((event) => ({
  event,
  key: event.replace(/(?<!^)[A-Z]/g, (c) => `_${c}`).toLowerCase(),
  toolMatcher: TOOL_EVENTS.has(event),
}));

/** Codex clamps these events' hook timeouts to 3 s (and says so in a warning item on every run). */
const CLAMPED_TIMEOUT_EVENTS = new Set(["SessionEnd", "Interrupt"]);
const CLAMPED_TIMEOUT_SECONDS = 3;
const DEFAULT_TIMEOUT_SECONDS = 600;

export function codexHooksPath(project: string): string {
  return join(project, ".codex", "hooks.json");
}

/** The timeout Codex runs (and hashes) a command hook with. */
export function effectiveTimeout(event: string, timeout: unknown): number {
  const t = typeof timeout === "number" && Number.isFinite(timeout) ? Math.floor(timeout) : undefined;
  if (CLAMPED_TIMEOUT_EVENTS.has(event)) {
    return Math.min(Math.max(t ?? CLAMPED_TIMEOUT_SECONDS, 1), CLAMPED_TIMEOUT_SECONDS);
  }
  return Math.max(t ?? DEFAULT_TIMEOUT_SECONDS, 1);
}

export function addCodexHooks(settings: Json, spec: HookCommandSpec): void {
  removeHooks(settings);
  const groups = CODEX_HOOK_EVENTS.map(({ event, toolMatcher }) => {
    // Codex has no http hooks: always a command, whatever the spec offers.
    const timeout = CLAMPED_TIMEOUT_EVENTS.has(event)
      ? Math.min(spec.timeoutSeconds, CLAMPED_TIMEOUT_SECONDS)
      : spec.timeoutSeconds;
    return {
      event,
      group: groupOf({ type: "command", command: markedCommand(spec.command), timeout }, toolMatcher),
    };
  });
  appendHooks(settings, groups);
}

// ---------------------------------------------------------------------------
// Trust

/**
 * The hash Codex 0.171 trusts a command hook by (`currentHash` in `hooks/list`). Only for plain command hooks
 * like tapedeck's: `statusMessage`, `commandWindows` or other handler fields would be part of the identity.
 */
export function codexCommandHookHash(
  event: string,
  matcher: string | undefined,
  command: string,
  timeout: unknown,
): string {
  const spec = CODEX_HOOK_EVENTS.find((e) => e.event === event);
  const identity: Json = {
    event_name: spec?.key ?? event,
    hooks: [{ type: "command", command, timeout: effectiveTimeout(event, timeout), async: false }],
  };
  if (matcher !== undefined) identity.matcher = matcher;
  // Keys sorted at every level, compact: what Codex hashes.
  return `sha256:${createHash("sha256").update(canonicalJson(identity)).digest("hex")}`;
}

export interface InstalledCodexHook {
  event: string;
  /** `<hooks.json path>:<event_snake>:<group index>:<hook index>`: the key of `[hooks.state."<key>"]`. */
  key: string;
  /** The trusted_hash that would make Codex run this hook as it stands. */
  hash: string;
}

/** tapedeck's hooks in a parsed hooks.json, with the trust key and hash Codex gives each. */
export function installedCodexHooks(settings: Json, hooksPath: string): InstalledCodexHook[] {
  const order = (event: string) => CODEX_HOOK_EVENTS.findIndex((e) => e.event === event);
  return tableHooks(settings)
    .filter((hook) => order(hook.event) >= 0)
    .sort((a, b) => order(a.event) - order(b.event))
    .map(({ event, group, groupIndex, hookIndex, entry }) => {
      const eventKey = CODEX_HOOK_EVENTS[order(event)]!.key;
      const matcher = typeof group.matcher === "string" && group.matcher !== "" ? group.matcher : undefined;
      return {
        event,
        key: `${hooksPath}:${eventKey}:${groupIndex}:${hookIndex}`,
        hash: codexCommandHookHash(event, matcher, entry.command as string, entry.timeout),
      };
    });
}

export { defaultCodexHome };

export type CodexHookTrustState =
  /** every tapedeck hook has a stored trusted_hash equal to its current hash */
  | "trusted"
  /** none of tapedeck's hooks has a trust entry: Codex silently skips them all */
  | "untrusted"
  /** some are trusted, some not (or trusted for an older version of the hook: "modified") */
  | "partial"
  /** tapedeck's hooks are not in the project's .codex/hooks.json */
  | "not-installed";

export interface CodexHookTrust {
  state: CodexHookTrustState;
  hooks_path: string;
  config_path: string;
  /** Whether config.toml marks the project trusted; without it Codex ignores `.codex/hooks.json` entirely. */
  project_trusted: boolean;
  installed: number;
  trusted: number;
  /** Trust entries whose hash differs from the hook's current one (Codex reports them as "modified"). */
  modified: number;
  untrusted: number;
  /** Hooks switched off with `enabled = false`. */
  disabled: number;
  /** Events whose tapedeck hook will not run. */
  not_running: string[];
  /** Problems reading the files (a config.toml that could not be parsed is read as having no trust). */
  warnings: string[];
}

/**
 * Whether Codex will run tapedeck's installed hooks for `project`: reads the project's `.codex/hooks.json` and
 * `<codexHome>/config.toml` (`[hooks.state."<key>"]` trusted_hash / enabled, `[projects."<dir>"]` trust_level)
 * and compares each stored hash with the one Codex computes (see codexCommandHookHash). Never throws.
 */
export function codexHookTrust(project: string, codexHome: string = defaultCodexHome()): CodexHookTrust {
  const hooksPath = codexHooksPath(resolve(project));
  const configPath = codexConfigFile(codexHome);
  const warnings: string[] = [];
  let settings: Json = {};
  try {
    const parsed = JSON.parse(readAgentFileText(hooksPath)) as unknown;
    if (isRecord(parsed)) settings = parsed;
    else warnings.push(`${hooksPath} is not a JSON object`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") warnings.push(`cannot read ${hooksPath}`);
  }
  let toml: TomlTables = new Map();
  try {
    toml = parseTomlTables(readAgentFileText(configPath));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") warnings.push(`cannot read ${configPath}`);
  }
  const projectTrusted = [resolve(project), realpathOr(resolve(project))].some(
    (dir) => projectTrustLevel(toml, dir) === "trusted",
  );
  // Codex keys by the path it discovered hooks.json at; accept the realpath spelling too.
  const installed = installedCodexHooks(settings, hooksPath);
  const realHooksPath = codexHooksPath(realpathOr(resolve(project)));
  let trusted = 0;
  let modified = 0;
  let untrusted = 0;
  let disabled = 0;
  const notRunning: string[] = [];
  for (const hook of installed) {
    const keys = [hook.key];
    if (realHooksPath !== hooksPath) keys.push(realHooksPath + hook.key.slice(hooksPath.length));
    const state = keys.map((k) => toml.get(tableKey(["hooks", "state", k]))).find((s) => s !== undefined);
    const stored = state?.get("trusted_hash");
    let runs = false;
    if (state?.get("enabled") === false) disabled += 1;
    else if (stored === undefined) untrusted += 1;
    else if (stored === hook.hash) {
      trusted += 1;
      runs = true;
    } else modified += 1;
    if (!runs) notRunning.push(hook.event);
  }
  const state: CodexHookTrustState =
    installed.length === 0
      ? "not-installed"
      : trusted === installed.length
        ? "trusted"
        : trusted === 0 && modified === 0 && disabled === 0
          ? "untrusted"
          : "partial";
  return {
    state,
    hooks_path: hooksPath,
    config_path: configPath,
    project_trusted: projectTrusted,
    installed: installed.length,
    trusted,
    modified,
    untrusted,
    disabled,
    not_running: notRunning,
    warnings,
  };
}

/** The nearest `[projects."<dir>"] trust_level` at or above `dir` (a trusted repository covers its folders). */
function projectTrustLevel(toml: TomlTables, dir: string): TomlValue | undefined {
  for (let d = dir; ; d = dirname(d)) {
    const level = toml.get(tableKey(["projects", d]))?.get("trust_level");
    if (level !== undefined) return level;
    if (dirname(d) === d) return undefined;
  }
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** What to do so that Codex runs tapedeck's hooks in `project`, one action per line. */
export function codexTrustFixes(project: string): string[] {
  return [
    `Trust them: run \`codex\` in ${project}, type /hooks and trust the tapedeck hooks (Codex stores that in $CODEX_HOME/config.toml).`,
    "Automation only: `codex exec --dangerously-bypass-hook-trust ...` runs them without stored trust.",
    "Codex must trust the project folder too, or it ignores .codex/hooks.json.",
  ];
}

/** Printed after `tapedeck install codex`. */
export function codexTrustAdvice(project: string): string[] {
  return [
    "Codex runs these hooks only once you TRUST them; until then it skips them silently and records nothing.",
    ...codexTrustFixes(project).map((line) => `  ${line}`),
    "  Check with: tapedeck doctor --provider codex",
  ];
}

export const codexInstaller: ProviderInstaller = {
  provider: "codex",
  settingsPath: codexHooksPath,
  transports: ["http", "command"],
  hookEvents: CODEX_HOOK_EVENTS.length,
  add: addCodexHooks,
  remove: (settings) => removeHooks(settings),
  count: (settings) => countHooks(settings),
  find: (settings) => findHooks(settings),
  afterInstall: codexTrustAdvice,
};
