// `tapedeck mcp`: a stdio MCP server through which the user can ask the agent
// to start, stop or check recording, and the agent can search and read the
// memory the user promoted. Its tool descriptions carry the rules: only on the
// user's explicit request, capture-only, this project and provider, stopping
// leaves everything else in place, memory is the user's and read-only here.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { RecordingState } from "../core/hook/status.ts";
import {
  ControlError,
  type ControlScope,
  currentState,
  describe,
  RECORD_ACTIONS,
  recordSession,
} from "./control.ts";
import {
  MAX_GET_ITEMS,
  MAX_SEARCH_HITS,
  MEMORY_GET_DESCRIPTION,
  MEMORY_SEARCH_DESCRIPTION,
  MemoryToolError,
  memoryGet,
  memorySearch,
} from "./memory-tools.ts";
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
  retrieval: z.enum(["on", "off"]),
  retrieval_budget_bytes: z.number().nullable(),
};

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const sourceShape = z.object({
  provider: z.string(),
  session_id: z.string(),
  agent_id: z.string().nullable(),
  seq_from: z.number(),
  seq_to: z.number(),
});

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
  registerMemoryTools(server, scope);
  return server;
}

function memoryError(error: unknown): CallToolResult {
  if (error instanceof MemoryToolError) return errorResult(error.message);
  return errorResult(
    `tapedeck could not read its memory: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
  );
}

const NOTHING_PROMOTED =
  "No memory matches (or nothing has been promoted yet: the user adds memory with tapedeck promote).";

function registerMemoryTools(server: McpServer, scope: ControlScope): void {
  server.registerTool(
    "memory_search",
    {
      title: "Search memory (tapedeck)",
      description: MEMORY_SEARCH_DESCRIPTION,
      inputSchema: {
        query: z.string().min(1).max(4096).describe("what to look for"),
        limit: z.number().int().min(1).max(MAX_SEARCH_HITS).optional().describe(`at most ${MAX_SEARCH_HITS}`),
      },
      outputSchema: {
        hits: z.array(
          z.object({
            id: z.string(),
            kind: z.string(),
            title: z.string(),
            score: z.number(),
            snippet: z.string(),
            source: sourceShape,
          }),
        ),
      },
      annotations: READ_ONLY,
    },
    ({ query, limit }) => {
      try {
        const hits = memorySearch(scope, query, limit ?? 5);
        const text =
          hits.length === 0
            ? NOTHING_PROMOTED
            : hits.map((h, i) => `${i + 1}. ${h.id}  ${h.title}\n   ${h.snippet}`).join("\n");
        return { content: [{ type: "text", text }], structuredContent: { hits } };
      } catch (error) {
        return memoryError(error);
      }
    },
  );
  server.registerTool(
    "memory_get",
    {
      title: "Read memory items (tapedeck)",
      description: MEMORY_GET_DESCRIPTION,
      inputSchema: {
        ids: z
          .array(z.string().min(1).max(256))
          .min(1)
          .max(MAX_GET_ITEMS)
          .describe(`at most ${MAX_GET_ITEMS}`),
      },
      annotations: READ_ONLY,
    },
    ({ ids }) => {
      try {
        const items = memoryGet(scope, ids);
        const text =
          items.length === 0
            ? "No memory item has these ids."
            : items.map((i) => `## ${i.title} (${i.id})\n${i.body}`).join("\n\n");
        return { content: [{ type: "text", text }], structuredContent: { items } };
      } catch (error) {
        return memoryError(error);
      }
    },
  );
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
