// What `tapedeck install <provider>` needs from a provider: where its
// project-local hook settings live and how to add and remove exactly
// tapedeck's entries there. The CLI shows, confirms and writes.
import type { HookCommandSpec } from "./claude/settings.ts";

export type { HookCommandSpec };

export type Settings = Record<string, unknown>;

export interface ProviderInstaller {
  provider: string;
  /** The project-local settings file the hooks go into. */
  settingsPath(project: string): string;
  transports: ReadonlyArray<"command" | "http">;
  /** Number of hook events tapedeck installs. */
  hookEvents: number;
  /** Adds tapedeck's hooks (replacing older tapedeck entries: install is idempotent). */
  add(settings: Settings, spec: HookCommandSpec): void;
  /** Removes tapedeck's hooks (and status line); answers how many entries went. */
  remove(settings: Settings): number;
  count(settings: Settings): number;
  statusLine?: {
    hasForeign(settings: Settings): boolean;
    add(settings: Settings, command: string): void;
  };
  /** What the user must still do after install (e.g. trust the hooks). */
  afterInstall?(project: string): string[];
}
