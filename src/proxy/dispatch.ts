// Extension dispatch: the hook calls of each request, in `order`, made after
// the bytes they describe went to the client (observe.ts turns the copy of a
// response into these calls). Nothing here can delay, alter or fail what the
// client receives:
//
// - The server never awaits a hook. A hook's synchronous part runs inline (so a
//   fully synchronous extension sees every call immediately and in `order`);
//   when a hook returns a promise, later hooks of the same extension for the
//   same request queue behind it. That keeps each extension's view of a request
//   strictly sequential (onRequest before onStreamEvent before onEnd) without
//   letting a slow extension hold up the bytes or the other extensions.
// - Every call is isolated: a synchronous throw or a rejection is caught, logged
//   by extension name, hook and error code/name only (messages can carry
//   content), and the extension keeps receiving later calls. One bad event must
//   not blind an extension for the rest of a session.
// - A queue that a slow extension cannot drain is capped per request (in bytes
//   of queued event data); beyond it that extension misses stream events of that
//   request, and that is logged once. onEnd is never dropped.
// - A hook promise that never settles would hold its request (and its body) in
//   memory for good: after `hookTimeoutMs` the queue moves on without it.
// - Only the event types an extension declared (`streamEvents`) reach its
//   onStreamEvent; observe.ts skips the others before they are decoded.
import { errorCode } from "../core/base/diagnostics.ts";
import type { ProxyContext, ProxyExtension, StreamEvent } from "../core/ports/proxy-extension.ts";
import { LazyJson } from "./lazy-json.ts";
import { DEFAULT_TYPE } from "./sse-blocks.ts";

export type ProxyLogLevel = "debug" | "info" | "warn" | "error";

/** A log entry carries identifiers, sizes and timings: never headers, bodies or error messages. */
export interface ProxyLogEntry {
  level: ProxyLogLevel;
  msg: string;
  [field: string]: string | number | boolean | undefined;
}

export type ProxyLog = (entry: ProxyLogEntry) => void;

type HookName = "onRequest" | "onResponseStart" | "onStreamEvent" | "onResponse" | "onEnd";
type AnyHook = (this: ProxyExtension, ctx: ProxyContext, arg?: unknown) => unknown;

export interface PipelineOptions {
  log?: ProxyLog;
  /** Queued stream-event data per extension and request before events are dropped. Default 64 MiB. */
  maxBacklogBytes?: number;
  /** A non-streamed body larger than this is not buffered for onResponse. Default 64 MiB. */
  maxObservedBodyBytes?: number;
  /** How long one async hook call may take before its extension's queue moves on. Default 30 s. */
  hookTimeoutMs?: number;
}

const DEFAULT_MAX_BACKLOG = 64 * 1024 * 1024;
const DEFAULT_MAX_BODY = 64 * 1024 * 1024;
const DEFAULT_HOOK_TIMEOUT_MS = 30_000;
// Per queued event, on top of its data: the closure, the event object, the promise.
const EVENT_OVERHEAD_BYTES = 256;

export const SAFE_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

// One errorCode for the proxy and the recorder (core/base/diagnostics.ts).
export { errorCode };

export function safeLog(log: ProxyLog | undefined, entry: ProxyLogEntry): void {
  if (!log) return;
  try {
    log(entry);
  } catch {
    // A broken logger must not break a request either.
  }
}

/** An extension's name for a log line: a string, bounded, whatever the extension put there. */
function extName(ext: ProxyExtension): string {
  try {
    return String(ext.name).slice(0, 64);
  } catch {
    return "?";
  }
}

function isJsonType(contentType: string | string[] | undefined): boolean {
  const ct = (Array.isArray(contentType) ? contentType[0] : contentType)?.toLowerCase() ?? "";
  const mime = ct.split(";", 1)[0]!.trim();
  return mime === "application/json" || mime.endsWith("+json");
}

/**
 * The per-request context. `body` is parsed on first read: most requests pass
 * through extensions that never look at it, and a long session's request body
 * is megabytes of JSON whose parse would otherwise sit in front of forwarding.
 */
export class RequestContext extends LazyJson implements ProxyContext {
  readonly id: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly rawBody: Buffer;
  status?: number;
  responseHeaders?: Record<string, string | string[] | undefined>;
  meta: Record<string, unknown> = {};
  aborted?: { by: "client" | "upstream"; reason: string };

  constructor(
    id: string,
    method: string,
    url: string,
    headers: Record<string, string | string[] | undefined>,
    rawBody: Buffer,
  ) {
    super();
    this.id = id;
    this.method = method;
    this.url = url;
    this.headers = headers;
    this.rawBody = rawBody;
  }

  protected jsonText(): string | undefined {
    return this.rawBody.length > 0 && isJsonType(this.headers["content-type"])
      ? this.rawBody.toString("utf8")
      : undefined;
  }

  get body(): unknown {
    return this.readJson();
  }

  set body(value: unknown) {
    this.writeJson(value);
  }
}

/**
 * The event types an extension's onStreamEvent declared (`streamEvents`); undefined: all of them.
 * A declaration that is not a list of strings counts as none: the extension then misses nothing.
 */
function declaredEvents(ext: ProxyExtension): ReadonlySet<string> | undefined {
  try {
    const list: unknown = ext.streamEvents;
    if (!Array.isArray(list) || !list.every((n) => typeof n === "string")) return undefined;
    return new Set(list as string[]);
  } catch {
    return undefined;
  }
}

/** The extensions of one proxy, sorted, plus the bookkeeping that lets close() wait for them. */
export class Pipeline {
  readonly extensions: readonly ProxyExtension[];
  /** Some extension wants SSE events: decode and parse streamed responses. */
  readonly observesStream: boolean;
  /** Per extension (same index): the event types its onStreamEvent gets; undefined for all. */
  readonly streamEvents: ReadonlyArray<ReadonlySet<string> | undefined>;
  /** The event types some extension wants; undefined when one wants them all. */
  readonly wantedEvents: ReadonlySet<string> | undefined;
  /** Some extension wants whole non-streamed bodies: buffer a copy. */
  readonly observesBody: boolean;
  readonly active: boolean;
  readonly log: ProxyLog | undefined;
  readonly maxBacklogBytes: number;
  readonly maxObservedBodyBytes: number;
  readonly hookTimeoutMs: number;
  #pending = 0;
  #idleWaiters: Array<() => void> = [];

  constructor(extensions: readonly ProxyExtension[], opts: PipelineOptions = {}) {
    // Array.prototype.sort is stable: equal `order`s keep the caller's order.
    this.extensions = [...extensions].sort((a, b) => a.order - b.order);
    const has = (hook: HookName) => this.extensions.some((e) => typeof e[hook] === "function");
    this.observesStream = has("onStreamEvent");
    this.streamEvents = this.extensions.map(declaredEvents);
    let union: Set<string> | undefined = new Set();
    this.extensions.forEach((ext, i) => {
      if (typeof ext.onStreamEvent !== "function") return;
      const own = this.streamEvents[i];
      if (!own) union = undefined;
      else if (union) for (const n of own) union.add(n);
    });
    this.wantedEvents = union;
    this.observesBody = has("onResponse");
    this.active = this.extensions.length > 0;
    this.log = opts.log;
    this.maxBacklogBytes = opts.maxBacklogBytes ?? DEFAULT_MAX_BACKLOG;
    this.maxObservedBodyBytes = opts.maxObservedBodyBytes ?? DEFAULT_MAX_BODY;
    this.hookTimeoutMs = opts.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  }

  begin(ctx: ProxyContext): RequestRun {
    return new RequestRun(this, ctx);
  }

  /** Resolves once no hook promise of any request is pending. */
  idle(): Promise<void> {
    if (this.#pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** @internal */
  track(p: Promise<void>, settled: () => void): void {
    this.#pending += 1;
    p.then(() => {
      settled();
      this.#pending -= 1;
      if (this.#pending === 0) {
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const w of waiters) w();
      }
    });
  }
}

interface Lane {
  /** The last queued call of this extension for this request; undefined when nothing is pending. */
  tail: Promise<void> | undefined;
  backlogBytes: number;
  overflowed: boolean;
}

/** The hook calls of one request. Each method returns at once; none throws. */
export class RequestRun {
  readonly ctx: ProxyContext;
  readonly #pipeline: Pipeline;
  readonly #lanes: Lane[];
  #ended = false;

  constructor(pipeline: Pipeline, ctx: ProxyContext) {
    this.#pipeline = pipeline;
    this.ctx = ctx;
    this.#lanes = pipeline.extensions.map(() => ({ tail: undefined, backlogBytes: 0, overflowed: false }));
  }

  request(): void {
    this.#all("onRequest", undefined, 0);
  }

  responseStart(): void {
    this.#all("onResponseStart", undefined, 0);
  }

  streamEvent(event: StreamEvent): void {
    if (this.#ended) return;
    const exts = this.#pipeline.extensions;
    const declared = this.#pipeline.streamEvents;
    const name = event.event;
    const weight = event.data.length + EVENT_OVERHEAD_BYTES;
    for (let i = 0; i < exts.length; i += 1) {
      if (typeof exts[i]!.onStreamEvent !== "function") continue;
      // An event without a type (or the default one) reaches everyone: a data-only stream names none.
      const own = declared[i];
      if (own && name !== undefined && name !== DEFAULT_TYPE && !own.has(name)) continue;
      this.#dispatch(i, "onStreamEvent", event, weight);
    }
  }

  response(body: Buffer): void {
    if (!this.#ended) this.#all("onResponse", body, 0);
  }

  /** Exactly once per request; later calls are ignored. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#all("onEnd", undefined, 0);
  }

  #all(hook: HookName, arg: unknown, weight: number): void {
    const exts = this.#pipeline.extensions;
    for (let i = 0; i < exts.length; i += 1) {
      if (typeof exts[i]![hook] === "function") this.#dispatch(i, hook, arg, weight);
    }
  }

  #dispatch(i: number, hook: HookName, arg: unknown, weight: number): void {
    const lane = this.#lanes[i]!;
    if (lane.tail === undefined) {
      const p = this.#invoke(i, hook, arg);
      if (p) this.#setTail(lane, p);
      return;
    }
    if (weight > 0) {
      if (lane.backlogBytes + weight > this.#pipeline.maxBacklogBytes) {
        if (!lane.overflowed) {
          lane.overflowed = true;
          safeLog(this.#pipeline.log, {
            level: "warn",
            msg: "extension_backlog_overflow",
            id: this.ctx.id,
            extension: extName(this.#pipeline.extensions[i]!),
            hook,
          });
        }
        return;
      }
      lane.backlogBytes += weight;
    }
    this.#setTail(
      lane,
      lane.tail.then(() => {
        lane.backlogBytes -= weight;
        return this.#invoke(i, hook, arg);
      }),
    );
  }

  #setTail(lane: Lane, p: Promise<void>): void {
    lane.tail = p;
    this.#pipeline.track(p, () => {
      if (lane.tail === p) lane.tail = undefined;
    });
  }

  /** Calls one hook; answers a promise that never rejects when the hook went async. */
  #invoke(i: number, hook: HookName, arg: unknown): Promise<void> | undefined {
    const ext = this.#pipeline.extensions[i]!;
    try {
      const fn = ext[hook] as AnyHook | undefined;
      if (typeof fn !== "function") return undefined;
      const r = fn.call(ext, this.ctx, arg) as { then?: unknown } | null | undefined;
      if (r != null && typeof r.then === "function")
        return this.#settle(ext, hook, r as PromiseLike<unknown>);
    } catch (err) {
      this.#report(ext, hook, err);
    }
    return undefined;
  }

  /** A promise that resolves when the hook's does, or at the timeout; it never rejects. */
  #settle(ext: ProxyExtension, hook: HookName, r: PromiseLike<unknown>): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#report(ext, hook, { code: "EXTENSION_TIMEOUT" });
        resolve();
      }, this.#pipeline.hookTimeoutMs);
      timer.unref();
      Promise.resolve(r).then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          clearTimeout(timer);
          this.#report(ext, hook, err);
          resolve();
        },
      );
    });
  }

  #report(ext: ProxyExtension, hook: HookName, err: unknown): void {
    safeLog(this.#pipeline.log, {
      level: "warn",
      msg: "extension_error",
      id: this.ctx.id,
      extension: extName(ext),
      hook,
      error: errorCode(err),
    });
  }
}
