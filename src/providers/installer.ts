// What `tapedeck install <provider>` needs from a provider: where its
// project-local hook settings live and how to add and remove exactly
// tapedeck's entries there. The CLI shows, confirms and writes.
import type { FoundHook, HookCommandSpec, Settings } from "./hooks-table.ts";

export type { FoundHook, HookCommandSpec, Settings };

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
  /** tapedeck's entries as `count` and `remove` recognise them, for `doctor`. */
  find(settings: Settings): FoundHook[];
  statusLine?: {
    hasForeign(settings: Settings): boolean;
    add(settings: Settings, command: string): void;
  };
  /** What the user must still do after install (e.g. trust the hooks). */
  afterInstall?(project: string): string[];
  /** Optional pieces installed only when asked for by their flag (`--notify`, `--mcp`). */
  extras?: readonly InstallExtra[];
}

/** How an extra's entry runs tapedeck: this Node and the built files. */
export interface ExtraCommand {
  node: string;
  /** dist/hook.cjs */
  hook: string;
  /** dist/cli.js */
  cli: string;
}

/** A piece of configuration beside the hooks, e.g. Codex's notify program or an MCP server entry. */
export interface InstallExtra {
  /** The install/uninstall flag that asks for it, without dashes. */
  flag: "notify" | "mcp";
  /** A line for the enablement view. */
  describe(project: string): string;
  /** The file it writes. */
  path(project: string): string;
  /**
   * Adds (or refreshes) the entry; throws an Error with a message for the user when it must not. `settings` is
   * the provider's hook settings file as install is about to write it, for an extra that lives there too.
   */
  add(project: string, command: ExtraCommand, settings: Settings): void;
  /** Removes exactly tapedeck's entry; answers whether there was one. */
  remove(project: string, settings: Settings): boolean;
  present(project: string, settings: Settings): boolean;
  /** The command line the installed entry runs (for `tapedeck doctor`), when it can be read back. */
  runs?(project: string, settings: Settings): string[] | undefined;
  /**
   * The entry is in a user-level file that every project shares (Codex's notify): uninstalling one project
   * leaves it unless its flag is given to uninstall too.
   */
  userLevel?: boolean;
  /** Whether the project config marks a fallback capture path (see ProviderConfig.fallback). */
  fallback?: boolean;
}
