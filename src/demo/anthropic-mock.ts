/**
 * Scripted stand-in for the Anthropic Messages API, good enough for the real `claude` CLI to run a whole
 * session offline. Replies are chosen by `SCENARIO_*` keywords in the current user prompt so that a test can
 * steer the agent (run Bash, fail a tool, spawn a subagent, call an MCP tool, error out) without a real model.
 * `SCENARIO_SAY <text>` states a fact; `SCENARIO_RECALL <key>` answers with a fact only when tapedeck's marker in
 * the request carries it, else "I don't know." (recall-mock.ts).
 *
 * Standalone: `npx tsx test/mocks/anthropic-mock.ts --port 18081 --log requests.jsonl`
 */
import { type Answer, type LoggedExchange, type ModelMock, startModelMock } from "./mock-exchange.ts";
import {
  apiErrorReply,
  FAIL_COMMAND,
  factReply,
  type MockErrorReply,
  parseMcpScenario,
  parseScenario,
  scriptedReply,
  tokensOfLength,
  turnScenario,
} from "./mock-script.ts";

export interface MockUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface LoggedRequest extends LoggedExchange {
  /** `x-claude-code-agent-id`: only set on requests made by a subagent. */
  agentId: string | null;
  /** `x-claude-code-session-id`. */
  sessionId: string | null;
  requestId: string;
  messageId: string | null;
}

export interface UsageRecord {
  messageId: string;
  requestId: string;
  model: string;
  scenario: string;
  agentId: string | null;
  sessionId: string | null;
  stopReason: StopReason;
  stream: boolean;
  /** The final usage, i.e. what a recorder should attribute to this response. */
  usage: MockUsage;
}

export type StopReason = "end_turn" | "tool_use" | "max_tokens";

export type MockBlock =
  | { type: "thinking"; thinking: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; name: string; input: Record<string, unknown> };

export type MockReply =
  | { kind: "message"; scenario: string; content: MockBlock[]; stopReason: StopReason }
  | MockErrorReply;

export interface ToolResultInfo {
  toolUseId: string;
  /** Name of the tool_use this result answers, looked up in the preceding assistant message. */
  toolName: string | null;
  text: string;
  isError: boolean;
}

export interface ScriptContext {
  body: MessagesRequest;
  headers: Record<string, string>;
  agentId: string | null;
  sessionId: string | null;
  /** Non-reminder text of the most recent user message that has any: the prompt of the current turn. */
  promptText: string;
  /** Set when the last user message only carries tool results, i.e. the model continues after a tool. */
  toolResult: ToolResultInfo | null;
  isCompaction: boolean;
  /** The reply the built-in scenarios would give. */
  defaultReply(): MockReply;
}

/** Return a reply to override the built-in scenarios for this request, or undefined to keep them. */
export type MockScript = (ctx: ScriptContext) => MockReply | undefined;

export interface AnthropicMockOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  script?: MockScript;
  /** Append every logged request to this file as JSONL. */
  logFile?: string;
}

export type AnthropicMock = ModelMock<LoggedRequest, UsageRecord>;

interface ContentBlock {
  type?: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

interface ApiMessage {
  role?: string;
  content?: string | ContentBlock[];
}

interface ToolDef {
  name?: string;
  input_schema?: { properties?: Record<string, unknown> };
}

export interface MessagesRequest {
  model?: string;
  messages?: ApiMessage[];
  system?: string | ContentBlock[];
  tools?: ToolDef[];
  max_tokens?: number;
  stream?: boolean;
  thinking?: { type?: string };
}

const REDACTED_HEADERS = new Set(["x-api-key", "authorization"]);
const SYSTEM_REMINDER = /^\s*<system-reminder>/;
// Claude Code 2.1.x appends this prompt to the last user message and keeps the tools, model and max_tokens of a
// normal turn, so the text is the only reliable signal. `<summary>` alone would also match task notifications.
const COMPACTION_MARKERS = [
  /create a detailed summary of the conversation/i,
  /Respond with TEXT ONLY[\s\S]*<summary>/,
];
const SUBAGENT_TOOL_NAMES = ["Agent", "Task"];
const SHORT_REQUEST_MAX_TOKENS = 1024;

export function usageFor(n: number): MockUsage {
  return {
    input_tokens: 100 + 10 * n,
    output_tokens: 20 + n,
    cache_read_input_tokens: 1000 + 100 * n,
    cache_creation_input_tokens: 50 + 5 * n,
  };
}

function blocksOf(message: ApiMessage | undefined): ContentBlock[] {
  if (!message) return [];
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? message.content : [];
}

/**
 * User-typed text: Claude Code prepends `<system-reminder>` blocks that must not be mistaken for a prompt.
 * Blocks are joined in order, so the typed prompt (always the last block) ends the string.
 */
/** Text Claude Code itself adds beside a tool result: never the user's prompt. */
const CLIENT_NOTES = new Set(["Tool loaded."]);

function promptTextOf(message: ApiMessage | undefined): string {
  return blocksOf(message)
    .filter(
      (b) =>
        b.type === "text" &&
        typeof b.text === "string" &&
        !SYSTEM_REMINDER.test(b.text) &&
        !CLIENT_NOTES.has(b.text),
    )
    .map((b) => b.text as string)
    .join("\n")
    .trim();
}

function allTextOf(message: ApiMessage | undefined): string {
  return blocksOf(message)
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
}

function toolResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((c: ContentBlock) => (c && c.type === "text" && typeof c.text === "string" ? c.text : ""))
      .join("");
  }
  return "";
}

interface Analysis {
  promptText: string;
  toolResult: ToolResultInfo | null;
  isCompaction: boolean;
}

function analyze(body: MessagesRequest): Analysis {
  // The per-turn-control beta interleaves `role: "system"` messages, so "last message" must mean last *user* one.
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const userIdx: number[] = [];
  messages.forEach((m, i) => {
    if (m?.role === "user") userIdx.push(i);
  });
  const lastUserPos = userIdx.at(-1);
  const lastUser = lastUserPos === undefined ? undefined : messages[lastUserPos];

  let toolResult: ToolResultInfo | null = null;
  const results = blocksOf(lastUser).filter((b) => b.type === "tool_result");
  if (lastUser && results.length > 0 && promptTextOf(lastUser) === "") {
    const result = results.at(-1)!;
    const toolUseId = result.tool_use_id ?? "";
    let toolName: string | null = null;
    for (let i = (lastUserPos ?? 0) - 1; i >= 0 && toolName === null; i--) {
      const m = messages[i];
      if (m?.role !== "assistant") continue;
      const use = blocksOf(m).find((b) => b.type === "tool_use" && b.id === toolUseId);
      if (use) toolName = use.name ?? null;
    }
    toolResult = {
      toolUseId,
      toolName,
      text: toolResultText(result.content),
      isError: result.is_error === true,
    };
  }

  // The turn starts at the latest user message that is not a tool-result carrier. Its reminder-only text (e.g. a
  // background task notification) yields an empty prompt on purpose: falling back to an older prompt would
  // replay that prompt's scenario and loop forever.
  let promptText = "";
  for (let k = userIdx.length - 1; k >= 0; k--) {
    const m = messages[userIdx[k]!];
    const text = promptTextOf(m);
    if (text !== "" || !blocksOf(m).some((b) => b.type === "tool_result")) {
      promptText = text;
      break;
    }
  }

  const lastText = allTextOf(lastUser);
  const isCompaction = toolResult === null && COMPACTION_MARKERS.some((re) => re.test(lastText));
  return { promptText, toolResult, isCompaction };
}

/** The subagent's own report, without the hand-back frame Claude Code wraps around it. */
function subagentReport(toolResult: string): string {
  if (/^\s*Async agent launched/.test(toolResult)) return "launched in the background";
  const start = toolResult.indexOf("The report follows:");
  let report = start >= 0 ? toolResult.slice(start + "The report follows:".length) : toolResult;
  const end = report.search(/\nagentId: /);
  if (end >= 0) report = report.slice(0, end);
  return report.trim();
}

function text(scenario: string, t: string): MockReply {
  return { kind: "message", scenario, content: [{ type: "text", text: t }], stopReason: "end_turn" };
}

function thinkingEnabled(body: MessagesRequest): boolean {
  return body.thinking !== undefined && body.thinking.type !== "disabled";
}

function bashCall(body: MessagesRequest, scenario: string, command: string, description: string): MockReply {
  const content: MockBlock[] = [];
  if (thinkingEnabled(body)) {
    content.push({
      type: "thinking",
      thinking: `The user wants \`${command}\` run; the Bash tool does that.`,
    });
  }
  content.push({ type: "text", text: "Running the command." });
  content.push({ type: "tool_use", name: "Bash", input: { command, description } });
  return { kind: "message", scenario, content, stopReason: "tool_use" };
}

function agentCall(body: MessagesRequest, scenario: string, task: string, background: boolean): MockReply {
  const tool = (body.tools ?? []).find((t) => t.name !== undefined && SUBAGENT_TOOL_NAMES.includes(t.name));
  if (!tool?.name) return text(`${scenario}-no-tool`, "No subagent tool is available.");
  const props = tool.input_schema?.properties ?? {};
  // The subagent is itself scripted: a task becomes a Bash command it runs, so its hooks carry agent_id.
  const input: Record<string, unknown> = {
    description: "Run subagent task",
    prompt: task ? `SCENARIO_BASH ${task}` : "SCENARIO_TEXT subagent",
  };
  if ("subagent_type" in props) input.subagent_type = "general-purpose";
  // Agents default to background in 2.1.x; foreground keeps SubagentStop inside the parent's turn.
  if ("run_in_background" in props) input.run_in_background = background;
  return {
    kind: "message",
    scenario,
    content: [
      { type: "text", text: "Delegating to a subagent." },
      { type: "tool_use", name: tool.name, input },
    ],
    stopReason: "tool_use",
  };
}

function defaultReply(body: MessagesRequest, agentId: string | null, a: Analysis): MockReply {
  if (a.isCompaction) {
    return text(
      "compact",
      "<analysis>Mock analysis of the scripted conversation.</analysis>\n" +
        "<summary>Mock summary: the conversation was driven by scripted mock scenarios.</summary>",
    );
  }
  const noTools = !Array.isArray(body.tools) || body.tools.length === 0;
  const small =
    (typeof body.max_tokens === "number" && body.max_tokens <= SHORT_REQUEST_MAX_TOKENS) ||
    /haiku/i.test(body.model ?? "");
  if (noTools && small) return text("short", "Mock title");

  if (a.toolResult?.toolName === "ToolSearch") {
    const { name, arg } = parseScenario(a.promptText);
    if (name === "MCP") return mcpCall(body, arg, true);
  }
  if (a.toolResult) {
    const excerpt = a.toolResult.text.slice(0, 200);
    const name = a.toolResult.toolName ?? "tool";
    if (SUBAGENT_TOOL_NAMES.includes(name)) {
      return text("agent-result", `Agent finished: ${subagentReport(a.toolResult.text).slice(0, 200)}`);
    }
    return text(`${name.toLowerCase()}-result`, `Done: ${excerpt}`);
  }

  const scenario = turnScenario(a.promptText);
  const fact = factReply(scenario, body);
  if (fact) return text(fact.scenario, fact.text);
  const { name, arg } = scenario;
  switch (name) {
    case "APIERROR":
      return apiErrorReply();
    case "BASH":
      return bashCall(body, "bash", scenario.command || "echo hello", "Run a command");
    case "FAIL":
      return bashCall(body, "fail", FAIL_COMMAND, "Fail on purpose");
    case "AGENT":
    case "AGENT_BG":
      // A subagent must not spawn another one, or a keyword it inherited would recurse forever.
      if (agentId) return text("subagent-text", "Subagent reply.");
      return agentCall(body, name === "AGENT" ? "agent" : "agent-bg", arg, name === "AGENT_BG");
    case "MCP":
      return mcpCall(body, arg, false);
    default:
      return text(agentId ? "subagent-text" : "text", "Mock reply.");
  }
}

/**
 * `SCENARIO_MCP <tool> <json input>`: calls an MCP tool by its server-side name, whatever prefix the client gives
 * it (`mcp__tapedeck__record_session` in Claude Code), as a model would. Claude Code 2.1 defers MCP tools: it
 * lists their names in a system message and sends only a `ToolSearch` tool, whose `select:<name>` call loads a
 * tool's schema; only then may the tool be called. Without the tool anywhere, the reply says so.
 */
function mcpCall(body: MessagesRequest, arg: string, searched: boolean): MockReply {
  const parsed = parseMcpScenario(arg);
  if ("error" in parsed) return text("mcp-bad-input", parsed.error);
  const { tool: wanted, input } = parsed;
  const matches = (name: string) => name === wanted || name.endsWith(`__${wanted}`);
  const listed = (body.tools ?? []).find((t) => t.name !== undefined && matches(t.name))?.name;
  const deferred = listed
    ? undefined
    : [...JSON.stringify(body).matchAll(/\\n(mcp__[A-Za-z0-9_-]+)(?=\\n)/g)].map((x) => x[1]!).find(matches);
  const name = listed ?? (searched ? deferred : undefined);
  if (name) {
    return {
      kind: "message",
      scenario: "mcp",
      content: [
        { type: "text", text: `Calling ${wanted}.` },
        { type: "tool_use", name, input },
      ],
      stopReason: "tool_use",
    };
  }
  if (deferred && (body.tools ?? []).some((t) => t.name === "ToolSearch")) {
    return {
      kind: "message",
      scenario: "mcp-search",
      content: [{ type: "tool_use", name: "ToolSearch", input: { query: `select:${deferred}` } }],
      stopReason: "tool_use",
    };
  }
  return text("mcp-no-tool", `No ${wanted} tool is available.`);
}

type SseEvent = { event: string; data: unknown };

function splitInChunks(s: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(s.length / parts));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

interface BuiltMessage {
  events: SseEvent[];
  json: Record<string, unknown>;
}

function buildMessage(
  reply: Extract<MockReply, { kind: "message" }>,
  ids: { messageId: string; nextToolId(): string },
  model: string,
  usage: MockUsage,
): BuiltMessage {
  const finalBlocks: Record<string, unknown>[] = [];
  const events: SseEvent[] = [];
  const startUsage = { ...usage, output_tokens: 1, service_tier: "standard" };
  events.push({
    event: "message_start",
    data: {
      type: "message_start",
      message: {
        id: ids.messageId,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: startUsage,
      },
    },
  });
  reply.content.forEach((block, index) => {
    let start: Record<string, unknown>;
    let deltas: Record<string, unknown>[];
    if (block.type === "thinking") {
      const signature = Buffer.from(`mock-signature:${ids.messageId}:${index}`).toString("base64");
      start = { type: "thinking", thinking: "", signature: "" };
      deltas = [
        ...splitInChunks(block.thinking, 2).map((t) => ({ type: "thinking_delta", thinking: t })),
        { type: "signature_delta", signature },
      ];
      finalBlocks.push({ type: "thinking", thinking: block.thinking, signature });
    } else if (block.type === "text") {
      start = { type: "text", text: "" };
      deltas = splitInChunks(block.text, 2).map((t) => ({ type: "text_delta", text: t }));
      finalBlocks.push({ type: "text", text: block.text });
    } else {
      const id = ids.nextToolId();
      start = { type: "tool_use", id, name: block.name, input: {} };
      deltas = splitInChunks(JSON.stringify(block.input), 4).map((p) => ({
        type: "input_json_delta",
        partial_json: p,
      }));
      finalBlocks.push({ type: "tool_use", id, name: block.name, input: block.input });
    }
    events.push({
      event: "content_block_start",
      data: { type: "content_block_start", index, content_block: start },
    });
    if (index === 0) events.push({ event: "ping", data: { type: "ping" } });
    for (const delta of deltas) {
      events.push({ event: "content_block_delta", data: { type: "content_block_delta", index, delta } });
    }
    events.push({ event: "content_block_stop", data: { type: "content_block_stop", index } });
  });
  events.push({
    event: "message_delta",
    data: {
      type: "message_delta",
      delta: { stop_reason: reply.stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    },
  });
  events.push({ event: "message_stop", data: { type: "message_stop" } });
  const json = {
    id: ids.messageId,
    type: "message",
    role: "assistant",
    model,
    content: finalBlocks,
    stop_reason: reply.stopReason,
    stop_sequence: null,
    usage: { ...usage, service_tier: "standard" },
  };
  return { events, json };
}

/** Who made a call, by Claude Code's headers: what a script is told beside the body. */
interface Caller {
  headers: Record<string, string>;
  agentId: string | null;
  sessionId: string | null;
}

/** The reply to a call: the test's script's, else the built-in scenarios'. */
function replyTo(request: MessagesRequest, caller: Caller, script: MockScript | undefined): MockReply {
  const analysis = analyze(request);
  const builtIn = () => defaultReply(request, caller.agentId, analysis);
  return scriptedReply(script, { body: request, ...caller, ...analysis }, builtIn);
}

export async function startAnthropicMock(opts: AnthropicMockOptions = {}): Promise<AnthropicMock> {
  let messageCount = 0;
  let toolCount = 0;
  const nextToolId = () => `toolu_mock_${++toolCount}`;

  /** The next message: its id and usage from its number, logged, then sent whole or streamed as asked. */
  function sendMessage(
    answer: Answer<UsageRecord>,
    entry: LoggedRequest,
    request: MessagesRequest,
    reply: Extract<MockReply, { kind: "message" }>,
  ): void {
    const m = ++messageCount;
    const messageId = `msg_mock_${m}`;
    const usage = usageFor(m);
    const model = request.model ?? "claude-mock";
    const built = buildMessage(reply, { messageId, nextToolId }, model, usage);
    const stream = request.stream === true;
    answer.usage({
      messageId,
      requestId: entry.requestId,
      model,
      scenario: reply.scenario,
      agentId: entry.agentId,
      sessionId: entry.sessionId,
      stopReason: reply.stopReason,
      stream,
      usage,
    });
    entry.messageId = messageId;
    if (!stream) {
      answer.json(200, built.json, reply.scenario);
      return;
    }
    answer.stream(
      built.events.map((e) => `event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`),
      reply.scenario,
      { "request-id": entry.requestId },
    );
  }

  const api = {
    redactedHeaders: REDACTED_HEADERS,
    errorBody: (err: unknown) => ({ type: "error", error: { type: "api_error", message: String(err) } }),
  };
  return startModelMock<LoggedRequest, UsageRecord>(opts, api, async (call) => {
    const requestId = `req_mock_${call.head.seq}`;
    const headers = call.headers;
    const agentId = headers["x-claude-code-agent-id"] ?? null;
    const sessionId = headers["x-claude-code-session-id"] ?? null;
    const body = await call.readBody();
    const entry: LoggedRequest = {
      ...call.head,
      headers,
      body: body.value,
      agentId,
      sessionId,
      scenario: "",
      status: 200,
      requestId,
      messageId: null,
    };
    const answer = call.answer(entry, {
      headers: { "content-type": "application/json", "request-id": requestId },
      error: (_status, type, message) => ({ type: "error", error: { type, message }, request_id: requestId }),
    });

    const isPost = call.head.method === "POST";
    if (isPost && call.pathname === "/v1/messages/count_tokens") {
      answer.json(200, { input_tokens: tokensOfLength(body.raw.length) }, "count-tokens");
      return;
    }
    const request = answer.modelCall<MessagesRequest>(isPost && call.pathname === "/v1/messages");
    if (!request) return;
    const reply = replyTo(request, { headers, agentId, sessionId }, opts.script);
    if (reply.kind === "error") answer.error(reply.status, reply.errorType, reply.message, reply.scenario);
    else sendMessage(answer, entry, request, reply);
  });
}
