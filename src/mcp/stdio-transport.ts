// The MCP server's stdio transport, bounded per message. The SDK's own
// (StdioServerTransport) closes itself when its buffer passes 10 MiB: one
// oversized line and `tapedeck mcp` stops serving, and the agent loses its
// tools for the rest of the session. Here a line over the limit is skipped as
// it streams in (never held: only its first and last KiB are kept, to find the
// request id), answered with a JSON-RPC error when it had an id, and the
// server keeps serving the next line. Framing is the SDK's: one JSON message
// per line, a trailing CR dropped.
import type { Readable, Writable } from "node:stream";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/sdk/types.js";

/** The SDK's limit: the tools' messages are a few hundred bytes, so anything near it is not a real call. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
// Enough of an oversized line's ends to hold its "id": the SDK's clients put it last, others first.
const EDGE_BYTES = 1024;
const NEWLINE = 0x0a;

export type LineItem = { line: string } | { oversized: { head: string; tail: string } };

/** Splits a byte stream into lines of at most `maxLineBytes`; longer lines become `oversized` items. */
export class BoundedLineReader {
  readonly #max: number;
  #parts: Buffer[] = [];
  #size = 0;
  /** Inside an oversized line: its head is kept, the rest only as a rolling tail. */
  #skipping = false;
  #head: Buffer = Buffer.alloc(0);
  #tail: Buffer = Buffer.alloc(0);

  constructor(maxLineBytes = MAX_MESSAGE_BYTES) {
    this.#max = maxLineBytes;
  }

  push(chunk: Buffer): LineItem[] {
    const out: LineItem[] = [];
    let from = 0;
    while (from <= chunk.length) {
      const nl = chunk.indexOf(NEWLINE, from);
      const piece = chunk.subarray(from, nl < 0 ? chunk.length : nl);
      this.#take(piece);
      if (nl < 0) break;
      out.push(this.#finishLine());
      from = nl + 1;
    }
    return out;
  }

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.#skipping) {
      this.#keepTail(piece);
      return;
    }
    if (this.#size + piece.length <= this.#max) {
      this.#parts.push(piece);
      this.#size += piece.length;
      return;
    }
    const held = Buffer.concat([...this.#parts, piece.subarray(0, EDGE_BYTES)]);
    this.#head = held.subarray(0, EDGE_BYTES);
    this.#parts = [];
    this.#size = 0;
    this.#skipping = true;
    this.#keepTail(piece);
  }

  #keepTail(piece: Buffer): void {
    this.#tail =
      piece.length >= EDGE_BYTES
        ? Buffer.from(piece.subarray(piece.length - EDGE_BYTES))
        : Buffer.concat([this.#tail, piece]).subarray(-EDGE_BYTES);
  }

  #finishLine(): LineItem {
    if (this.#skipping) {
      const item = { oversized: { head: this.#head.toString("utf8"), tail: this.#tail.toString("utf8") } };
      this.#skipping = false;
      this.#head = Buffer.alloc(0);
      this.#tail = Buffer.alloc(0);
      return item;
    }
    const line = Buffer.concat(this.#parts, this.#size).toString("utf8").replace(/\r$/, "");
    this.#parts = [];
    this.#size = 0;
    return { line };
  }
}

/** The id of a request whose body was too large to read, from the ends that were kept; undefined if none. */
export function requestIdFromEdges(head: string, tail: string): RequestId | undefined {
  // `"id":` then a number or a short string, right after `{` at the start or right before `}` at the end: an
  // "id" key nested in the params is neither.
  const first =
    /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*[,}]/.exec(
      head,
    );
  const last = /[,{]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/.exec(tail);
  const raw = first?.[1] ?? last?.[1];
  if (raw === undefined) return undefined;
  try {
    const id = JSON.parse(raw) as unknown;
    return typeof id === "number" || typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #reader: BoundedLineReader;
  readonly #maxBytes: number;
  #started = false;

  constructor(
    stdin: Readable = process.stdin,
    stdout: Writable = process.stdout,
    maxBytes = MAX_MESSAGE_BYTES,
  ) {
    this.#stdin = stdin;
    this.#stdout = stdout;
    this.#maxBytes = maxBytes;
    this.#reader = new BoundedLineReader(maxBytes);
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error("BoundedStdioTransport already started");
    this.#started = true;
    this.#stdin.on("data", this.#onData);
    this.#stdin.on("error", this.#onError);
  }

  readonly #onData = (chunk: Buffer | string): void => {
    const items = this.#reader.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk);
    for (const item of items) {
      if ("oversized" in item) this.#refuse(item.oversized.head, item.oversized.tail);
      else this.#deliver(item.line);
    }
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  #deliver(line: string): void {
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      // As the SDK's transport: a bad line is reported and skipped.
      this.onerror?.(error as Error);
      return;
    }
    this.onmessage?.(message);
  }

  #refuse(head: string, tail: string): void {
    const id = requestIdFromEdges(head, tail);
    const mib = Math.round(this.#maxBytes / (1024 * 1024));
    this.onerror?.(new Error(`refused a message over ${mib} MiB`));
    // Without an id there is nothing to answer (a notification, or unreadable): the next line is served.
    if (id === undefined) return;
    void this.send({
      jsonrpc: "2.0",
      id,
      error: {
        code: ErrorCode.InvalidRequest,
        message: `message too large: tapedeck reads at most ${mib} MiB`,
      },
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#stdout.write(serializeMessage(message))) resolve();
      else this.#stdout.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    this.#stdin.off("data", this.#onData);
    this.#stdin.off("error", this.#onError);
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause();
    this.onclose?.();
  }
}
