// The optional extras install can add (the MCP server entry, Codex's notify program), when installed: they run
// this Node and a file of this tapedeck, so a moved checkout breaks them silently.
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { ProviderInstaller } from "../../../providers/installer.ts";
import { readSettingsFile } from "../../../providers/settings-file.ts";
import { check, type DoctorCheck, shown } from "./check.ts";

/** The MCP server entry and the notify program, reported when installed (they are optional). */
export function checkExtras(
  project: string,
  installer: ProviderInstaller,
  settingsPath?: string,
): DoctorCheck[] {
  let settings: Record<string, unknown> = {};
  try {
    settings = readSettingsFile(settingsPath ? resolve(settingsPath) : installer.settingsPath(project));
  } catch {
    // unreadable settings: an extra kept there is simply not present (the hooks check reports the file)
  }
  const out: DoctorCheck[] = [];
  for (const extra of installer.extras ?? []) {
    let present = false;
    try {
      present = extra.present(project, settings);
    } catch {
      present = false;
    }
    if (!present) continue;
    const what = extra.flag === "mcp" ? "MCP server" : "notify";
    const where = shown(project, extra.path(project));
    // The entry runs this Node and a file of this tapedeck: a moved or removed checkout breaks it silently
    // (the agent just has no tool, or no notify).
    const missing = (extra.runs?.(project, settings) ?? []).filter((p) => isAbsolute(p) && !existsSync(p));
    out.push(
      missing.length > 0
        ? check(what, "fail", `the entry in ${where} runs ${missing.join(" and ")}, which does not exist`, [
            `tapedeck install ${installer.provider} --${extra.flag} --project ${project}`,
          ])
        : check(what, "ok", `installed in ${where}`),
    );
  }
  return out;
}
