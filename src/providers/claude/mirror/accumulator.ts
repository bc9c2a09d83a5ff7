// Rebuilds one Anthropic Messages API message from its SSE events, so that
// the mirror can write the same object the non-streaming API would return.
// It keeps whatever the stream carries (unknown block and delta types too):
// a backup that silently drops a new block type would be worse than one that
// stores it unparsed.
import { isRecord, type Json, type JsonObject, ownValue, setOwn } from "../../../core/base/json.ts";
import { ASSISTANT_MESSAGE_KEYS } from "../transcript-keys.ts";

export interface AccumulatedMessage {
  id: string | null;
  type: "message";
  role: "assistant";
  model: string | null;
  content: JsonObject[];
  stop_reason: string | null;
  stop_sequence: string | null;
  stop_details: Json;
  usage: JsonObject;
  /** Any other top-level field message_start carried (the API grows). */
  extra: JsonObject;
}

// Parsed JSON: an object there holds only JSON values.
const isJsonObject = isRecord as (v: unknown) => v is JsonObject;

/**
 * A copy of parsed JSON whose objects and arrays are new and whose strings are
 * shared (they are immutable). structuredClone copied every string too: for
 * a long text block, a rope of thousands of deltas, that was a tenth of the
 * mirror's time per MB (profiled, 4 MB messages).
 */
function clone<T>(v: T): T {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map(clone) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setOwn(out, k, clone((v as Record<string, unknown>)[k]));
  return out as T;
}

/** Keys the accumulator owns (the assistant message's, as the envelope writes them); the rest goes to `extra`. */
const OWN_KEYS: ReadonlySet<string> = new Set(ASSISTANT_MESSAGE_KEYS);

// The stream's keys are the peer's: every merge below reads and writes own entries only (core/base/json.ts), so
// a delta's `__proto__` is a field, not a way into Object.prototype, and `constructor` one like any other.

/**
 * Usage in message_delta is cumulative (output_tokens is the running total)
 * and may repeat input-side fields; a null there means "not reported in this
 * event", not "zero", so it never overwrites a value from message_start.
 */
export function mergeUsage(into: JsonObject, delta: unknown): void {
  if (!isJsonObject(delta)) return;
  for (const [k, v] of Object.entries(delta)) {
    if (v === null || v === undefined) {
      if (!Object.hasOwn(into, k)) setOwn(into, k, null);
      continue;
    }
    const cur = ownValue(into, k);
    if (isJsonObject(v) && isJsonObject(cur)) mergeUsage(cur, v);
    else setOwn(into, k, clone(v));
  }
}

export class MessageAccumulator {
  private message: AccumulatedMessage | undefined;
  private readonly blocks = new Map<number, JsonObject>();
  /** Raw `input_json_delta` text per block index, parsed at content_block_stop. */
  private readonly partialJson = new Map<number, string>();
  private readonly stoppedBlocks = new Set<number>();
  private stopped = false;
  private errored = false;

  /** message_start arrived. */
  get started(): boolean {
    return this.message !== undefined;
  }

  /** message_stop arrived: the message is complete. */
  get complete(): boolean {
    return this.stopped;
  }

  /** The stream carried an `error` event. */
  get sawError(): boolean {
    return this.errored;
  }

  /** Feeds one parsed SSE data object. Unknown event types are ignored. */
  apply(data: unknown): void {
    if (!isJsonObject(data)) return;
    switch (data.type) {
      case "message_start":
        this.onMessageStart(data.message);
        break;
      case "content_block_start":
        this.onBlockStart(data.index, data.content_block);
        break;
      case "content_block_delta":
        this.onBlockDelta(data.index, data.delta);
        break;
      case "content_block_stop":
        this.onBlockStop(data.index);
        break;
      case "message_delta":
        this.onMessageDelta(data.delta, data.usage);
        break;
      case "message_stop":
        this.stopped = true;
        break;
      case "error":
        this.errored = true;
        break;
      default:
        break;
    }
  }

  private onMessageStart(raw: unknown): void {
    const m = isJsonObject(raw) ? raw : {};
    const extra: JsonObject = {};
    for (const [k, v] of Object.entries(m)) if (!OWN_KEYS.has(k)) setOwn(extra, k, clone(v));
    this.message = {
      id: typeof m.id === "string" ? m.id : null,
      type: "message",
      role: "assistant",
      model: typeof m.model === "string" ? m.model : null,
      content: [],
      stop_reason: typeof m.stop_reason === "string" ? m.stop_reason : null,
      stop_sequence: typeof m.stop_sequence === "string" ? m.stop_sequence : null,
      stop_details: m.stop_details === undefined ? null : clone(m.stop_details),
      usage: isJsonObject(m.usage) ? clone(m.usage) : {},
      extra,
    };
    // message_start may already carry content (it does not today); keep it as the first blocks.
    if (Array.isArray(m.content)) {
      m.content.forEach((b, i) => {
        if (isJsonObject(b)) {
          this.blocks.set(i, clone(b));
          this.stoppedBlocks.add(i);
        }
      });
    }
  }

  private onBlockStart(index: unknown, block: unknown): void {
    if (typeof index !== "number" || !isJsonObject(block)) return;
    this.blocks.set(index, clone(block));
    this.stoppedBlocks.delete(index);
  }

  private onBlockDelta(index: unknown, delta: unknown): void {
    if (typeof index !== "number" || !isJsonObject(delta)) return;
    let block = this.blocks.get(index);
    if (!block) {
      // A delta without its start (a dropped event): keep the content rather than lose it.
      block = { type: guessTypeFromDelta(delta) };
      this.blocks.set(index, block);
    }
    switch (delta.type) {
      case "text_delta":
        block.text = str(block.text) + str(delta.text);
        break;
      case "thinking_delta":
        block.thinking = str(block.thinking) + str(delta.thinking);
        break;
      case "signature_delta":
        block.signature = str(block.signature) + str(delta.signature);
        break;
      case "input_json_delta":
        this.partialJson.set(index, (this.partialJson.get(index) ?? "") + str(delta.partial_json));
        break;
      case "citations_delta": {
        const list = Array.isArray(block.citations) ? block.citations : [];
        if (delta.citation !== undefined) list.push(clone(delta.citation));
        block.citations = list;
        break;
      }
      default:
        applyGenericDelta(block, delta);
        break;
    }
  }

  private onBlockStop(index: unknown): void {
    if (typeof index !== "number") return;
    this.finishJson(index);
    this.stoppedBlocks.add(index);
  }

  /**
   * tool_use, server_tool_use and mcp_tool_use all stream `input` as JSON
   * text. A text that does not parse (a cut-off stream) is kept as the raw
   * string: the bytes are evidence even when they are not an object.
   */
  private finishJson(index: number): void {
    const raw = this.partialJson.get(index);
    const block = this.blocks.get(index);
    if (raw === undefined || !block) return;
    this.partialJson.delete(index);
    if (raw === "") return;
    try {
      block.input = JSON.parse(raw) as Json;
    } catch {
      block.input = raw;
    }
  }

  private onMessageDelta(delta: unknown, usage: unknown): void {
    if (!this.message) return;
    if (isJsonObject(delta)) {
      if ("stop_reason" in delta) this.message.stop_reason = strOrNull(delta.stop_reason);
      if ("stop_sequence" in delta) this.message.stop_sequence = strOrNull(delta.stop_sequence);
      if ("stop_details" in delta) this.message.stop_details = clone(delta.stop_details ?? null);
    }
    mergeUsage(this.message.usage, usage);
  }

  /**
   * The message as accumulated so far. With `interrupted`, unfinished
   * tool inputs are settled from their partial JSON and the stop reason
   * becomes "interrupted" (the API has no such value; it marks the cut).
   */
  snapshot(opts: { interrupted?: boolean } = {}): AccumulatedMessage | undefined {
    if (!this.message) return undefined;
    if (opts.interrupted) for (const index of [...this.partialJson.keys()]) this.finishJson(index);
    const content = [...this.blocks.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => clone(b));
    const msg: AccumulatedMessage = { ...clone(this.message), content };
    if (opts.interrupted) {
      msg.stop_reason = "interrupted";
      msg.stop_sequence = null;
    }
    return msg;
  }
}

/** A complete non-streaming response body in the accumulator's shape; undefined when it is not a message. */
export function messageFromJson(body: unknown): AccumulatedMessage | undefined {
  if (!isJsonObject(body) || body.type !== "message") return undefined;
  const acc = new MessageAccumulator();
  acc.apply({ type: "message_start", message: { ...body, content: [] } });
  const blocks = Array.isArray(body.content) ? body.content : [];
  blocks.forEach((block, index) => {
    acc.apply({ type: "content_block_start", index, content_block: block });
  });
  return acc.snapshot();
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function strOrNull(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

function guessTypeFromDelta(delta: JsonObject): string {
  switch (delta.type) {
    case "text_delta":
    case "citations_delta":
      return "text";
    case "thinking_delta":
    case "signature_delta":
      return "thinking";
    case "input_json_delta":
      return "tool_use";
    default:
      return "unknown";
  }
}

/** An unknown delta type: append its string fields, set the others. */
function applyGenericDelta(block: JsonObject, delta: JsonObject): void {
  for (const [k, v] of Object.entries(delta)) {
    if (k === "type") continue;
    const cur = ownValue(block, k);
    setOwn(block, k, typeof v === "string" && typeof cur === "string" ? cur + v : clone(v));
  }
}
