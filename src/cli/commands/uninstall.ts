// `tapedeck uninstall <provider>`: removes exactly what install added; recorded sessions are kept.
import { existsSync, rmdirSync } from "node:fs";
import { dirname, relative } from "node:path";
import type { Command } from "commander";
import { readConfig, writeConfig } from "../../core/archive/config.ts";
import { isInside } from "../../core/archive/paths.ts";
import { fields } from "../../core/base/printable.ts";
import { removeAgentFile } from "../../providers/settings-file.ts";
import { stopHookServer } from "../../serve/transport.ts";
import { CliError, EXIT, note, printJson, say } from "../common.ts";
import { locateProject } from "../project.ts";
import { installerFor, readSettings, settingsPathFor, writeSettings } from "../provider-settings.ts";
import { providerName } from "../providers.ts";

/** Removes a settings file uninstall emptied, and its directory (`.claude/`...) if nothing else is in it. */
function removeLeftBlank(path: string, project: string): void {
  removeAgentFile(path, project);
  const dir = dirname(path);
  if (dir === project || !isInside(project, dir)) return;
  try {
    rmdirSync(dir);
  } catch {
    // not empty (the user's files): it stays
  }
}

async function uninstallCommand(
  provider: string,
  opts: { project?: string; settings?: string; notify?: boolean; json?: boolean },
) {
  const installer = installerFor(provider, "uninstall");
  const project = locateProject(opts.project).root;
  const settingsPath = settingsPathFor(installer, project, opts.settings);
  const settings = readSettings(settingsPath);
  const before = JSON.stringify(settings);
  const existed = existsSync(settingsPath);
  const removed = installer.remove(settings);
  const extrasRemoved: Record<string, string> = {};
  const extrasKept: Record<string, string> = {};
  if (opts.notify && !installer.extras?.some((e) => e.flag === "notify")) {
    throw new CliError(`${providerName(provider)} has no --notify`, EXIT.usage);
  }
  for (const extra of installer.extras ?? []) {
    try {
      if (extra.userLevel && !opts[extra.flag as "notify"]) {
        if (extra.present(project, settings)) extrasKept[extra.flag] = extra.path(project);
        continue;
      }
      if (extra.remove(project, settings)) extrasRemoved[extra.flag] = extra.path(project);
    } catch (error) {
      note(fields`tapedeck: ${(error as Error).message}\n`);
    }
  }
  if (JSON.stringify(settings) !== before) {
    // A file left with nothing in it is the one install created (or an empty one): it goes, as it came.
    if (Object.keys(settings).length === 0 && existed && !opts.settings)
      removeLeftBlank(settingsPath, project);
    else writeSettings(settingsPath, settings, opts.settings ? undefined : project);
  }
  const config = readConfig(project);
  const configured = !!config?.providers[provider];
  if (config && configured) {
    delete config.providers[provider];
    writeConfig(project, config);
  }
  await stopHookServer(project);
  const nothing = removed === 0 && !configured && Object.keys(extrasRemoved).length === 0;
  if (opts.json) {
    printJson({
      provider,
      project,
      settings: settingsPath,
      removed,
      extras: extrasRemoved,
      kept: extrasKept,
    });
  } else if (nothing) {
    // Not a failure (uninstall is idempotent), but never a success message for removing nothing.
    say(fields`${providerName(provider)} was not installed in ${project}: nothing to remove.\n`);
  } else {
    say(
      `Removed ${removed} tapedeck entr${removed === 1 ? "y" : "ies"} from ${relative(project, settingsPath) || settingsPath}. Recorded sessions were kept.\n`,
    );
    for (const [flag, path] of Object.entries(extrasRemoved)) {
      say(fields`Removed tapedeck's ${flag === "mcp" ? "MCP server" : "notify program"} from ${path}.\n`);
    }
    for (const [flag, path] of Object.entries(extrasKept)) {
      say(
        `The ${flag} program in ${path} stays: it is user-level, shared by your projects, and records nothing here now. Remove it with: tapedeck uninstall ${provider} --${flag}\n`,
      );
    }
  }
}

export function register(program: Command): void {
  program
    .command("uninstall <provider>")
    .description("remove exactly what install added (recorded sessions are kept)")
    .option(
      "--project <dir>",
      "project directory (default: the nearest one with .tapedeck above the current directory, else the git root)",
    )
    .option("--settings <path>", "the settings file install was given")
    .option("--notify", "also remove the user-level notify program (Codex: shared by all your projects)")
    .option("--json", "machine-readable output")
    .action(uninstallCommand);
}
