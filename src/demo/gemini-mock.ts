/**
 * Scripted stand-in for the Gemini API (`generativelanguage` v1beta), good enough for the real `gemini` CLI
 * (0.61) to run a whole session offline. It answers the three kinds of calls the CLI makes:
 *
 * - `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`: the agent loop. An SSE stream of
 *   `data: {candidates, usageMetadata, modelVersion, responseId}\r\n\r\n` chunks; only the last one has a
 *   `finishReason` and the response's full usage (earlier ones carry the prompt count only, as the real API).
 * - `POST /v1beta/models/{model}:generateContent` with a `responseJsonSchema`: the model router
 *   (`complexity_score`) and any other JSON utility call, answered from the schema.
 * - `POST /v1beta/models/{model}:generateContent` without one: chat compression ("Generate a new
 *   <state_snapshot>..." and the self-check that follows it) and anything else, answered with text.
 *
 * Replies are chosen by the last `SCENARIO_*` keyword in the latest user prompt:
 *   SCENARIO_BASH <cmd>      a `run_shell_command {command, description}` call, then (after the
 *                            functionResponse) `Done: <output>`
 *   SCENARIO_FAIL            the same with `echo oops >&2; exit 3`
 *   SCENARIO_SAY <text>, SCENARIO_RECALL <key>  a stated fact; a fact recalled only from tapedeck's marker in the
 *                            request (recall-mock.ts)
 *   SCENARIO_MCP <tool> <json>  a call of that MCP tool, then `Done: <its output>`
 *   SCENARIO_COMPRESS <cmd>  like BASH, but the call's usage claims a prompt of 900k tokens, past Gemini's
 *                            compression threshold: the CLI compresses the history before its next model call
 *                            (if there is anything old enough to compress)
 *   anything else            `Mock reply.`
 *
 * Every response (streamed or not) gets its own deterministic usage, distinct from all others, logged in
 * `usageLog`; every request is logged in `requests`, with `x-goog-api-key` redacted. No request is ever sent on.
 */
import { type Answer, type LoggedExchange, type ModelMock, startModelMock } from "./mock-exchange.ts";
import { FAIL_COMMAND, factReply, parseMcpScenario, tokensOfLength, turnScenario } from "./mock-script.ts";

export interface GeminiUsage {
  promptTokenCount: number;
  candidatesTokenCount: number;
  totalTokenCount: number;
  cachedContentTokenCount: number;
  thoughtsTokenCount: number;
}

export type GeminiCallKind = "streamGenerateContent" | "generateContent" | "countTokens" | "other";

/** A request to the Gemini mock; its scenarios include the utility calls' (`router`, `compress`, `compress-verify`). */
export interface GeminiLoggedRequest extends LoggedExchange {
  kind: GeminiCallKind;
  model: string | null;
  responseId: string | null;
}

export interface GeminiUsageRecord {
  /** 1-based over all responses. */
  n: number;
  responseId: string;
  /** The request's `seq`. */
  seq: number;
  kind: "streamGenerateContent" | "generateContent";
  model: string;
  scenario: string;
  /** Number of SSE chunks (1 for generateContent). */
  chunks: number;
  finishReason: string;
  /** The final usage: what a recorder should attribute to this response. */
  usage: GeminiUsage;
}

export type GeminiPart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { functionCall: { name: string; args: Record<string, unknown> }; thoughtSignature?: string };

export interface GeminiMockOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Append every logged request to this file as JSONL. */
  logFile?: string;
}

export type GeminiMock = ModelMock<GeminiLoggedRequest, GeminiUsageRecord>;

interface Content {
  role?: string;
  parts?: Array<Record<string, unknown>>;
}

interface GenerateRequest {
  contents?: Content[];
  systemInstruction?: unknown;
  tools?: unknown;
  generationConfig?: {
    responseMimeType?: string;
    responseJsonSchema?: JsonSchema;
    responseSchema?: JsonSchema;
  };
}

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
}

interface Reply {
  scenario: string;
  parts: GeminiPart[];
  /** The prompt size to claim, when not the default. */
  promptTokens?: number;
}

const REDACTED_HEADERS = new Set(["x-goog-api-key", "authorization"]);
const SHELL_TOOL = "run_shell_command";
/** Past 0.5 × the 1M-token window of every Gemini model: the CLI compresses before its next call. */
export const HUGE_PROMPT_TOKENS = 900_000;
/** The k-th compression's snapshot: each compression writes a new one, as a real model would. */
export function snapshotText(k: number): string {
  return (
    "<state_snapshot>\n<overall_goal>Mock goal: replay the scripted scenarios.</overall_goal>\n" +
    `<key_knowledge>Compression ${k} of a session of scripted mock scenarios.</key_knowledge>\n</state_snapshot>`
  );
}
const COMPRESS_REQUEST = /Generate a new <state_snapshot>|A previous <state_snapshot> exists in the history/;
const COMPRESS_VERIFY = /Critically evaluate the <state_snapshot>/;

/** The usage of the n-th response (1-based): every field differs from every other response's. */
export function geminiUsageFor(
  n: number,
  opts: { thoughts?: boolean; promptTokens?: number } = {},
): GeminiUsage {
  const promptTokenCount = opts.promptTokens ?? 1000 + 111 * n;
  const candidatesTokenCount = 20 + 3 * n;
  const thoughtsTokenCount = opts.thoughts ? 7 + n : 0;
  return {
    promptTokenCount,
    candidatesTokenCount,
    totalTokenCount: promptTokenCount + candidatesTokenCount + thoughtsTokenCount,
    cachedContentTokenCount: 100 * n,
    thoughtsTokenCount,
  };
}

function partsOf(content: Content | undefined): Array<Record<string, unknown>> {
  return Array.isArray(content?.parts) ? content.parts : [];
}

function textOf(content: Content | undefined): string {
  return partsOf(content)
    .filter((p) => typeof p.text === "string" && p.thought !== true)
    .map((p) => p.text as string)
    .join("\n");
}

interface Analysis {
  /** Text of the latest user message that has any (not only function responses): the current prompt. */
  promptText: string;
  /** The last user message only answers a function call: the model continues after a tool. */
  toolResponse: { name: string; output: string } | null;
  /** Text of the very last user message. */
  lastText: string;
}

function analyze(body: GenerateRequest): Analysis {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  const users = contents.filter((c) => c?.role === "user" || c?.role === undefined);
  const last = users.at(-1);
  let toolResponse: Analysis["toolResponse"] = null;
  const responses = partsOf(last).filter((p) => p.functionResponse && typeof p.functionResponse === "object");
  if (last && responses.length > 0 && textOf(last).trim() === "") {
    const fr = responses.at(-1)!.functionResponse as { name?: string; response?: Record<string, unknown> };
    const response = fr.response ?? {};
    const output =
      typeof response.output === "string"
        ? response.output
        : typeof response.error === "string"
          ? response.error
          : JSON.stringify(response);
    toolResponse = { name: fr.name ?? "tool", output };
  }
  let promptText = "";
  for (let i = users.length - 1; i >= 0; i--) {
    const text = textOf(users[i]).trim();
    if (text !== "") {
      promptText = text;
      break;
    }
  }
  return { promptText, toolResponse, lastText: textOf(last) };
}

/** What the shell tool reported, without the PGID line (which differs on every run). */
function shellSummary(output: string): string {
  const lines = output.split(/\r?\n/);
  const out = lines.find((l) => l.startsWith("Output: "))?.slice("Output: ".length) ?? "";
  const exit = lines.find((l) => l.startsWith("Exit Code: "))?.slice("Exit Code: ".length);
  const error = lines.find((l) => l.startsWith("Error: "))?.slice("Error: ".length);
  let summary = out.trim() === "" ? "(no output)" : out.trim();
  if (exit !== undefined) summary += ` (exit ${exit.trim()})`;
  if (error !== undefined && error.trim() !== "(none)") summary += ` (error ${error.trim()})`;
  return summary;
}

function shellCall(scenario: string, command: string, description: string, promptTokens?: number): Reply {
  const reply: Reply = {
    scenario,
    parts: [
      { text: `The user wants me to run \`${command}\`.`, thought: true },
      { text: "Running the command now." },
      {
        functionCall: { name: SHELL_TOOL, args: { command, description } },
        thoughtSignature: Buffer.from(`mock-signature:${scenario}`).toString("base64"),
      },
    ],
  };
  if (promptTokens !== undefined) reply.promptTokens = promptTokens;
  return reply;
}

/** The function names the request declares (Gemini CLI puts every tool, MCP ones included, in functionDeclarations). */
function declaredTools(body: GenerateRequest): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as Array<{ functionDeclarations?: unknown }>) : [];
  return tools.flatMap((t) =>
    Array.isArray(t?.functionDeclarations)
      ? (t.functionDeclarations as Array<{ name?: unknown }>).flatMap((d) =>
          typeof d?.name === "string" ? [d.name] : [],
        )
      : [],
  );
}

/** `SCENARIO_MCP <tool> <json input>`: a call of that MCP tool under whatever name the client declared it. */
function mcpCall(body: GenerateRequest, arg: string): Reply {
  const parsed = parseMcpScenario(arg);
  if ("error" in parsed) return { scenario: "mcp-bad-input", parts: [{ text: parsed.error }] };
  const { tool: wanted, input: args } = parsed;
  // Gemini CLI 0.61 declares an MCP tool as `mcp_<server>_<tool>`.
  const name = declaredTools(body).find(
    (n) => n === wanted || (n.startsWith("mcp_") && n.endsWith(`_${wanted}`)),
  );
  if (!name) return { scenario: "mcp-no-tool", parts: [{ text: `No ${wanted} tool is available.` }] };
  return {
    scenario: "mcp",
    parts: [
      { text: `Calling ${wanted}.` },
      {
        functionCall: { name, args },
        thoughtSignature: Buffer.from("mock-signature:mcp").toString("base64"),
      },
    ],
  };
}

function streamReply(body: GenerateRequest, a: Analysis): Reply {
  if (a.toolResponse) {
    const name = a.toolResponse.name;
    const text =
      name === SHELL_TOOL
        ? `Done: ${shellSummary(a.toolResponse.output)}`
        : name.startsWith("mcp_")
          ? `Done: ${a.toolResponse.output.slice(0, 200)}`
          : `Done: ${name} answered.`;
    return { scenario: `${name === SHELL_TOOL ? "bash" : name}-result`, parts: [{ text }] };
  }
  const scenario = turnScenario(a.promptText);
  const fact = factReply(scenario, body);
  if (fact) return { scenario: fact.scenario, parts: [{ text: fact.text }] };
  const { name, arg, command } = scenario;
  switch (name) {
    case "BASH":
      return shellCall("bash", command || "echo hello", "Run a command");
    case "FAIL":
      return shellCall("fail", FAIL_COMMAND, "Fail on purpose");
    case "COMPRESS":
      return shellCall("compress", command || "echo compress", "Run a command", HUGE_PROMPT_TOKENS);
    case "MCP":
      return mcpCall(body, arg);
    default:
      return { scenario: "text", parts: [{ text: "Mock reply." }] };
  }
}

/** A value that satisfies a (Gemini-style, upper- or lower-case) JSON schema. */
function fromSchema(schema: JsonSchema | undefined, key = ""): unknown {
  const type = (schema?.type ?? "").toLowerCase();
  if (Array.isArray(schema?.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(schema?.properties ?? {})) out[k] = fromSchema(v, k);
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return key === "complexity_score" ? 10 : 1;
    case "boolean":
      return false;
    default:
      if (key === "next_speaker") return "user";
      if (key === "complexity_reasoning") return "Mock: a simple scripted request.";
      return "mock";
  }
}

/** The snapshot the model just wrote (the verify request carries it as the last model message). */
function lastSnapshot(body: GenerateRequest): string | undefined {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  for (let i = contents.length - 1; i >= 0; i--) {
    if (contents[i]?.role !== "model") continue;
    const m = /<state_snapshot>[\s\S]*<\/state_snapshot>/.exec(textOf(contents[i]));
    if (m) return m[0];
  }
  return undefined;
}

function generateReply(body: GenerateRequest, a: Analysis, nextCompression: () => number): Reply {
  const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
  if (schema) {
    const scenario = schema.properties && "complexity_score" in schema.properties ? "router" : "json";
    return { scenario, parts: [{ text: JSON.stringify(fromSchema(schema)) }] };
  }
  // The self-check asks for the same snapshot again when nothing is missing: repeat it exactly.
  if (COMPRESS_VERIFY.test(a.lastText)) {
    const snapshot = lastSnapshot(body) ?? snapshotText(nextCompression());
    return { scenario: "compress-verify", parts: [{ text: snapshot }] };
  }
  if (COMPRESS_REQUEST.test(a.lastText)) {
    return {
      scenario: "compress",
      parts: [
        { text: "Scratchpad: the history holds scripted scenarios only.\n" },
        { text: snapshotText(nextCompression()) },
      ],
    };
  }
  return { scenario: "generate-text", parts: [{ text: "Mock reply." }] };
}

/** `/v1beta/models/gemini-x:streamGenerateContent` → kind and model. */
function route(pathname: string): { kind: GeminiCallKind; model: string | null } {
  const m = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):([A-Za-z]+)$/.exec(pathname);
  if (!m) return { kind: "other", model: null };
  const model = decodeURIComponent(m[1]!);
  const method = m[2]!;
  if (method === "streamGenerateContent" || method === "generateContent" || method === "countTokens") {
    return { kind: method, model };
  }
  return { kind: "other", model };
}

interface Chunk {
  candidates: Array<{
    content: { parts: GeminiPart[]; role: "model" };
    finishReason?: string;
    index: number;
  }>;
  usageMetadata: Record<string, unknown>;
  modelVersion: string;
  responseId: string;
}

/** The final usage as the API sends it: zero counts are left out, like the real service does. */
function usageMetadata(usage: GeminiUsage): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    promptTokenCount: usage.promptTokenCount,
    candidatesTokenCount: usage.candidatesTokenCount,
    totalTokenCount: usage.totalTokenCount,
  };
  if (usage.cachedContentTokenCount > 0) meta.cachedContentTokenCount = usage.cachedContentTokenCount;
  if (usage.thoughtsTokenCount > 0) meta.thoughtsTokenCount = usage.thoughtsTokenCount;
  return meta;
}

/**
 * One chunk per part, as the real API streams a thought, a text and a function call. Only the last chunk
 * carries finishReason and the whole usage.
 */
function buildChunks(parts: GeminiPart[], usage: GeminiUsage, model: string, responseId: string): Chunk[] {
  return parts.map((part, i) => {
    const final = i === parts.length - 1;
    const chunk: Chunk = {
      candidates: [{ content: { parts: [part], role: "model" }, index: 0 }],
      usageMetadata: final
        ? usageMetadata(usage)
        : { promptTokenCount: usage.promptTokenCount, totalTokenCount: usage.promptTokenCount },
      modelVersion: model,
      responseId,
    };
    if (final) chunk.candidates[0]!.finishReason = "STOP";
    return chunk;
  });
}

export async function startGeminiMock(opts: GeminiMockOptions = {}): Promise<GeminiMock> {
  let responses = 0;
  let compressions = 0;

  /**
   * The next response: its id and usage from its number, logged, then streamed as one chunk a part, or whole for
   * generateContent (one chunk in the usage log).
   */
  function sendReply(
    answer: Answer<GeminiUsageRecord>,
    entry: GeminiLoggedRequest,
    kind: GeminiUsageRecord["kind"],
    model: string,
    reply: Reply,
  ): void {
    const r = ++responses;
    const responseId = `mock-response-${r}`;
    const thoughts = reply.parts.some((p) => "text" in p && p.thought === true);
    const usage = geminiUsageFor(
      r,
      reply.promptTokens !== undefined ? { thoughts, promptTokens: reply.promptTokens } : { thoughts },
    );
    entry.responseId = responseId;
    const chunks =
      kind === "streamGenerateContent" ? buildChunks(reply.parts, usage, model, responseId) : null;
    answer.usage({
      n: r,
      responseId,
      seq: entry.seq,
      kind,
      model,
      scenario: reply.scenario,
      chunks: chunks?.length ?? 1,
      finishReason: "STOP",
      usage,
    });
    if (chunks) {
      answer.stream(
        chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`),
        reply.scenario,
      );
      return;
    }
    const candidates = [{ content: { parts: reply.parts, role: "model" }, finishReason: "STOP", index: 0 }];
    const response = { candidates, usageMetadata: usageMetadata(usage), modelVersion: model, responseId };
    answer.json(200, response, reply.scenario);
  }

  const api = {
    redactedHeaders: REDACTED_HEADERS,
    errorBody: (err: unknown) => ({ error: { code: 500, message: String(err), status: "INTERNAL" } }),
  };
  return startModelMock<GeminiLoggedRequest, GeminiUsageRecord>(opts, api, async (call) => {
    const { kind, model } = route(call.pathname);
    const body = await call.readBody();
    const entry: GeminiLoggedRequest = {
      ...call.head,
      kind,
      model,
      headers: call.headers,
      body: body.value,
      scenario: "",
      status: 200,
      responseId: null,
    };
    const answer = call.answer(entry, {
      headers: { "content-type": "application/json; charset=UTF-8" },
      error: (status, _type, message) => ({
        error: { code: status, message, status: status === 404 ? "NOT_FOUND" : "INVALID_ARGUMENT" },
      }),
    });

    const onRoute = call.head.method === "POST" && kind !== "other" && model !== null;
    const request = answer.modelCall<GenerateRequest>(onRoute);
    // kind and model again for the compiler: off the route, modelCall has answered.
    if (!request || kind === "other" || model === null) return;
    if (kind === "countTokens") {
      answer.json(200, { totalTokens: tokensOfLength(body.raw.length) }, "count-tokens");
      return;
    }
    const analysis = analyze(request);
    const reply =
      kind === "streamGenerateContent"
        ? streamReply(request, analysis)
        : generateReply(request, analysis, () => ++compressions);
    sendReply(answer, entry, kind, model, reply);
  });
}
