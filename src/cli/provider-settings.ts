// The provider settings file install and uninstall edit: which installer, which file, read and written with
// the CLI's errors (a broken file is reported, never replaced).
import { resolve } from "node:path";
import type { ProviderInstaller } from "../providers/installer.ts";
import { INSTALLERS } from "../providers/installers.ts";
import { readSettingsFile, writeSettingsFile } from "../providers/settings-file.ts";
import { CliError, EXIT } from "./cli-error.ts";

export function installerFor(provider: string, verb: "install" | "uninstall"): ProviderInstaller {
  const installer = Object.hasOwn(INSTALLERS, provider) ? INSTALLERS[provider] : undefined;
  if (installer) return installer;
  throw new CliError(
    `cannot ${verb} "${provider}" (available: ${Object.keys(INSTALLERS).join(", ")})`,
    EXIT.usage,
  );
}

export function readSettings(path: string): Record<string, unknown> {
  try {
    return readSettingsFile(path);
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** Writes the hook settings; through a symlink only to inside the project, unless the user named the file. */
export function writeSettings(
  path: string,
  settings: Record<string, unknown>,
  within: string | undefined,
): void {
  try {
    writeSettingsFile(path, settings, within);
  } catch (error) {
    if (error instanceof Error && !(error as NodeJS.ErrnoException).code) throw new CliError(error.message);
    throw error;
  }
}

export function settingsPathFor(
  installer: ProviderInstaller,
  project: string,
  explicit: string | undefined,
): string {
  return explicit ? resolve(explicit) : installer.settingsPath(project);
}
