/**
 * Scripted stand-in for the OpenAI Responses API (`POST /v1/responses`, SSE), good enough for the real `codex`
 * CLI (0.171) to run whole sessions offline. Replies are chosen by `SCENARIO_*` keywords in the latest user input
 * text, like the Anthropic mock, so a test can steer the agent without a real model:
 *
 *   SCENARIO_BASH <cmd>   an `exec_command {"cmd": <cmd>}` function call, then `Done: <output>` once its
 *                         function_call_output comes back
 *   SCENARIO_FAIL         the same with `echo oops >&2; exit 3`
 *   SCENARIO_PERM <cmd>   the same with `sandbox_permissions: "require_escalated"`: an approval request under
 *                         approval_policy on-request (`touch stamp.txt` by default)
 *   SCENARIO_AGENT <cmd>  `spawn_agent {"message": "SCENARIO_BASH <cmd>"}`, then `wait_agent` on the new agent,
 *                         then `Subagent reported: <its final message>` (a subagent never spawns another one)
 *   SCENARIO_MCP <tool> <json>  a call of that MCP tool (namespaced as codex declares it), then `Done: <output>`
 *   SCENARIO_APIERROR     an HTTP 400
 *   SCENARIO_SAY <text>, SCENARIO_RECALL <key>  a stated fact; a fact recalled only from tapedeck's marker in
 *                         the request (recall-mock.ts)
 *   the compaction prompt ("You are performing a CONTEXT CHECKPOINT COMPACTION...")  a summary message
 *   anything else         a short text reply
 *
 * What codex needs from a stream (found by running it): `response.created`, then per output item
 * `response.output_item.added` / `response.output_item.done` (codex takes the item from `done`; text deltas
 * are only for display), and `response.completed` with `response.id` and `response.usage`. Without
 * `response.completed` codex treats the stream as broken and retries. Usage uses the Responses names:
 * `input_tokens` (cached included), `input_tokens_details.cached_tokens`, `output_tokens` (reasoning included),
 * `output_tokens_details.reasoning_tokens`, `total_tokens`; codex writes each response's usage to its rollout
 * as a `token_usage_record` keyed by the response id. Function calls are `{"type":"function_call","call_id",
 * "name","arguments"}` items (`arguments` a JSON string); namespaced tools (the multi-agent ones) also carry
 * `namespace`.
 *
 * Every response gets a distinct, deterministic usage (`usageFor(n)`, n = 1, 2, ... in serving order), logged in
 * `usageLog` with its response id; every request is logged in `requests`, headers included (authorization
 * redacted; codex's `session-id` = root thread, `thread-id` = the requesting thread, kept).
 */
import { type Answer, type LoggedExchange, type ModelMock, startModelMock } from "./mock-exchange.ts";
import {
  apiErrorReply,
  FAIL_COMMAND,
  factReply,
  type MockErrorReply,
  parseMcpScenario,
  scriptedReply,
  turnScenario,
} from "./mock-script.ts";

/** The usage object of `response.completed`, in the Responses API's own shape. */
export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface LoggedResponsesRequest extends LoggedExchange {
  /** `session-id`: codex's root thread id (the hooks' session_id). */
  sessionId: string | null;
  /** `thread-id`: the thread that made the request; differs from sessionId in a subagent. */
  threadId: string | null;
  /** Whether the request came from a subagent thread. */
  subagent: boolean;
  responseId: string | null;
}

export interface ResponsesUsageRecord {
  responseId: string;
  /** The `seq` of the request this response answered. */
  requestSeq: number;
  model: string;
  scenario: string;
  sessionId: string | null;
  threadId: string | null;
  subagent: boolean;
  usage: ResponsesUsage;
}

export type MockOutputItem =
  | { type: "reasoning"; summary: string }
  | { type: "message"; text: string }
  | { type: "function_call"; name: string; namespace?: string; arguments: Record<string, unknown> };

export type ResponsesReply =
  | { kind: "response"; scenario: string; output: MockOutputItem[] }
  | MockErrorReply;

export interface ToolOutputInfo {
  callId: string;
  /** Name of the function_call this output answers (`exec_command`, `spawn_agent`, `wait_agent`, ...). */
  toolName: string | null;
  output: string;
}

export interface ResponsesScriptContext {
  body: ResponsesRequest;
  headers: Record<string, string>;
  sessionId: string | null;
  threadId: string | null;
  subagent: boolean;
  /** Text of the latest user message (harness context blocks skipped): the prompt of the current turn. */
  promptText: string;
  /** Set when the input ends with a function_call_output, i.e. the model continues after a tool. */
  toolOutput: ToolOutputInfo | null;
  isCompaction: boolean;
  defaultReply(): ResponsesReply;
}

/** Return a reply to override the built-in scenarios for this request, or undefined to keep them. */
export type ResponsesScript = (ctx: ResponsesScriptContext) => ResponsesReply | undefined;

export interface OpenAIResponsesMockOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  script?: ResponsesScript;
}

/** Its `url` includes `/v1`, as codex's `model_providers.<id>.base_url` wants it. */
export type OpenAIResponsesMock = ModelMock<LoggedResponsesRequest, ResponsesUsageRecord>;

interface InputContent {
  type?: string;
  text?: string;
}

interface InputItem {
  type?: string;
  role?: string;
  content?: string | InputContent[];
  call_id?: string;
  name?: string;
  namespace?: string;
  output?: unknown;
}

export interface ResponsesRequest {
  model?: string;
  input?: InputItem[];
  tools?: Array<{ type?: string; name?: string; tools?: Array<{ name?: string }> }>;
  stream?: boolean;
}

const REDACTED_HEADERS = new Set(["authorization", "x-api-key", "openai-api-key"]);
/** The last user item of codex's compaction request starts with this (manual /compact and auto-compaction). */
const COMPACTION_MARKER = /CONTEXT CHECKPOINT COMPACTION/;
/** User-role items codex itself adds around the prompt; never the prompt. */
const HARNESS_PREFIXES = [
  "<environment_context>",
  "<user_instructions>",
  "<permissions instructions>",
  "# AGENTS.md",
];
/** What codex tells a parent thread when one of its subagents reaches a final status. */
const NOTIFICATION = /^\s*<subagent_notification>/;

/** Distinct per response: nothing in a sum of different responses can equal another response's count by accident. */
export function usageFor(n: number): ResponsesUsage {
  const input = 1200 + 37 * n;
  const cached = 300 + 11 * n;
  const output = 40 + 3 * n;
  const reasoning = 5 + n;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: reasoning },
    total_tokens: input + output,
  };
}

function textOf(item: InputItem | undefined): string {
  if (!item) return "";
  if (typeof item.content === "string") return item.content;
  if (!Array.isArray(item.content)) return "";
  return item.content
    .filter((c) => typeof c?.text === "string" && (c.type === "input_text" || c.type === "output_text"))
    .map((c) => c.text as string)
    .join("\n");
}

function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map((o) => (typeof o?.text === "string" ? o.text : "")).join("");
  if (output && typeof output === "object" && typeof (output as { content?: unknown }).content === "string") {
    return (output as { content: string }).content;
  }
  return "";
}

interface Analysis {
  promptText: string;
  toolOutput: ToolOutputInfo | null;
  isCompaction: boolean;
}

function isNotification(item: InputItem | undefined): boolean {
  return item?.type === "message" && item.role === "user" && NOTIFICATION.test(textOf(item));
}

function analyze(body: ResponsesRequest): Analysis {
  const input = Array.isArray(body.input) ? body.input : [];
  // A subagent that finishes while its parent waits adds a <subagent_notification> user message after the
  // wait's function_call_output: the model still continues after that tool.
  let end = input.length;
  while (end > 0 && isNotification(input[end - 1])) end--;
  const last = input[end - 1];
  let toolOutput: ToolOutputInfo | null = null;
  if (last && (last.type === "function_call_output" || last.type === "custom_tool_call_output")) {
    const callId = last.call_id ?? "";
    const call = input.find(
      (i) => (i.type === "function_call" || i.type === "custom_tool_call") && i.call_id === callId,
    );
    toolOutput = { callId, toolName: call?.name ?? null, output: outputText(last.output) };
  }
  // The turn's prompt is the latest user message that is not codex's own context. A notification on its own
  // yields an empty prompt on purpose: falling back to an older prompt would replay its scenario forever.
  let promptText = "";
  for (let k = input.length - 1; k >= 0; k--) {
    const item = input[k]!;
    if (item.type !== "message" || item.role !== "user") continue;
    const text = textOf(item).trim();
    if (NOTIFICATION.test(text)) break;
    if (HARNESS_PREFIXES.some((p) => text.startsWith(p))) continue;
    promptText = text;
    break;
  }
  const tail = input.at(-1);
  const isCompaction =
    toolOutput === null && tail?.type === "message" && COMPACTION_MARKER.test(textOf(tail));
  return { promptText, toolOutput, isCompaction };
}

/** What a command printed, from codex's exec_command output ("Chunk ID: ...\nOutput:\n<output>"). */
export function commandOutputOf(toolOutput: string): string {
  const at = toolOutput.indexOf("\nOutput:\n");
  return (at >= 0 ? toolOutput.slice(at + "\nOutput:\n".length) : toolOutput).trim();
}

/** The exit code codex reports in an exec_command output, if any. */
export function exitCodeOf(toolOutput: string): number | null {
  const m = /Process exited with code (-?\d+)/.exec(toolOutput);
  return m ? Number(m[1]) : null;
}

function text(scenario: string, t: string): ResponsesReply {
  return { kind: "response", scenario, output: [{ type: "message", text: t }] };
}

function commandCall(scenario: string, cmd: string): ResponsesReply {
  return {
    kind: "response",
    scenario,
    output: [
      { type: "reasoning", summary: `The user wants \`${cmd}\` run.` },
      { type: "message", text: "Running the command." },
      { type: "function_call", name: "exec_command", arguments: { cmd, yield_time_ms: 1000 } },
    ],
  };
}

/** The namespace codex declared a tool in (`multi_agent_v1` for the agent tools), if any. */
function namespaceOf(body: ResponsesRequest, tool: string): string | undefined {
  for (const t of body.tools ?? []) {
    if (t.type === "namespace" && t.tools?.some((inner) => inner.name === tool)) return t.name;
  }
  return undefined;
}

function hasTool(body: ResponsesRequest, tool: string): boolean {
  return (body.tools ?? []).some(
    (t) => t.name === tool || (t.type === "namespace" && t.tools?.some((inner) => inner.name === tool)),
  );
}

function agentToolCall(
  body: ResponsesRequest,
  scenario: string,
  name: string,
  args: Record<string, unknown>,
) {
  const namespace = namespaceOf(body, name);
  const call: MockOutputItem = { type: "function_call", name, arguments: args };
  if (namespace !== undefined) call.namespace = namespace;
  return { kind: "response", scenario, output: [call] } satisfies ResponsesReply;
}

function defaultReply(body: ResponsesRequest, subagent: boolean, a: Analysis): ResponsesReply {
  if (a.isCompaction) {
    return text("compact", "Mock summary: the conversation was driven by scripted mock scenarios.");
  }
  if (a.toolOutput) {
    const name = a.toolOutput.toolName ?? "tool";
    if (name === "spawn_agent") {
      let agentId = "";
      try {
        agentId = String((JSON.parse(a.toolOutput.output) as { agent_id?: unknown }).agent_id ?? "");
      } catch {
        agentId = "";
      }
      if (!agentId) return text("agent-spawn-failed", `Could not spawn a subagent: ${a.toolOutput.output}`);
      return agentToolCall(body, "agent-wait", "wait_agent", { targets: [agentId], timeout_ms: 30000 });
    }
    if (name === "wait_agent") {
      let report = a.toolOutput.output;
      try {
        const parsed = JSON.parse(a.toolOutput.output) as {
          status?: Record<string, Record<string, unknown>>;
        };
        const first = Object.values(parsed.status ?? {})[0];
        if (first) report = String(first.completed ?? first.errored ?? JSON.stringify(first));
      } catch {
        // keep the raw text
      }
      return text("agent-result", `Subagent reported: ${report.slice(0, 200)}`);
    }
    if (name === "exec_command") {
      const code = exitCodeOf(a.toolOutput.output);
      const out = commandOutputOf(a.toolOutput.output).slice(0, 200);
      return code !== null && code !== 0
        ? text("fail-result", `The command failed with exit code ${code}: ${out}`)
        : text("bash-result", `Done: ${out}`);
    }
    return text(`${name.toLowerCase()}-result`, `Done: ${a.toolOutput.output.slice(0, 200)}`);
  }

  const scenario = turnScenario(a.promptText);
  const fact = factReply(scenario, body);
  if (fact) return text(fact.scenario, fact.text);
  const { name, arg } = scenario;
  switch (name) {
    case "APIERROR":
      return apiErrorReply();
    case "BASH":
      return commandCall(subagent ? "subagent-bash" : "bash", scenario.command || "echo hello");
    case "FAIL":
      return commandCall("fail", FAIL_COMMAND);
    case "PERM": {
      // A command that asks to leave the sandbox: under approval_policy on-request codex asks for approval
      // (and fires PermissionRequest); `codex exec` forces approval "never" and rejects it instead.
      const cmd = scenario.command || "touch stamp.txt";
      return {
        kind: "response",
        scenario: "perm",
        output: [
          {
            type: "function_call",
            name: "exec_command",
            arguments: {
              cmd,
              yield_time_ms: 1000,
              sandbox_permissions: "require_escalated",
              justification: "Needs to write outside the sandbox",
            },
          },
        ],
      };
    }
    case "AGENT": {
      // A subagent must not spawn another one: the keyword it inherited would recurse forever.
      if (subagent) return text("subagent-text", "Subagent reply.");
      if (!hasTool(body, "spawn_agent")) return text("agent-no-tool", "No subagent tool is available.");
      const task = arg ? `SCENARIO_BASH ${arg}` : "SCENARIO_TEXT subagent";
      return agentToolCall(body, "agent", "spawn_agent", { message: task });
    }
    case "MCP": {
      // Codex 0.171 declares an MCP server's tools in a namespace named `mcp__<server>`; the call names the tool
      // and its namespace.
      const parsed = parseMcpScenario(arg);
      if ("error" in parsed) return text("mcp-bad-input", parsed.error);
      if (!hasTool(body, parsed.tool)) return text("mcp-no-tool", `No ${parsed.tool} tool is available.`);
      return agentToolCall(body, "mcp", parsed.tool, parsed.input);
    }
    default:
      return text(subagent ? "subagent-text" : "text", "Mock reply.");
  }
}

type SseEvent = { type: string; [k: string]: unknown };

interface Ids {
  next(prefix: string): string;
}

/** The SSE events of one response, and its final output items. */
function buildEvents(
  reply: Extract<ResponsesReply, { kind: "response" }>,
  responseId: string,
  model: string,
  usage: ResponsesUsage,
  ids: Ids,
): SseEvent[] {
  const createdAt = Math.floor(Date.now() / 1000);
  const base = { id: responseId, object: "response", created_at: createdAt, model };
  const events: SseEvent[] = [
    { type: "response.created", response: { ...base, status: "in_progress", output: [] } },
  ];
  const done: Record<string, unknown>[] = [];
  reply.output.forEach((item, outputIndex) => {
    if (item.type === "reasoning") {
      const id = ids.next("rs");
      const summary = [{ type: "summary_text", text: item.summary }];
      events.push({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { type: "reasoning", id, summary: [] },
      });
      events.push({
        type: "response.reasoning_summary_part.added",
        item_id: id,
        output_index: outputIndex,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
      events.push({
        type: "response.reasoning_summary_text.delta",
        item_id: id,
        output_index: outputIndex,
        summary_index: 0,
        delta: item.summary,
      });
      const final = { type: "reasoning", id, summary };
      events.push({ type: "response.output_item.done", output_index: outputIndex, item: final });
      done.push(final);
    } else if (item.type === "message") {
      const id = ids.next("msg");
      events.push({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { type: "message", id, status: "in_progress", role: "assistant", content: [] },
      });
      const half = Math.ceil(item.text.length / 2);
      for (const delta of [item.text.slice(0, half), item.text.slice(half)]) {
        if (delta === "") continue;
        events.push({
          type: "response.output_text.delta",
          item_id: id,
          output_index: outputIndex,
          content_index: 0,
          delta,
        });
      }
      const final = {
        type: "message",
        id,
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: item.text, annotations: [] }],
      };
      events.push({ type: "response.output_item.done", output_index: outputIndex, item: final });
      done.push(final);
    } else {
      const id = ids.next("fc");
      const callId = ids.next("call");
      const args = JSON.stringify(item.arguments);
      const head: Record<string, unknown> = { type: "function_call", id, call_id: callId, name: item.name };
      if (item.namespace !== undefined) head.namespace = item.namespace;
      events.push({
        type: "response.output_item.added",
        output_index: outputIndex,
        item: { ...head, status: "in_progress", arguments: "" },
      });
      events.push({
        type: "response.function_call_arguments.delta",
        item_id: id,
        output_index: outputIndex,
        delta: args,
      });
      const final = { ...head, status: "completed", arguments: args };
      events.push({ type: "response.output_item.done", output_index: outputIndex, item: final });
      done.push(final);
    }
  });
  events.push({
    type: "response.completed",
    response: { ...base, status: "completed", output: done, usage },
  });
  return events;
}

/** Who made a call, by codex's headers: what a script is told beside the body. */
interface Caller {
  headers: Record<string, string>;
  sessionId: string | null;
  threadId: string | null;
  subagent: boolean;
}

/** The reply to a call: the test's script's, else the built-in scenarios'. */
function replyTo(
  request: ResponsesRequest,
  caller: Caller,
  script: ResponsesScript | undefined,
): ResponsesReply {
  const analysis = analyze(request);
  const builtIn = () => defaultReply(request, caller.subagent, analysis);
  return scriptedReply(script, { body: request, ...caller, ...analysis }, builtIn);
}

export async function startOpenAIResponsesMock(
  opts: OpenAIResponsesMockOptions = {},
): Promise<OpenAIResponsesMock> {
  let responseCount = 0;
  const counters = new Map<string, number>();
  const ids: Ids = {
    next(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}_mock_${n}`;
    },
  };

  /** The next response: its id and usage from its number, logged, then streamed. */
  function sendResponse(
    answer: Answer<ResponsesUsageRecord>,
    entry: LoggedResponsesRequest,
    request: ResponsesRequest,
    reply: Extract<ResponsesReply, { kind: "response" }>,
  ): void {
    const r = ++responseCount;
    const responseId = `resp_mock_${r}`;
    const usage = usageFor(r);
    const model = request.model ?? "gpt-mock";
    const events = buildEvents(reply, responseId, model, usage, ids);
    answer.usage({
      responseId,
      requestSeq: entry.seq,
      model,
      scenario: reply.scenario,
      sessionId: entry.sessionId,
      threadId: entry.threadId,
      subagent: entry.subagent,
      usage,
    });
    entry.responseId = responseId;
    answer.stream(
      events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`),
      reply.scenario,
      { "x-request-id": `req_mock_${entry.seq}` },
    );
  }

  const api = {
    redactedHeaders: REDACTED_HEADERS,
    errorBody: (err: unknown) => ({ error: { message: String(err), type: "server_error" } }),
    undecodableBody: "<undecodable body>",
    urlPath: "/v1",
  };
  return startModelMock<LoggedResponsesRequest, ResponsesUsageRecord>(opts, api, async (call) => {
    const headers = call.headers;
    const sessionId = headers["session-id"] ?? null;
    const threadId = headers["thread-id"] ?? null;
    const subagent =
      headers["x-openai-subagent"] !== undefined ||
      (sessionId !== null && threadId !== null && sessionId !== threadId);
    const body = await call.readBody();
    const entry: LoggedResponsesRequest = {
      ...call.head,
      headers,
      body: body.value,
      sessionId,
      threadId,
      subagent,
      scenario: "",
      status: 200,
      responseId: null,
    };
    const answer = call.answer(entry, {
      headers: { "content-type": "application/json" },
      error: (_status, type, message) => ({ error: { message, type, code: "mock_error", param: null } }),
    });

    const { method } = call.head;
    if (method === "GET" && call.pathname === "/v1/models") {
      answer.json(200, { object: "list", data: [] }, "models");
      return;
    }
    const request = answer.modelCall<ResponsesRequest>(
      method === "POST" && call.pathname === "/v1/responses",
    );
    if (!request) return;
    const reply = replyTo(request, { headers, sessionId, threadId, subagent }, opts.script);
    if (reply.kind === "error") answer.error(reply.status, reply.errorType, reply.message, reply.scenario);
    else sendResponse(answer, entry, request, reply);
  });
}
