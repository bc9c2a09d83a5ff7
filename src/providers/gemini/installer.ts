// `tapedeck install gemini`: tapedeck's hooks in the project's
// `.gemini/settings.json`, the workspace settings Gemini CLI (0.61) reads from
// the directory it is started in. Every other setting and hook is kept;
// install replaces older tapedeck entries (idempotent), uninstall removes
// exactly what install added.
//
// The file is Gemini's whole workspace settings, not a hooks file:
//
//   "hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command",
//     "name": "tapedeck", "command": "'<node>' '<dist>/hook.cjs' gemini # tapedeck",
//     "timeout": 10000, "description": "..."}]}], ...},
//   "hooksConfig": {"enabled": true},
//   "tapedeck": {"added": ["hooksConfig.enabled"]}
//
// - Our hook entries are recognised by the `# tapedeck` marker at the end of
//   their command (the shell Gemini runs them with ignores it), as Claude's.
//   Gemini has command hooks only (no http type), and their timeout is in
//   MILLISECONDS (default 60 s).
// - The `name` makes Gemini's one-time warning about new project hooks say
//   "tapedeck" instead of the whole command, and lets a user switch all of
//   them off at once (`hooksConfig.disabled: ["tapedeck"]`, `/hooks disable
//   tapedeck`).
// - `hooksConfig.enabled` is Gemini's master switch (default true). Install
//   sets it to true only when this file does not set it at all (so a user
//   level `false` does not silently stop recording here), and never
//   overrides a value the file has. What install added is listed under the
//   top-level "tapedeck" key, which Gemini ignores (its settings schema lets
//   unknown keys through, without a warning), so uninstall removes the switch
//   only if install added it, and only while it still holds what install put
//   there.
//
// Hooked events: all of Gemini's hook events except BeforeToolSelection.
// BeforeToolSelection fires before every model call with the whole history
// flattened into the payload, and the adapter records nothing from it (the
// same request reaches it as BeforeModel a moment earlier): installing it would
// only cost one more Node process per model call. The adapter needs
// BeforeModel (compaction detection), AfterModel (usage) and PreCompress.
import { join } from "node:path";
import { readAgentFileText } from "../agent-file.ts";
import {
  appendHooks,
  countHooks,
  findHooks,
  groupOf,
  type HookCommandSpec,
  markedCommand,
  removeHooks,
} from "../hooks-table.ts";
import type { ProviderInstaller } from "../installer.ts";
import { isRecord } from "../shared.ts";

type Json = Record<string, unknown>;

/** The Gemini CLI 0.61 hook events tapedeck listens to (10 of its 11; see above for BeforeToolSelection). */
export const GEMINI_HOOK_EVENTS: readonly string[] = [
  "SessionStart",
  "BeforeAgent",
  "BeforeModel",
  "AfterModel",
  "BeforeTool",
  "AfterTool",
  "PreCompress",
  "AfterAgent",
  "Notification",
  "SessionEnd",
];

/** Gemini's hook events that are deliberately not installed. */
export const GEMINI_SKIPPED_HOOK_EVENTS: readonly string[] = ["BeforeToolSelection"];

/** The hook name Gemini shows (trust warning, /hooks) and matches in hooksConfig.disabled. */
export const GEMINI_HOOK_NAME = "tapedeck";

/** Top-level key listing the settings install added besides its hooks, so uninstall can take them back exactly. */
export const GEMINI_MARKER_KEY = "tapedeck";

const HOOKS_ENABLED = "hooksConfig.enabled";
const DESCRIPTION = "Records this session into .tapedeck/ (tapedeck, capture only)";

export function geminiSettingsPath(project: string): string {
  return join(project, ".gemini", "settings.json");
}

/** What the marker says install added (unknown entries are kept as they are, and ignored). */
function addedByInstall(settings: Json): string[] {
  const marker = settings[GEMINI_MARKER_KEY];
  if (!isRecord(marker) || !Array.isArray(marker.added)) return [];
  return marker.added.filter((item): item is string => typeof item === "string");
}

/**
 * Removes tapedeck's hooks, takes back the settings install added (per the
 * marker), and the marker itself. Answers how many entries went: each hook,
 * plus one for the marker with what it restored.
 */
export function removeGeminiHooks(settings: Json): number {
  let removed = removeHooks(settings);
  if (Object.hasOwn(settings, GEMINI_MARKER_KEY)) {
    if (addedByInstall(settings).includes(HOOKS_ENABLED)) {
      const config = settings.hooksConfig;
      // Only what install put there: a value the user changed since is theirs.
      if (isRecord(config) && config.enabled === true) {
        delete config.enabled;
        if (Object.keys(config).length === 0) delete settings.hooksConfig;
      }
    }
    delete settings[GEMINI_MARKER_KEY];
    removed += 1;
  }
  return removed;
}

/** Adds tapedeck's hooks (replacing older tapedeck entries: install is idempotent). */
export function addGeminiHooks(settings: Json, spec: HookCommandSpec): void {
  removeGeminiHooks(settings);
  const entry = {
    type: "command",
    name: GEMINI_HOOK_NAME,
    command: markedCommand(spec.command),
    // Gemini's hook timeouts are in milliseconds.
    timeout: Math.max(1, Math.round(spec.timeoutSeconds * 1000)),
    description: DESCRIPTION,
  };
  appendHooks(
    settings,
    GEMINI_HOOK_EVENTS.map((event) => ({ event, group: groupOf(entry, true) })),
  );
  const config = settings.hooksConfig;
  if (config === undefined || (isRecord(config) && !Object.hasOwn(config, "enabled"))) {
    settings.hooksConfig = { ...(config ?? {}), enabled: true };
    settings[GEMINI_MARKER_KEY] = { added: [HOOKS_ENABLED] };
  }
}

function readSettings(path: string): Json | undefined {
  try {
    const value = JSON.parse(readAgentFileText(path)) as unknown;
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Lines for the user after install: trust, the one-time warning, and anything in the file that stops the hooks. */
export function geminiAfterInstall(project: string): string[] {
  const lines = [
    "Gemini CLI runs project hooks only in a trusted folder: trust this folder when gemini asks (or with",
    "  /permissions), or nothing is recorded. For gemini -p, GEMINI_CLI_TRUST_WORKSPACE=true trusts it too, but",
    "  --skip-trust runs without this project's settings, so without these hooks.",
    "Start gemini in this directory: it reads .gemini/settings.json only from the directory it starts in.",
    `On its next start Gemini warns once that project hooks ("${GEMINI_HOOK_NAME}") were added, then trusts them.`,
  ];
  const settings = readSettings(geminiSettingsPath(project));
  const config = settings?.hooksConfig;
  if (isRecord(config) && config.enabled === false) {
    lines.push(
      "hooksConfig.enabled is false in .gemini/settings.json: Gemini runs no hooks here, so nothing is recorded",
      "  until you set it to true (tapedeck leaves your value as it is).",
    );
  }
  if (isRecord(config) && Array.isArray(config.disabled) && config.disabled.includes(GEMINI_HOOK_NAME)) {
    lines.push(
      `"${GEMINI_HOOK_NAME}" is listed in hooksConfig.disabled: Gemini skips these hooks until you remove it.`,
    );
  }
  return lines;
}

export const geminiInstaller: ProviderInstaller = {
  provider: "gemini",
  settingsPath: geminiSettingsPath,
  // Gemini has no http hook type.
  transports: ["http", "command"],
  hookEvents: GEMINI_HOOK_EVENTS.length,
  add: addGeminiHooks,
  remove: removeGeminiHooks,
  count: (settings) => countHooks(settings),
  find: (settings) => findHooks(settings),
  afterInstall: geminiAfterInstall,
};
