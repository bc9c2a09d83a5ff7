// Body observation: from the copy of the response bytes the server hands over
// (after the client got them) to the hook calls of dispatch.ts. Streamed
// responses become onStreamEvent calls, others one onResponse call; bodies are
// decoded from their content-encoding here, for the observers only.
//
// Parsing costs only what the extensions ask for: one that declares its
// `streamEvents` gets those alone, and an event nobody declared is skipped as
// bytes (sse-blocks.ts). Measured on 50 concurrent 4 MB streams with an
// archive-feed-like observer: 2.8-3.0 ms of CPU per MB when every event was
// parsed, 1.5-1.6 with the skip, 0.1-0.2 over the bare proxy once the split
// ran inline (SplitFront) and cut events were no longer joined to be judged.
// What is parsed is parsed on the next turn of the event loop, after the I/O
// of every stream that is ready now.
import zlib from "node:zlib";
import { createParser, type EventSourceParser } from "eventsource-parser";
import type { StreamEvent } from "../core/ports/proxy-extension.ts";
import { errorCode, type Pipeline, type ProxyLog, type RequestRun, SAFE_CODE, safeLog } from "./dispatch.ts";
import { LazyJson } from "./lazy-json.ts";
import { SseSplitter } from "./sse-blocks.ts";
import { Utf8Chunks } from "./utf8-chunks.ts";

// One SSE event of an Anthropic or OpenAI stream is small; this only bounds a malformed stream.
const MAX_SSE_EVENT_CHARS = 32 * 1024 * 1024;

/** One SSE event; `json` is parsed on first read and shared by all extensions. */
class SseEvent extends LazyJson implements StreamEvent {
  readonly event: string | undefined;
  readonly data: string;

  constructor(event: string | undefined, data: string) {
    super();
    this.event = event;
    this.data = data;
  }

  protected jsonText(): string {
    return this.data;
  }

  get json(): unknown {
    return this.readJson();
  }

  set json(value: unknown) {
    this.writeJson(value);
  }
}

/** Receives a copy of each response chunk after the client got it. */
export interface BodyObserver {
  write(chunk: Buffer): void;
  /** `complete` is false when the response was cut short; `done` runs once everything was dispatched. */
  end(complete: boolean, done: () => void): void;
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string {
  const v = headers[name];
  return (Array.isArray(v) ? v.join(",") : (v ?? "")).trim().toLowerCase();
}

export function isEventStream(headers: Record<string, string | string[] | undefined>): boolean {
  return headerValue(headers, "content-type").startsWith("text/event-stream");
}

type Decoder = NodeJS.ReadWriteStream & { destroy(): void };
// zstd (which Claude and Codex both accept) is in zlib only from Node 22.15 on.
const zstd = (zlib as unknown as { createZstdDecompress?: () => Decoder }).createZstdDecompress;

/** A streaming decoder for `content-encoding`; null for identity; "unsupported" otherwise. */
function streamDecoder(encoding: string): Decoder | null | "unsupported" {
  switch (encoding) {
    case "":
    case "identity":
      return null;
    case "gzip":
    case "x-gzip":
      return zlib.createGunzip();
    case "deflate":
      return zlib.createInflate();
    case "br":
      return zlib.createBrotliDecompress();
    case "zstd":
      return zstd ? zstd() : "unsupported";
    default:
      return "unsupported";
  }
}

function decodeWhole(encoding: string, buf: Buffer, cb: (err: Error | null, out?: Buffer) => void): void {
  const d = streamDecoder(encoding);
  if (d === null) {
    cb(null, buf);
    return;
  }
  if (d === "unsupported") {
    cb(Object.assign(new Error("unsupported content-encoding"), { code: "ERR_UNSUPPORTED_ENCODING" }));
    return;
  }
  const parts: Buffer[] = [];
  let finished = false;
  const finish = (err: Error | null) => {
    if (finished) return;
    finished = true;
    cb(err, err ? undefined : Buffer.concat(parts));
  };
  d.on("data", (c: Buffer) => parts.push(c));
  d.once("error", finish);
  d.once("end", () => finish(null));
  d.end(buf);
}

/**
 * Decodes a copy of an event stream (gunzipping when needed) and dispatches each event.
 * When every extension declared the event types it wants, the others are skipped
 * as bytes (sse-blocks.ts) before any decoding.
 */
class SseObserver implements BodyObserver {
  readonly #run: RequestRun;
  readonly #log: ProxyLog | undefined;
  readonly #text = new Utf8Chunks();
  readonly #parser: EventSourceParser;
  readonly #decoder: Decoder | null;
  readonly #splitter: SseSplitter | undefined;
  /** The decoder emitted its last event ('end' or 'error'). */
  #decoderClosed = false;
  #broken = false;
  #done: (() => void) | undefined;
  #finished = false;

  constructor(
    run: RequestRun,
    decoder: Decoder | null,
    wanted: ReadonlySet<string> | undefined,
    log?: ProxyLog,
  ) {
    this.#run = run;
    this.#log = log;
    this.#parser = createParser({
      maxBufferSize: MAX_SSE_EVENT_CHARS,
      onEvent: (m) => run.streamEvent(new SseEvent(m.event, m.data)),
      onError: (err) => {
        if (err.type === "max-buffer-size-exceeded") this.#fail("sse_event_too_large");
      },
    });
    if (wanted) {
      const parse = (bytes: Buffer) => this.#parse(bytes);
      this.#splitter = new SseSplitter(wanted, { event: parse, raw: parse }, MAX_SSE_EVENT_CHARS);
    }
    this.#decoder = decoder;
    if (decoder) {
      decoder.on("data", (c: Buffer) => this.#feed(c));
      decoder.once("error", (err) => {
        this.#decoderClosed = true;
        // After end() this is a truncated stream's "unexpected end of file": expected on an abort.
        if (this.#done) this.#finish();
        else this.#fail(errorCode(err));
      });
      decoder.once("end", () => {
        this.#decoderClosed = true;
        if (this.#done) this.#finish();
      });
    }
  }

  write(chunk: Buffer): void {
    if (this.#broken) return;
    if (this.#decoder) this.#decoder.write(chunk);
    else this.#feed(chunk);
  }

  end(_complete: boolean, done: () => void): void {
    if (this.#done) return;
    this.#done = done;
    // Let the decoder emit what it still holds; its 'end' (or 'error') finishes.
    if (this.#decoder && !this.#decoderClosed) this.#decoder.end();
    else this.#finish();
  }

  #feed(bytes: Buffer): void {
    if (this.#broken) return;
    try {
      if (this.#splitter) this.#splitter.write(bytes);
      else this.#parse(bytes);
    } catch (err) {
      this.#fail(errorCode(err));
    }
  }

  #parse(bytes: Buffer): void {
    if (this.#broken) return;
    this.#parser.feed(this.#text.decode(bytes));
  }

  #fail(reason: string): void {
    if (this.#broken) return;
    this.#broken = true;
    safeLog(this.#log, { level: "warn", msg: "observer_stopped", id: this.#run.ctx.id, reason });
  }

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#feed(Buffer.alloc(0));
    this.#decoder?.destroy();
    this.#done!();
  }
}

// Observer work waiting for the next turn of the event loop, of every request:
// one setImmediate per turn however many streams are flowing.
const deferred: Array<() => void> = [];
let deferredScheduled = false;

function runDeferred(): void {
  deferredScheduled = false;
  // Work queued while this runs waits for the next turn, behind that turn's I/O.
  const batch = deferred.splice(0, deferred.length);
  for (const work of batch) {
    try {
      work();
    } catch {
      // Each observer catches its own failures; this only keeps one from starving the others.
    }
  }
}

/**
 * Splits an identity-encoded event stream as it arrives, right after the
 * client's write of each chunk, and hands only the wanted events on (deferred,
 * to be decoded and parsed). Deferring every chunk instead kept each
 * stream's socket reads alive until the next turn: measured on 50 concurrent
 * 4 MB streams with the archive-feed-like observer, the split inline took the
 * observer's CPU from 0.25-0.6 ms per MB over the bare proxy to 0.08-0.18 (the
 * scan itself is a memchr per line, a few microseconds per 16 KiB chunk).
 */
class SplitFront implements BodyObserver {
  readonly #splitter: SseSplitter;
  readonly #next: BodyObserver;
  readonly #onFail: (reason: string) => void;
  #broken = false;

  constructor(next: BodyObserver, wanted: ReadonlySet<string>, onFail: (reason: string) => void) {
    this.#next = next;
    this.#onFail = onFail;
    // The event's bytes may be a view into the socket read: the next turn needs only these.
    const pass = (bytes: Buffer) => next.write(bytes);
    this.#splitter = new SseSplitter(wanted, { event: pass, raw: pass }, MAX_SSE_EVENT_CHARS);
  }

  write(chunk: Buffer): void {
    if (this.#broken) return;
    try {
      this.#splitter.write(chunk);
    } catch (err) {
      this.#broken = true;
      this.#onFail(errorCode(err));
    }
  }

  end(complete: boolean, done: () => void): void {
    this.#next.end(complete, done);
  }
}

/**
 * Hands its observer the chunks on the next turn of the event loop, after the
 * I/O that is ready now: the client's writes of every stream go out before any
 * stream's copy is decoded and parsed. The chunks are the Buffers the client
 * socket got (undici slices them from a fresh socket read); nobody writes into them.
 */
class DeferredObserver implements BodyObserver {
  readonly #inner: BodyObserver;
  #queue: Buffer[] = [];
  #queued = false;
  #end: { complete: boolean; done: () => void } | undefined;

  constructor(inner: BodyObserver) {
    this.#inner = inner;
  }

  write(chunk: Buffer): void {
    if (this.#end) return;
    this.#queue.push(chunk);
    this.#schedule();
  }

  end(complete: boolean, done: () => void): void {
    if (this.#end) return;
    this.#end = { complete, done };
    this.#schedule();
  }

  #schedule(): void {
    if (this.#queued) return;
    this.#queued = true;
    deferred.push(this.#drain);
    if (!deferredScheduled) {
      deferredScheduled = true;
      setImmediate(runDeferred);
    }
  }

  readonly #drain = (): void => {
    this.#queued = false;
    const queue = this.#queue;
    this.#queue = [];
    for (const chunk of queue) this.#inner.write(chunk);
    const end = this.#end;
    if (end) this.#inner.end(end.complete, end.done);
  };
}

/** Buffers a copy of a non-streamed body and hands the decoded whole to onResponse. */
class BodyCollector implements BodyObserver {
  readonly #run: RequestRun;
  readonly #encoding: string;
  readonly #max: number;
  readonly #log: ProxyLog | undefined;
  #chunks: Buffer[] = [];
  #size = 0;
  #overflow = false;

  constructor(run: RequestRun, encoding: string, max: number, log?: ProxyLog) {
    this.#run = run;
    this.#encoding = encoding;
    this.#max = max;
    this.#log = log;
  }

  write(chunk: Buffer): void {
    if (this.#overflow) return;
    this.#size += chunk.length;
    if (this.#size > this.#max) {
      this.#overflow = true;
      this.#chunks = [];
      safeLog(this.#log, { level: "warn", msg: "observer_body_too_large", id: this.#run.ctx.id });
      return;
    }
    // The chunk is the same Buffer the client socket got; nobody writes into it afterwards.
    this.#chunks.push(chunk);
  }

  end(complete: boolean, done: () => void): void {
    // A cut-short body is not "the whole body": onResponse is for complete responses only.
    if (!complete || this.#overflow) {
      this.#chunks = [];
      done();
      return;
    }
    const raw = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#size);
    this.#chunks = [];
    decodeWhole(this.#encoding, raw, (err, out) => {
      if (err || !out) {
        safeLog(this.#log, {
          level: "warn",
          msg: "observer_decode_failed",
          id: this.#run.ctx.id,
          reason: errorCode(err),
        });
      } else {
        this.#run.response(out);
      }
      done();
    });
  }
}

/**
 * The observer for one response, or undefined when no extension wants its body.
 * Streamed (text/event-stream) responses become onStreamEvent calls; others one onResponse call.
 * Bodies are decoded from their content-encoding for the observers only.
 */
export function observeResponse(
  run: RequestRun,
  pipeline: Pipeline,
  headers: Record<string, string | string[] | undefined>,
): BodyObserver | undefined {
  const encoding = headerValue(headers, "content-encoding");
  if (isEventStream(headers)) {
    if (!pipeline.observesStream) return undefined;
    const decoder = streamDecoder(encoding);
    if (decoder === "unsupported") {
      safeLog(pipeline.log, {
        level: "warn",
        msg: "observer_unsupported_encoding",
        id: run.ctx.id,
        encoding: SAFE_CODE.test(encoding) ? encoding : "other",
      });
      return undefined;
    }
    const wanted = pipeline.wantedEvents;
    if (decoder === null && wanted) {
      const parse = new SseObserver(run, null, undefined, pipeline.log);
      return new SplitFront(new DeferredObserver(parse), wanted, (reason) =>
        safeLog(pipeline.log, { level: "warn", msg: "observer_stopped", id: run.ctx.id, reason }),
      );
    }
    // Decoding (gzip) or parsing every event (the mirror) is work for the next turn.
    return new DeferredObserver(new SseObserver(run, decoder, wanted, pipeline.log));
  }
  if (!pipeline.observesBody) return undefined;
  return new BodyCollector(run, encoding, pipeline.maxObservedBodyBytes, pipeline.log);
}
