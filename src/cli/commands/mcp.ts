// `tapedeck mcp`: the MCP control server, run by the agent over stdio.
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { builtFile } from "../../core/base/built-file.ts";
import { CliError, EXIT } from "../common.ts";
import { DEFAULT_PROVIDER, isProvider } from "../providers.ts";
import { VERSION } from "../version.ts";

interface McpOpts {
  provider: string;
  project?: string;
}

export function register(program: Command): void {
  program
    .command("mcp")
    .description(
      "run the tapedeck MCP server on stdio (tools record_session and tapedeck_status); `tapedeck install <provider> --mcp` sets it up",
    )
    .option("--provider <name>", "the provider whose recording the tools control", DEFAULT_PROVIDER)
    .option("--project <dir>", "the project (default: the directory the agent starts the server in)")
    .action(async (opts: McpOpts) => {
      if (!isProvider(opts.provider)) {
        throw new CliError(`unknown provider "${opts.provider}"`, EXIT.usage);
      }
      // A separate bundle (dist/mcp.js): bundled into the CLI, the MCP SDK's imports would be hoisted and
      // loaded by every command (measured: --version 0.22 s -> 0.40 s).
      const { serveMcpStdio } = (await import(
        pathToFileURL(builtFile("mcp.js")).href
      )) as typeof import("../../mcp/server.ts");
      const startDir = opts.project ?? process.env.TAPEDECK_PROJECT_DIR ?? process.cwd();
      await serveMcpStdio({ provider: opts.provider, startDir }, VERSION);
    });
}
