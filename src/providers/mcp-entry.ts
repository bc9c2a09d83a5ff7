// The MCP server entry tapedeck adds to an agent's config: `node <dist>/cli.js
// mcp --provider <p>`, in each agent's own shape. An entry is tapedeck's when it
// runs a `cli.js` with `mcp` as its first argument; a server the user named
// "tapedeck" that is not that is never replaced or removed.
import type { ExtraCommand } from "./installer.ts";
import { isRecord } from "./shared.ts";

export const MCP_SERVER_NAME = "tapedeck";

/**
 * The server's arguments. The project is named, not left to the directory the agent starts the server in
 * (`codex -C <dir>` started elsewhere would otherwise switch the recording of another project).
 */
export function mcpArgs(command: ExtraCommand, provider: string, project: string): string[] {
  return [command.cli, "mcp", "--provider", provider, "--project", project];
}

export function isOurMcpEntry(entry: unknown): boolean {
  if (!entry || typeof entry !== "object") return false;
  const args = (entry as { args?: unknown }).args;
  return (
    Array.isArray(args) &&
    typeof args[0] === "string" &&
    /(^|[/\\])cli\.js$/.test(args[0]) &&
    args[1] === "mcp"
  );
}

type Json = Record<string, unknown>;

/** `mcpServers` of a JSON settings object (Claude's .mcp.json, Gemini's settings.json), created on demand. */
export function mcpServers(settings: Json, create: boolean): Json | undefined {
  const v = settings.mcpServers;
  if (isRecord(v)) return v;
  if (!create) return undefined;
  if (v !== undefined)
    throw new Error("mcpServers is not an object; fix it first, tapedeck will not overwrite it");
  const fresh: Json = {};
  settings.mcpServers = fresh;
  return fresh;
}

/** Puts tapedeck's server into `mcpServers`, refusing to replace a foreign one of the same name. */
export function addJsonMcpServer(settings: Json, entry: Json, where: string): void {
  const servers = mcpServers(settings, true)!;
  const existing = servers[MCP_SERVER_NAME];
  if (existing !== undefined && !isOurMcpEntry(existing)) {
    throw new Error(`${where} already has an MCP server named "${MCP_SERVER_NAME}" that is not tapedeck's`);
  }
  servers[MCP_SERVER_NAME] = entry;
}

export function removeJsonMcpServer(settings: Json): boolean {
  const servers = mcpServers(settings, false);
  if (!servers || !isOurMcpEntry(servers[MCP_SERVER_NAME])) return false;
  delete servers[MCP_SERVER_NAME];
  if (Object.keys(servers).length === 0) delete settings.mcpServers;
  return true;
}

export function hasJsonMcpServer(settings: Json): boolean {
  return isOurMcpEntry(mcpServers(settings, false)?.[MCP_SERVER_NAME]);
}

/** The command line of tapedeck's server entry in `mcpServers`. */
export function jsonMcpCommandLine(settings: Json): string[] | undefined {
  const entry = mcpServers(settings, false)?.[MCP_SERVER_NAME] as
    | { command?: unknown; args?: unknown }
    | undefined;
  if (!isOurMcpEntry(entry) || typeof entry?.command !== "string") return undefined;
  return [entry.command, ...(entry.args as unknown[]).filter((a): a is string => typeof a === "string")];
}
