// `tapedeck install gemini --mcp`: the tapedeck MCP server under `mcpServers`
// in the project's `.gemini/settings.json`, the same file as the hooks; the
// user's other servers are kept.
import type { InstallExtra } from "../installer.ts";
import {
  addJsonMcpServer,
  hasJsonMcpServer,
  jsonMcpCommandLine,
  MCP_SERVER_NAME,
  mcpArgs,
  removeJsonMcpServer,
} from "../mcp-entry.ts";
import { geminiSettingsPath } from "./installer.ts";

export const geminiMcpExtra: InstallExtra = {
  flag: "mcp",
  describe: (project) => `${geminiSettingsPath(project)} (mcpServers.${MCP_SERVER_NAME})`,
  path: (project) => geminiSettingsPath(project),
  add(project, command, settings) {
    addJsonMcpServer(
      settings,
      { command: command.node, args: mcpArgs(command, "gemini", project) },
      geminiSettingsPath(project),
    );
  },
  remove: (_project, settings) => removeJsonMcpServer(settings),
  present: (_project, settings) => hasJsonMcpServer(settings),
  runs: (_project, settings) => jsonMcpCommandLine(settings),
};
