// Start-up of the tapedeck MCP server as an agent sees it (spawn to the first
// tools/list answer) and one tool call's round trip, beside `node -e 0`; and
// the CLI's own start-up, which the MCP SDK must not slow (it is a separate
// bundle, loaded by `tapedeck mcp` only).
// Run: npm run build && npx tsx bench/mcp.bench.ts
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { writeConfig } from "../src/core/archive/config.ts";
import { median, percentile, round, tempDir, timeCommand } from "./lib.ts";

const CLI = join(process.cwd(), "dist", "cli.js");

async function connectOnce(project: string): Promise<{ startMs: number; callMs: number[] }> {
  const t0 = performance.now();
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "--provider", "claude"],
      cwd: project,
    }),
  );
  await client.listTools();
  const startMs = performance.now() - t0;
  const callMs: number[] = [];
  for (let i = 0; i < 10; i++) {
    const c0 = performance.now();
    await client.callTool({ name: "tapedeck_status", arguments: {} });
    callMs.push(performance.now() - c0);
  }
  await client.close();
  return { startMs, callMs };
}

export async function runMcpBench(runs = 15) {
  const { dir, cleanup } = tempDir("tapedeck-mcpbench-");
  try {
    writeConfig(dir, {
      schema_version: 1,
      providers: { claude: { recording: "off", mode: "capture-only" } },
    });
    const node: number[] = [];
    const version: number[] = [];
    const start: number[] = [];
    const calls: number[] = [];
    for (let i = 0; i < runs; i++) {
      node.push(timeCommand(process.execPath, ["-e", "0"]));
      version.push(timeCommand(process.execPath, [CLI, "--version"]));
      const r = await connectOnce(dir);
      start.push(r.startMs);
      calls.push(...r.callMs);
    }
    const floor = median(node);
    return {
      runs,
      node_ms: round(median(node)),
      cli_version_ms: round(median(version)),
      cli_vs_node: round(median(version) / floor),
      mcp_start_to_tools_ms: round(median(start)),
      mcp_start_p90_ms: round(percentile(start, 90)),
      mcp_start_vs_node: round(median(start) / floor),
      tool_call_ms: round(median(calls), 3),
      tool_call_p90_ms: round(percentile(calls, 90), 3),
    };
  } finally {
    cleanup();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runMcpBench(), null, 2));
}
