// One request's part in the transcript mirror: what onRequest stages from the
// request body (the target file, the record context, the user messages not
// yet mirrored), and the one append that writes them with the assistant
// message once the response has produced it. The extension (extension.ts)
// decides when; this module knows what is written.
import type { ProxyContext } from "../../../core/ports/proxy-extension.ts";
import { isRecord } from "../../shared.ts";
import { type AccumulatedMessage, MessageAccumulator } from "./accumulator.ts";
import {
  type DedupEntry,
  type DedupStore,
  dedupKey,
  isPlanStale,
  planUserMessages,
  type StagePlan,
  userTurnsOf,
} from "./dedup.ts";
import {
  type ContentOptions,
  type MirrorRecord,
  prepareAssistantMessage,
  prepareRecordContext,
  prepareRequestId,
  prepareSystemRendering,
  prepareUserContent,
  type RecordContext,
  shapeAssistantRecord,
  shapeSystemAttachment,
  shapeUserRecord,
  userTypeFromUserAgent,
} from "./envelope.ts";
import type { AppendResult, ChainHead, MirrorTarget, MirrorWriter } from "./writer.ts";

/** Claude Code sends the first; the others are what other clients and gateways use. */
export const SESSION_HEADERS = [
  "x-claude-code-session-id",
  "x-session-id",
  "x-anthropic-session-id",
] as const;
export const AGENT_HEADER = "x-claude-code-agent-id";
export const UNKNOWN_SESSION = "unknown";

/** What one request carries between hooks, on ctx.meta["transcript-mirror"]. */
export interface RequestState {
  target: MirrorTarget;
  key: string;
  record: RecordContext;
  plan: StagePlan;
  requestMs: number;
  acc: MessageAccumulator;
  /** Written (or given up on): later hooks of the request do nothing. */
  done: boolean;
}

/** What staging and writing use of the extension: its clock, its content options, its writer and dedup store. */
export interface MirrorDeps {
  now: () => number;
  contentOpts: ContentOptions;
  writer(): MirrorWriter;
  dedup(): DedupStore;
}

export function headerValue(
  headers: Record<string, string | string[] | undefined> | undefined,
  name: string,
): string | undefined {
  const v = headers?.[name];
  const s = Array.isArray(v) ? v[0] : v;
  const t = s?.trim();
  return t ? t : undefined;
}

export function resolveSessionId(headers: Record<string, string | string[] | undefined>): string | undefined {
  for (const name of SESSION_HEADERS) {
    const v = headerValue(headers, name);
    if (v !== undefined) return v;
  }
  return undefined;
}

function isMessagesCall(ctx: ProxyContext): boolean {
  if (ctx.method.toUpperCase() !== "POST") return false;
  const path = ctx.url.split("?")[0] ?? "";
  return path === "/v1/messages" || path.endsWith("/v1/messages");
}

/** The request's state, or undefined for a call the mirror does not keep (not a Messages call, no messages). */
export function stageRequest(ctx: ProxyContext, deps: MirrorDeps): RequestState | undefined {
  if (!isMessagesCall(ctx)) return undefined;
  const body = ctx.body;
  if (!isRecord(body) || !Array.isArray(body.messages)) return undefined;
  const sessionId = resolveSessionId(ctx.headers) ?? UNKNOWN_SESSION;
  const agentId = headerValue(ctx.headers, AGENT_HEADER) ?? null;
  const key = dedupKey(sessionId, agentId);
  const requestMs = deps.now();
  return {
    target: { sessionId, agentId },
    key,
    record: prepareRecordContext(recordContext(ctx, body, sessionId, agentId), deps.contentOpts),
    plan: planUserMessages(deps.dedup().get(key, requestMs), userTurnsOf(body.messages)),
    requestMs,
    acc: new MessageAccumulator(),
    done: false,
  };
}

function recordContext(
  ctx: ProxyContext,
  body: Record<string, unknown>,
  sessionId: string,
  agentId: string | null,
): RecordContext {
  const outputConfig = isRecord(body.output_config) ? body.output_config : {};
  return {
    sessionId,
    agentId,
    userType: userTypeFromUserAgent(headerValue(ctx.headers, "user-agent")),
    requestedModel: typeof body.model === "string" ? body.model : null,
    effort: typeof outputConfig.effort === "string" ? outputConfig.effort : null,
  };
}

/** Staged user records + the assistant message (if any) as one append; dedup advances only on success. */
export function flush(
  deps: MirrorDeps,
  ctx: ProxyContext,
  st: RequestState,
  message: AccumulatedMessage | undefined,
): Promise<void> {
  st.done = true;
  const flushMs = deps.now();
  const requestId = prepareRequestId(
    headerValue(ctx.responseHeaders, "request-id") ?? null,
    deps.contentOpts,
  );
  const store = deps.dedup();
  const w = deps.writer();
  const written: Promise<AppendResult> = w.append(st.target, (head) => {
    const plan = currentPlan(st.plan, store.peek(st.key), head);
    const records = buildRecords(st, plan, message, requestId, flushMs, head.lastUuid, deps.contentOpts);
    return { records, onWritten: () => store.commit(st.key, plan, flushMs) };
  });
  return written.then(() => {
    store.maybeSweep(deps.now());
    w.maybeSweep();
  });
}

/** The staged plan, or a new one when it no longer matches what the target holds. */
function currentPlan(staged: StagePlan, entry: DedupEntry | undefined, head: ChainHead): StagePlan {
  // Re-plan when another request of this session wrote since staging, or when the
  // dedup state is gone (restart, eviction, idle sweep) but the target already has
  // records: then what was mirrored is unknown and only the newest message is safe.
  const coldResume = entry === undefined && head.lastUuid !== null;
  if (isPlanStale(staged, entry) || coldResume !== staged.coldResume) {
    return planUserMessages(entry, staged.turns, { coldResume });
  }
  return staged;
}

/** The plan's user records, then the assistant message (if any), each chained to the one before. */
function buildRecords(
  st: RequestState,
  plan: StagePlan,
  message: AccumulatedMessage | undefined,
  requestId: string | null,
  flushMs: number,
  parent: string | null,
  opts: ContentOptions,
): MirrorRecord[] {
  const records = userRecords(st, plan, parent, opts);
  if (message) {
    const prepared = prepareAssistantMessage(message, opts);
    records.push(
      shapeAssistantRecord(st.record, {
        message: prepared,
        requestId,
        timestamp: new Date(flushMs).toISOString(),
        parentUuid: records[records.length - 1]?.uuid ?? parent,
      }),
    );
  }
  return records;
}

/** Each staged user message, followed by the system messages Claude Code sent with it, as attachments. */
function userRecords(
  st: RequestState,
  plan: StagePlan,
  parent: string | null,
  opts: ContentOptions,
): MirrorRecord[] {
  const records: MirrorRecord[] = [];
  const userTs = new Date(st.requestMs).toISOString();
  for (const item of plan.items) {
    const rec = shapeUserRecord(st.record, {
      content: prepareUserContent(item.content, opts),
      ordinal: item.ordinal,
      timestamp: userTs,
      sentAtMs: st.requestMs,
      parentUuid: parent,
    });
    records.push(rec);
    parent = rec.uuid;
    item.system.forEach((content, index) => {
      const att = shapeSystemAttachment(st.record, {
        rendered: prepareSystemRendering(content, opts),
        ordinal: item.ordinal,
        index,
        timestamp: userTs,
        parentUuid: parent,
      });
      records.push(att);
      parent = att.uuid;
    });
  }
  return records;
}
