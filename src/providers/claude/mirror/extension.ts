// The transcript mirror: a proxy extension that keeps its own copy of every
// Claude Code conversation passing through, in Claude Code's transcript
// format, so that a transcript Claude Code loses or rewrites (CC#66734,
// CC#66486) can be restored. Off by default (TAPEDECK_MIRROR=on).
//
// Per request: onRequest stages the user messages not yet mirrored;
// onStreamEvent accumulates the streamed assistant message and, at
// message_stop, writes staged user records + the assistant record in one
// append; onResponse does the same for a non-streamed JSON response; onEnd
// writes what an interrupted stream had produced. The accumulator lives on
// ctx.meta, so an abandoned request frees its state with the request.
//
// Every hook catches everything: the mirror observes copies of the traffic
// and must never be the reason a response breaks.
import { errorCode } from "../../../core/diagnostics.ts";
import type { ProxyContext, ProxyExtension, StreamEvent } from "../../../core/proxy-extension.ts";
import type { RedactionRules } from "../../../core/redact.ts";
import { isRecord } from "../../shared.ts";
import { type AccumulatedMessage, MessageAccumulator, messageFromJson } from "./accumulator.ts";
import { DedupStore, dedupKey, isPlanStale, planUserMessages, type StagePlan, userTurnsOf } from "./dedup.ts";
import {
  type MirrorRecord,
  prepareAssistantContent,
  prepareSystemRendering,
  prepareUserContent,
  type RecordContext,
  shapeAssistantRecord,
  shapeSystemAttachment,
  shapeUserRecord,
  userTypeFromUserAgent,
} from "./envelope.ts";
import { loadMirrorSettings, type MirrorSettings } from "./settings.ts";
import {
  type AppendResult,
  type MirrorIo,
  type MirrorTarget,
  MirrorWriter,
  mirrorDirName,
} from "./writer.ts";

export const MIRROR_EXTENSION_NAME = "transcript-mirror";
/** Before the archive feed (800): neither depends on the other, and each gets its own copy of the events. */
export const MIRROR_EXTENSION_ORDER = 720;

/** Claude Code sends the first; the others are what other clients and gateways use. */
export const SESSION_HEADERS = [
  "x-claude-code-session-id",
  "x-session-id",
  "x-anthropic-session-id",
] as const;
export const AGENT_HEADER = "x-claude-code-agent-id";
export const UNKNOWN_SESSION = "unknown";

export interface MirrorExtension extends ProxyExtension {
  readonly settings: MirrorSettings;
  /** Resolves once every pending write has finished (tests, shutdown). */
  idle(): Promise<void>;
}

export interface MirrorExtensionOptions {
  /** Replaces the file append (tests simulate a failing disk with it). */
  io?: Partial<MirrorIo>;
  now?: () => number;
  redactionRules?: RedactionRules;
}

/** What one request carries between hooks, on ctx.meta["transcript-mirror"]. */
interface RequestState {
  target: MirrorTarget;
  key: string;
  record: RecordContext;
  plan: StagePlan;
  requestMs: number;
  acc: MessageAccumulator;
  /** Written (or given up on): later hooks of the request do nothing. */
  done: boolean;
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

export function createMirrorExtension(
  settings?: MirrorSettings,
  options: MirrorExtensionOptions = {},
): MirrorExtension {
  const s =
    settings ?? loadMirrorSettings({ warn: (m) => process.stderr.write(`tapedeck mirror: ${m}\n`) }).settings;
  const now = options.now ?? Date.now;
  const contentOpts = { redact: s.redact, includeThinking: s.includeThinking, rules: options.redactionRules };
  let writer: MirrorWriter | undefined;
  let dedup: DedupStore | undefined;

  // Built on first use, so a disabled mirror never touches the disk.
  const getWriter = (): MirrorWriter => {
    writer ??= new MirrorWriter({
      root: s.dir,
      maxBytes: s.maxBytes,
      retentionDays: s.retentionDays,
      maxTargets: s.maxSessions,
      now,
      ...(options.io ? { io: options.io } : {}),
    });
    return writer;
  };
  const getDedup = (): DedupStore => {
    dedup ??= new DedupStore(s.maxSessions, s.retentionDays * 86_400_000);
    return dedup;
  };

  const logFailure = (stage: string, error: unknown, target?: MirrorTarget): void => {
    try {
      const w = getWriter();
      w.events.log({
        action: "error",
        stage,
        code: errorCode(error),
        ...(target ? { session: mirrorDirName(target.sessionId) } : {}),
      });
    } catch {
      // the events log is best-effort like everything else here
    }
  };

  const stateOf = (ctx: ProxyContext): RequestState | undefined => {
    const st = ctx.meta[MIRROR_EXTENSION_NAME];
    return st instanceof Object && "acc" in st ? (st as RequestState) : undefined;
  };

  function buildRecords(
    st: RequestState,
    plan: StagePlan,
    message: AccumulatedMessage | undefined,
    requestId: string | null,
    flushMs: number,
    parent: string | null,
  ): MirrorRecord[] {
    const records: MirrorRecord[] = [];
    const userTs = new Date(st.requestMs).toISOString();
    for (const item of plan.items) {
      const rec = shapeUserRecord(st.record, {
        content: prepareUserContent(item.content, contentOpts),
        ordinal: item.ordinal,
        timestamp: userTs,
        sentAtMs: st.requestMs,
        parentUuid: parent,
      });
      records.push(rec);
      parent = rec.uuid;
      item.system.forEach((content, index) => {
        const att = shapeSystemAttachment(st.record, {
          rendered: prepareSystemRendering(content, contentOpts),
          ordinal: item.ordinal,
          index,
          timestamp: userTs,
          parentUuid: parent,
        });
        records.push(att);
        parent = att.uuid;
      });
    }
    if (message) {
      const prepared = { ...message, content: prepareAssistantContent(message.content, contentOpts) };
      records.push(
        shapeAssistantRecord(st.record, {
          message: prepared,
          requestId,
          timestamp: new Date(flushMs).toISOString(),
          parentUuid: parent,
        }),
      );
    }
    return records;
  }

  /** Staged user records + the assistant message (if any) as one append; dedup advances only on success. */
  function flush(
    ctx: ProxyContext,
    st: RequestState,
    message: AccumulatedMessage | undefined,
  ): Promise<void> {
    st.done = true;
    const flushMs = now();
    const requestId = headerValue(ctx.responseHeaders, "request-id") ?? null;
    const store = getDedup();
    const w = getWriter();
    const written: Promise<AppendResult> = w.append(st.target, (head) => {
      // Re-plan when another request of this session wrote since staging, or when the
      // dedup state is gone (restart, eviction, idle sweep) but the target already has
      // records: then what was mirrored is unknown and only the newest message is safe.
      const entry = store.peek(st.key);
      const coldResume = entry === undefined && head.lastUuid !== null;
      let plan = st.plan;
      if (isPlanStale(plan, entry) || coldResume !== plan.coldResume) {
        plan = planUserMessages(entry, plan.turns, { coldResume });
      }
      const records = buildRecords(st, plan, message, requestId, flushMs, head.lastUuid);
      return { records, onWritten: () => store.commit(st.key, plan, flushMs) };
    });
    return written.then(() => {
      store.maybeSweep(now());
      w.maybeSweep();
    });
  }

  const ext: MirrorExtension = {
    name: MIRROR_EXTENSION_NAME,
    order: MIRROR_EXTENSION_ORDER,
    settings: s,

    onRequest(ctx) {
      if (!s.enabled) return;
      try {
        if (!isMessagesCall(ctx)) return;
        const body = ctx.body;
        if (!isRecord(body) || !Array.isArray(body.messages)) return;
        const sessionId = resolveSessionId(ctx.headers) ?? UNKNOWN_SESSION;
        const agentId = headerValue(ctx.headers, AGENT_HEADER) ?? null;
        const key = dedupKey(sessionId, agentId);
        const requestMs = now();
        const outputConfig = isRecord(body.output_config) ? body.output_config : {};
        const st: RequestState = {
          target: { sessionId, agentId },
          key,
          record: {
            sessionId,
            agentId,
            userType: userTypeFromUserAgent(headerValue(ctx.headers, "user-agent")),
            requestedModel: typeof body.model === "string" ? body.model : null,
            effort: typeof outputConfig.effort === "string" ? outputConfig.effort : null,
          },
          plan: planUserMessages(getDedup().get(key, requestMs), userTurnsOf(body.messages)),
          requestMs,
          acc: new MessageAccumulator(),
          done: false,
        };
        ctx.meta[MIRROR_EXTENSION_NAME] = st;
      } catch (error) {
        logFailure("request", error);
      }
    },

    onStreamEvent(ctx: ProxyContext, event: StreamEvent) {
      const st = stateOf(ctx);
      if (!st || st.done) return;
      try {
        let data = event.json;
        if (data === undefined) {
          try {
            data = JSON.parse(event.data);
          } catch {
            return;
          }
        }
        st.acc.apply(data);
        if (st.acc.complete) return flush(ctx, st, st.acc.snapshot()).catch(() => undefined);
      } catch (error) {
        st.done = true;
        logFailure("stream", error, st.target);
      }
    },

    onResponse(ctx: ProxyContext, body: Buffer) {
      const st = stateOf(ctx);
      if (!st || st.done) return;
      try {
        // An error response writes nothing: the staged records wait for Claude Code's retry.
        if (ctx.status === undefined || ctx.status < 200 || ctx.status >= 300) return;
        // The body is decoded already (observe.ts), whatever content-encoding the headers name.
        const message = messageFromJson(JSON.parse(body.toString("utf8")));
        if (!message) return;
        return flush(ctx, st, message).catch(() => undefined);
      } catch (error) {
        st.done = true;
        logFailure("response", error, st.target);
      }
    },

    onEnd(ctx: ProxyContext) {
      const st = stateOf(ctx);
      if (!st || st.done) return;
      try {
        st.done = true;
        if (!s.flushInterrupted) return;
        const cut = st.acc.started && !st.acc.complete;
        if (!cut && ctx.aborted === undefined) return;
        const partial = st.acc.snapshot({ interrupted: true });
        if (!partial && st.plan.items.length === 0) return;
        return flush(ctx, st, partial).catch(() => undefined);
      } catch (error) {
        logFailure("end", error, st.target);
      }
    },

    async idle() {
      await writer?.idle();
    },
  };
  return ext;
}
