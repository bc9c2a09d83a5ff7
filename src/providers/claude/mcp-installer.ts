// `tapedeck install claude --mcp`: the tapedeck MCP server in the project's
// `.mcp.json` (Claude Code's project scope; the user's other servers are kept),
// approved for this user in `.claude/settings.local.json`
// (`enabledMcpjsonServers`), because Claude does not start a project server
// nobody approved, and `claude -p` has nobody to ask.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { InstallExtra, Settings } from "../installer.ts";
import {
  addJsonMcpServer,
  hasJsonMcpServer,
  jsonMcpCommandLine,
  MCP_SERVER_NAME,
  mcpArgs,
  removeJsonMcpServer,
} from "../mcp-entry.ts";
import { readSettingsFile, removeAgentFile, writeSettingsFile } from "../settings-file.ts";

export const mcpJsonPath = (project: string) => join(project, ".mcp.json");

function approvals(settings: Settings): string[] {
  const v = settings.enabledMcpjsonServers;
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

export const claudeMcpExtra: InstallExtra = {
  flag: "mcp",
  describe: (project) =>
    `${mcpJsonPath(project)} (server "${MCP_SERVER_NAME}", approved in settings.local.json)`,
  path: mcpJsonPath,
  add(project, command, settings) {
    const path = mcpJsonPath(project);
    const json = readSettingsFile(path);
    addJsonMcpServer(
      json,
      { type: "stdio", command: command.node, args: mcpArgs(command, "claude", project) },
      path,
    );
    if (!approvals(settings).includes(MCP_SERVER_NAME)) {
      settings.enabledMcpjsonServers = [...approvals(settings), MCP_SERVER_NAME];
    }
    writeSettingsFile(path, json, project);
  },
  remove(project, settings) {
    const path = mcpJsonPath(project);
    const json = existsSync(path) ? readSettingsFile(path) : {};
    const servers = json.mcpServers as Record<string, unknown> | undefined;
    // A server named "tapedeck" that is not tapedeck's keeps its entry and its approval.
    if (servers && typeof servers === "object" && MCP_SERVER_NAME in servers && !hasJsonMcpServer(json)) {
      return false;
    }
    const list = approvals(settings);
    if (list.includes(MCP_SERVER_NAME)) {
      const rest = list.filter((n) => n !== MCP_SERVER_NAME);
      if (rest.length > 0) settings.enabledMcpjsonServers = rest;
      else delete settings.enabledMcpjsonServers;
    }
    if (!removeJsonMcpServer(json)) return false;
    // A .mcp.json that held only tapedeck's server goes with it.
    if (Object.keys(json).length === 0) removeAgentFile(path, project);
    else writeSettingsFile(path, json, project);
    return true;
  },
  present(project) {
    try {
      return hasJsonMcpServer(readSettingsFile(mcpJsonPath(project)));
    } catch {
      return false;
    }
  },
  runs(project) {
    try {
      return jsonMcpCommandLine(readSettingsFile(mcpJsonPath(project)));
    } catch {
      return undefined;
    }
  },
};
