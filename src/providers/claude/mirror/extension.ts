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
// What is staged and written is request.ts; this file decides when.
//
// Every hook catches everything: the mirror observes copies of the traffic
// and must never be the reason a response breaks.

import type { RedactionRules } from "@tapedeck/redact";
import { errorCode } from "../../../core/base/diagnostics.ts";
import type { ProxyContext, ProxyExtension, StreamEvent } from "../../../core/ports/proxy-extension.ts";
import { messageFromJson } from "./accumulator.ts";
import { DedupStore } from "./dedup.ts";
import { flush, type MirrorDeps, type RequestState, stageRequest } from "./request.ts";
import { loadMirrorSettings, type MirrorSettings } from "./settings.ts";
import { type MirrorIo, type MirrorTarget, MirrorWriter, mirrorDirName } from "./writer.ts";

export const MIRROR_EXTENSION_NAME = "transcript-mirror";
/** Before the archive feed (800): neither depends on the other, and each gets its own copy of the events. */
export const MIRROR_EXTENSION_ORDER = 720;

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

/** What every hook of one extension shares. */
interface Mirror extends MirrorDeps {
  settings: MirrorSettings;
  logFailure(stage: string, error: unknown, target?: MirrorTarget): void;
  idle(): Promise<void>;
}

export function createMirrorExtension(
  settings?: MirrorSettings,
  options: MirrorExtensionOptions = {},
): MirrorExtension {
  const s =
    settings ?? loadMirrorSettings({ warn: (m) => process.stderr.write(`tapedeck mirror: ${m}\n`) }).settings;
  const m = openMirror(s, options);
  const ext: MirrorExtension = {
    name: MIRROR_EXTENSION_NAME,
    order: MIRROR_EXTENSION_ORDER,
    settings: s,
    onRequest: (ctx) => onRequest(m, ctx),
    onStreamEvent: (ctx, event) => onStreamEvent(m, ctx, event),
    onResponse: (ctx, body) => onResponse(m, ctx, body),
    onEnd: (ctx) => onEnd(m, ctx),
    idle: () => m.idle(),
  };
  return ext;
}

function openMirror(s: MirrorSettings, options: MirrorExtensionOptions): Mirror {
  const now = options.now ?? Date.now;
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

  return {
    settings: s,
    now,
    contentOpts: { redact: s.redact, includeThinking: s.includeThinking, rules: options.redactionRules },
    writer: getWriter,
    dedup: getDedup,
    logFailure: (stage, error, target) => logFailure(getWriter, stage, error, target),
    async idle() {
      await writer?.idle();
    },
  };
}

function logFailure(writer: () => MirrorWriter, stage: string, error: unknown, target?: MirrorTarget): void {
  try {
    const w = writer();
    w.events.log({
      action: "error",
      stage,
      code: errorCode(error),
      ...(target ? { session: mirrorDirName(target.sessionId) } : {}),
    });
  } catch {
    // the events log is best-effort like everything else here
  }
}

function stateOf(ctx: ProxyContext): RequestState | undefined {
  const st = ctx.meta[MIRROR_EXTENSION_NAME];
  return st instanceof Object && "acc" in st ? (st as RequestState) : undefined;
}

function onRequest(m: Mirror, ctx: ProxyContext): void {
  if (!m.settings.enabled) return;
  try {
    const st = stageRequest(ctx, m);
    if (st) ctx.meta[MIRROR_EXTENSION_NAME] = st;
  } catch (error) {
    m.logFailure("request", error);
  }
}

function onStreamEvent(m: Mirror, ctx: ProxyContext, event: StreamEvent): Promise<void> | undefined {
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
    if (st.acc.complete) return flush(m, ctx, st, st.acc.snapshot()).catch(() => undefined);
  } catch (error) {
    st.done = true;
    m.logFailure("stream", error, st.target);
  }
}

function onResponse(m: Mirror, ctx: ProxyContext, body: Buffer): Promise<void> | undefined {
  const st = stateOf(ctx);
  if (!st || st.done) return;
  try {
    // An error response writes nothing: the staged records wait for Claude Code's retry.
    if (ctx.status === undefined || ctx.status < 200 || ctx.status >= 300) return;
    // The body is decoded already (observe.ts), whatever content-encoding the headers name.
    const message = messageFromJson(JSON.parse(body.toString("utf8")));
    if (!message) return;
    return flush(m, ctx, st, message).catch(() => undefined);
  } catch (error) {
    st.done = true;
    m.logFailure("response", error, st.target);
  }
}

function onEnd(m: Mirror, ctx: ProxyContext): Promise<void> | undefined {
  const st = stateOf(ctx);
  if (!st || st.done) return;
  try {
    st.done = true;
    if (!m.settings.flushInterrupted) return;
    const cut = st.acc.started && !st.acc.complete;
    if (!cut && ctx.aborted === undefined) return;
    const partial = st.acc.snapshot({ interrupted: true });
    if (!partial && st.plan.items.length === 0) return;
    return flush(m, ctx, st, partial).catch(() => undefined);
  } catch (error) {
    m.logFailure("end", error, st.target);
  }
}
