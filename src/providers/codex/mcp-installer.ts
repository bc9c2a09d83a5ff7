import type { InstallExtra } from "../installer.ts";
import { MCP_SERVER_NAME, mcpArgs } from "../mcp-entry.ts";
import { codexProjectConfigFile } from "./home.ts";
import {
  blockBody,
  blockValue,
  hasBlock,
  hasTableOutsideBlock,
  readConfigText,
  removeBlock,
  setBlock,
  tomlStringArray,
  writeConfigText,
} from "./toml-blocks.ts";

const BLOCK = "mcp";
/**
 * tapedeck's lines of the block. Another program's edit found inside it (an editor that inserts a new table
 * before the closing comment) is kept from its first table header on; keys it added to tapedeck's own table
 * go with that table.
 */
const OWNED = { table: `[mcp_servers.${MCP_SERVER_NAME}]` };

export const codexMcpExtra: InstallExtra = {
  flag: "mcp",
  describe: (project) => `${codexProjectConfigFile(project)} ([mcp_servers.${MCP_SERVER_NAME}])`,
  path: codexProjectConfigFile,
  add(project, command) {
    const path = codexProjectConfigFile(project);
    const text = readConfigText(path);
    if (hasTableOutsideBlock(text, BLOCK, ["mcp_servers", MCP_SERVER_NAME])) {
      throw new Error(`${path} already has an MCP server named "${MCP_SERVER_NAME}" that is not tapedeck's`);
    }
    const body = [
      `[mcp_servers.${MCP_SERVER_NAME}]`,
      `command = ${JSON.stringify(command.node)}`,
      `args = ${tomlStringArray(mcpArgs(command, "codex", project))}`,
    ];
    writeConfigText(path, setBlock(text, BLOCK, body, "end", OWNED), project);
  },
  remove(project) {
    const path = codexProjectConfigFile(project);
    const text = readConfigText(path);
    if (!hasBlock(text, BLOCK)) return false;
    writeConfigText(path, removeBlock(text, BLOCK, OWNED), project);
    return true;
  },
  present: (project) => hasBlock(readConfigText(codexProjectConfigFile(project)), BLOCK),
  runs(project) {
    const body = blockBody(readConfigText(codexProjectConfigFile(project)), BLOCK);
    const command = blockValue(body, "command");
    const args = blockValue(body, "args");
    if (typeof command !== "string" || !Array.isArray(args)) return undefined;
    return [command, ...args.filter((a): a is string => typeof a === "string")];
  },
};
