// `tapedeck mcp`: a stdio MCP server through which the user can ask the agent
// to start, stop or check recording. Its tool descriptions carry the rules:
// only on the user's explicit request, capture-only, this project and provider,
// stopping leaves everything else in place.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { RecordingState } from "../core/status.ts";
import {
  ControlError,
  type ControlScope,
  currentState,
  describe,
  RECORD_ACTIONS,
  recordSession,
} from "./control.ts";
import { BoundedStdioTransport } from "./stdio-transport.ts";

export const RECORD_SESSION_DESCRIPTION = [
  "Start, stop or check tapedeck's recording of this agent's sessions.",
  "Call it only when the user explicitly asks to start or stop recording, or asks whether it is on.",
  "Never start recording as a side effect of another task (a search, a memory lookup, a repository task).",
  "Recording is capture-only: tapedeck writes a local, redacted archive of the session and injects nothing into the conversation.",
  "It is scoped to the current project and provider.",
  'Stopping only stops recording: hooks, memory and every other setting stay as they are. action: "start", "stop" or "status".',
].join(" ");

export const STATUS_DESCRIPTION = [
  "Show tapedeck's recording state for the current project and provider: whether it is recording, the mode,",
  "the project, the session root, whether memory retrieval is on, and the compact status string. Read-only.",
].join(" ");

const stateShape = {
  display: z.string(),
  recording: z.boolean(),
  project: z.string().nullable(),
  provider: z.string(),
  installed: z.boolean(),
  mode: z.string().nullable(),
  session_root: z.string().nullable(),
  retrieval: z.literal("off"),
};

function stateResult(
  message: string,
  state: RecordingState,
  extra: Record<string, unknown> = {},
): CallToolResult {
  // The compact string and the on/off answer first: clients that show the structured result as JSON (Claude
  // Code does) may cut it, and these are what the user asked about.
  const { display, recording, ...rest } = state;
  return {
    content: [{ type: "text", text: `${message}\n${display}` }],
    structuredContent: { display, recording, ...extra, ...rest },
  };
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

export function createTapedeckMcpServer(scope: ControlScope, version: string): McpServer {
  const server = new McpServer({ name: "tapedeck", version });
  server.registerTool(
    "record_session",
    {
      title: "Record session (tapedeck)",
      description: RECORD_SESSION_DESCRIPTION,
      // A plain string, checked in the handler: an unknown action gets a tool error that says what is allowed.
      inputSchema: {
        action: z.string().describe(`one of ${RECORD_ACTIONS.map((a) => `"${a}"`).join(", ")}`),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ action }) => {
      try {
        const result = recordSession(action, scope);
        return stateResult(result.message, result.state, { action: result.action, changed: result.changed });
      } catch (error) {
        if (error instanceof ControlError) return errorResult(error.message);
        return errorResult(
          `tapedeck could not ${action} recording: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
        );
      }
    },
  );
  server.registerTool(
    "tapedeck_status",
    {
      title: "tapedeck status",
      description: STATUS_DESCRIPTION,
      outputSchema: stateShape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () => {
      const state = currentState(scope);
      return stateResult(describe(state), state);
    },
  );
  return server;
}

/**
 * Serves on stdin/stdout until the client closes them. The transport refuses a message over 10 MiB and keeps
 * serving (the SDK's own would close: the agent would lose these tools for the session).
 */
export async function serveMcpStdio(scope: ControlScope, version: string): Promise<void> {
  const server = createTapedeckMcpServer(scope, version);
  const transport = new BoundedStdioTransport();
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
