// Shared by the mirror tests: Messages API requests and SSE streams shaped like
// Claude Code 2.1.332's real traffic (reference/claude/http-request.*), and
// readers for what the mirror wrote.
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { ProxyContext, StreamEvent } from "../../../../src/core/ports/proxy-extension.ts";
import {
  createMirrorExtension,
  type MirrorExtension,
} from "../../../../src/providers/claude/mirror/extension.ts";
import {
  defaultMirrorSettings,
  type MirrorSettings,
} from "../../../../src/providers/claude/mirror/settings.ts";
import {
  compareMirrorFiles,
  type MirrorIo,
  mirrorDirName,
} from "../../../../src/providers/claude/mirror/writer.ts";

export type Block =
  | { type: "thinking"; thinking: string; signature?: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> }
  | { type: "raw"; start: Record<string, unknown>; deltas: Record<string, unknown>[] };

export interface Reply {
  id: string;
  blocks: Block[];
  stopReason?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
}

function chunks(s: string, n: number): string[] {
  const size = Math.max(1, Math.ceil(s.length / n));
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out.length > 0 ? out : [""];
}

function ev(data: Record<string, unknown>): StreamEvent {
  const text = JSON.stringify(data);
  return { event: data.type as string, data: text, json: JSON.parse(text) };
}

/** The SSE events of one reply, in the order and shape the Messages API streams them. */
export function sseEvents(reply: Reply): StreamEvent[] {
  const usage = {
    input_tokens: reply.inputTokens ?? 2817,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 1,
    service_tier: "standard",
  };
  const events: StreamEvent[] = [
    ev({
      type: "message_start",
      message: {
        id: reply.id,
        type: "message",
        role: "assistant",
        model: reply.model ?? "claude-opus-5-5",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage,
      },
    }),
  ];
  reply.blocks.forEach((block, index) => {
    let start: Record<string, unknown>;
    let deltas: Record<string, unknown>[];
    if (block.type === "thinking") {
      start = { type: "thinking", thinking: "", signature: "" };
      deltas = [
        ...chunks(block.thinking, 2).map((t) => ({ type: "thinking_delta", thinking: t })),
        { type: "signature_delta", signature: block.signature ?? `sig-${reply.id}-${index}` },
      ];
    } else if (block.type === "text") {
      start = { type: "text", text: "" };
      deltas = chunks(block.text, 2).map((t) => ({ type: "text_delta", text: t }));
    } else if (block.type === "tool_use") {
      start = { type: "tool_use", id: block.id, name: block.name, input: {} };
      deltas = chunks(JSON.stringify(block.input), 3).map((p) => ({
        type: "input_json_delta",
        partial_json: p,
      }));
    } else {
      start = block.start;
      deltas = block.deltas;
    }
    events.push(ev({ type: "content_block_start", index, content_block: start }));
    if (index === 0) events.push(ev({ type: "ping" }));
    for (const delta of deltas) events.push(ev({ type: "content_block_delta", index, delta }));
    events.push(ev({ type: "content_block_stop", index }));
  });
  events.push(
    ev({
      type: "message_delta",
      delta: { stop_reason: reply.stopReason ?? "end_turn", stop_sequence: null },
      usage: { output_tokens: reply.outputTokens ?? 26 },
    }),
  );
  events.push(ev({ type: "message_stop" }));
  return events;
}

/** The complete message a non-streaming call returns for the same reply. */
export function replyJson(reply: Reply): Record<string, unknown> {
  return {
    id: reply.id,
    type: "message",
    role: "assistant",
    model: reply.model ?? "claude-opus-5-5",
    content: reply.blocks.map((b) => {
      if (b.type === "thinking")
        return { type: "thinking", thinking: b.thinking, signature: b.signature ?? "sig" };
      if (b.type === "raw") return b.start;
      return b;
    }),
    stop_reason: reply.stopReason ?? "end_turn",
    stop_sequence: null,
    usage: { input_tokens: reply.inputTokens ?? 2817, output_tokens: reply.outputTokens ?? 26 },
  };
}

export interface CtxOptions {
  sessionId?: string | null;
  agentId?: string;
  /** Extra or replacing request headers. */
  headers?: Record<string, string>;
  model?: string;
  stream?: boolean;
  requestId?: string;
  url?: string;
  method?: string;
}

let ctxCounter = 0;

/** A request context as the proxy builds it for Claude Code's `POST /v1/messages?beta=true`. */
export function makeCtx(messages: unknown[], opts: CtxOptions = {}): ProxyContext {
  ctxCounter += 1;
  const headers: Record<string, string> = {
    accept: "application/json",
    "content-type": "application/json",
    "user-agent": "claude-cli/2.1.332 (external, sdk-cli)",
    "anthropic-version": "2023-06-01",
    "x-api-key": "sk-ant-dummy",
    "x-app": "cli",
  };
  if (opts.sessionId !== null) {
    headers["x-claude-code-session-id"] = opts.sessionId ?? "2b78a515-1a4e-4949-93a8-4a58deaec546";
  }
  if (opts.agentId !== undefined) headers["x-claude-code-agent-id"] = opts.agentId;
  Object.assign(headers, opts.headers);
  const body = {
    model: opts.model ?? "claude-opus-5-5",
    messages,
    system: [
      { type: "text", text: "x-anthropic-billing-header: cc_version=2.1.332.3eb; cc_entrypoint=sdk-cli;" },
    ],
    tools: [],
    metadata: { user_id: "{}" },
    max_tokens: 128000,
    thinking: { type: "adaptive", display: "omitted" },
    output_config: { effort: "medium" },
    stream: opts.stream ?? true,
  };
  const rawBody = Buffer.from(JSON.stringify(body));
  return {
    id: `req-${ctxCounter}`,
    method: opts.method ?? "POST",
    url: opts.url ?? "/v1/messages?beta=true",
    headers,
    body: JSON.parse(rawBody.toString("utf8")),
    rawBody,
    status: 200,
    responseHeaders: {
      "content-type": opts.stream === false ? "application/json" : "text/event-stream; charset=utf-8",
      "request-id": opts.requestId ?? `req_mock_${ctxCounter}`,
    },
    meta: {},
  };
}

/** Runs one streamed request through every hook, as the server would. */
export async function runStream(
  ext: MirrorExtension,
  ctx: ProxyContext,
  events: StreamEvent[],
): Promise<void> {
  await ext.onRequest?.(ctx);
  await ext.onResponseStart?.(ctx);
  for (const e of events) await ext.onStreamEvent?.(ctx, e);
  await ext.onEnd?.(ctx);
}

/** Runs a streamed request that ends, `aborted`, after the response's first `events` (or before it began). */
export async function runCutStream(
  ext: MirrorExtension,
  ctx: ProxyContext,
  events: StreamEvent[],
  aborted: NonNullable<ProxyContext["aborted"]>,
): Promise<void> {
  await ext.onRequest?.(ctx);
  for (const e of events) await ext.onStreamEvent?.(ctx, e);
  ctx.aborted = aborted;
  await ext.onEnd?.(ctx);
}

/** Claude Code's side of a conversation: the history it re-sends with every request. */
export class Conversation {
  readonly messages: Record<string, unknown>[] = [];
  private replies = 0;

  constructor(
    readonly ext: MirrorExtension,
    readonly ctxOpts: CtxOptions = {},
  ) {}

  /** Appends a user message, sends the whole history, streams `blocks` back and appends them as the assistant turn. */
  async turn(userContent: unknown, blocks: Block[] = [{ type: "text", text: "ok" }]): Promise<ProxyContext> {
    this.messages.push({ role: "user", content: userContent });
    return this.reply(blocks);
  }

  /** Sends the current history (e.g. a retry) and streams a reply. */
  async reply(blocks: Block[], stopReason?: string): Promise<ProxyContext> {
    this.replies += 1;
    const reply: Reply = { id: `msg_${this.ctxOpts.agentId ?? "main"}_${this.replies}`, blocks };
    if (stopReason !== undefined) reply.stopReason = stopReason;
    const ctx = makeCtx(structuredClone(this.messages), this.ctxOpts);
    await runStream(this.ext, ctx, sseEvents(reply));
    this.messages.push({ role: "assistant", content: replyJson(reply).content });
    return ctx;
  }

  /** The captured session's tool loop on the history so far: echo hello in Bash, its result, the answer. */
  async echoHello(thinking: string): Promise<void> {
    await this.reply([
      { type: "thinking", thinking },
      { type: "text", text: "Running the command now." },
      { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo hello" } },
    ]);
    await this.turn(
      [{ type: "tool_result", tool_use_id: "toolu_1", content: "hello", is_error: false }],
      [{ type: "text", text: "The command printed: hello" }],
    );
  }

  /** Sends the history with `userContent` appended, and the upstream cuts the reply a few events in. */
  async cutTurn(userContent: unknown, reason: string): Promise<void> {
    this.messages.push({ role: "user", content: userContent });
    const ctx = makeCtx(structuredClone(this.messages), this.ctxOpts);
    const events = sseEvents({ id: "msg_cut", blocks: [{ type: "text", text: "partial answer" }] });
    await runCutStream(this.ext, ctx, events.slice(0, 4), { by: "upstream", reason });
  }
}

export interface TempMirror {
  root: string;
  dir: string;
  settings: MirrorSettings;
  ext: MirrorExtension;
  cleanup(): void;
}

export function tempMirror(
  overrides: Partial<MirrorSettings> = {},
  opts: { io?: Partial<MirrorIo>; now?: () => number } = {},
): TempMirror {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "tapedeck-mirror-")));
  const dir = join(root, "mirrors");
  const settings: MirrorSettings = { ...defaultMirrorSettings(root), enabled: true, dir, ...overrides };
  const ext = createMirrorExtension(settings, opts);
  return { root, dir, settings, ext, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** At the top of a test file: `mirror(...)` makes a temp mirror, idled and removed after the test. */
export function useTempMirror(): (...args: Parameters<typeof tempMirror>) => TempMirror {
  let current: TempMirror | undefined;
  afterEach(async () => {
    await current?.ext.idle();
    current?.cleanup();
    current = undefined;
  });
  return (...args) => {
    current = tempMirror(...args);
    return current;
  };
}

export function mirrorFiles(dir: string, sessionId: string, agentId?: string): string[] {
  const base = join(dir, mirrorDirName(sessionId));
  const target = agentId === undefined ? base : join(base, "agents", mirrorDirName(agentId));
  let names: string[];
  try {
    names = readdirSync(target).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return [];
  }
  return names.sort(compareMirrorFiles).map((n) => join(target, n));
}

// biome-ignore lint/suspicious/noExplicitAny: records are read back as untyped JSON in assertions.
export type AnyRecord = Record<string, any>;

export function readRecords(dir: string, sessionId: string, agentId?: string): AnyRecord[] {
  return mirrorFiles(dir, sessionId, agentId).flatMap((f) =>
    readFileSync(f, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as AnyRecord),
  );
}

export function readEvents(dir: string): AnyRecord[] {
  try {
    return readFileSync(join(dir, "session-mirror-events.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as AnyRecord);
  } catch {
    return [];
  }
}

/** Texts of the user records, for asserting order and uniqueness. */
export function userTexts(records: AnyRecord[]): string[] {
  return records
    .filter((r) => r.type === "user")
    .map((r) => {
      const c = r.message.content;
      if (typeof c === "string") return c;
      return c
        .map((b: AnyRecord) =>
          b.type === "text" ? b.text : b.type === "tool_result" ? `result:${b.tool_use_id}` : b.type,
        )
        .join("|");
    });
}

/** Fake credentials are assembled at run time so the repository holds nothing a scanner would flag. */
export function plantedKey(): string {
  return (
    ["sk", "ant", "api03", "Zq8xVb2LmN4pR7tW9yKc3Hd5Jf6Gs1Ae0Bu"].join("-") + "Xk7Pq2Lm9Nw4Rt8Vy3Zc5Hd6AA"
  );
}
