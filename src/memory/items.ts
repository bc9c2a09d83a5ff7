// Recorded events → small typed memory items: a prompt, an assistant answer, a tool call with its result, a
// compaction summary. Deterministic (no model, no network): the same events give the same items, ids and
// titles. Every item is built from an already-redacted archive line and redacted AGAIN with the project's
// current policy, because the policy may have grown rules since the session was recorded; text tapedeck
// itself injected (the retrieval marker) is removed first, so memory never feeds on its own echo.
import { createHash } from "node:crypto";
import { type RedactionRules, redactValue } from "../core/redact.ts";
import {
  boundBody,
  cutUtf8,
  MAX_BODY_BYTES,
  MAX_TITLE_CHARS,
  MEMORY_SCHEMA_VERSION,
  type MemoryItem,
  type MemoryKind,
  type MemorySource,
} from "./item-shape.ts";
import { stripInjected } from "./marker.ts";
import { ToolPairer, type ToolRole } from "./tool-pairs.ts";

export * from "./item-shape.ts";

/** The event kinds promotion reads; the rest (usage, session boundaries, provider events) hold no material. */
export const PROMOTABLE_EVENT_KINDS = [
  "user_prompt",
  "assistant_message",
  "tool_call",
  "tool_result",
  "tool_error",
  "compaction",
] as const;

/** An envelope as read from events.jsonl: only what promotion relies on is checked. */
export interface SourceEvent {
  schema_version: number;
  sequence: number;
  event_id: string;
  kind: string;
  provider: string;
  session_id: string;
  turn_id?: string;
  agent_id?: string;
  payload: Record<string, unknown>;
}

export function asSourceEvent(value: unknown): SourceEvent | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const ok =
    typeof v.schema_version === "number" &&
    Number.isSafeInteger(v.sequence) &&
    typeof v.event_id === "string" &&
    typeof v.kind === "string" &&
    typeof v.provider === "string" &&
    typeof v.session_id === "string" &&
    v.payload !== null &&
    typeof v.payload === "object" &&
    !Array.isArray(v.payload);
  if (!ok) return undefined;
  if (v.turn_id !== undefined && typeof v.turn_id !== "string") return undefined;
  if (v.agent_id !== undefined && typeof v.agent_id !== "string") return undefined;
  return v as unknown as SourceEvent;
}

export interface ItemOptions {
  /** The project's redaction rules (`.tapedeck/redaction.json`), on top of the built-in ones. */
  rules?: RedactionRules;
  /** Envelope paths to drop before anything is read from an event: `payload.tool_response`, `payload.a.b`. */
  excludeFields?: readonly string[];
  /** Prefixed to every derived title. */
  title?: string;
  archive: { sha256: string; bytes: number };
  createdAt: string;
}

/** One part of an item, already stripped, redacted and cut: what an item body is assembled from. */
export interface Part {
  event: SourceEvent;
  /** The tool and its input (a result repeats its call's input: the item shows it once). */
  head: string;
  /** What came back: the output or the error; empty for the call. */
  text: string;
  /** The tool name and a one-line summary of the input: the item's title. */
  label: string;
}

/** An item and the events it was built from. */
export interface Built {
  item: MemoryItem;
  events: SourceEvent[];
}

/**
 * Feeds events in archive order, hands back the items they complete. Tool calls wait (bounded) for their
 * result; everything else becomes an item at once.
 */
export class ItemBuilder {
  private readonly pairer = new ToolPairer();
  private readonly exclude: string[][];

  constructor(private readonly opts: ItemOptions) {
    this.exclude = (opts.excludeFields ?? []).map(parseFieldPath);
  }

  push(event: SourceEvent): Built[] {
    for (const path of this.exclude) dropPath(event as unknown as Record<string, unknown>, path);
    const kind = event.kind;
    if (kind === "tool_call" || kind === "tool_result" || kind === "tool_error") {
      const role: ToolRole = kind === "tool_call" ? "call" : kind === "tool_result" ? "result" : "error";
      const part = toolPart(event, role, this.opts.rules);
      return this.pairer.push(event, role, part).map((g) => this.toolItem(g));
    }
    const flushed = this.pairer.onEvent(event).map((g) => this.toolItem(g));
    const single = this.singleItem(event);
    return single ? [...flushed, single] : flushed;
  }

  finish(): Built[] {
    return this.pairer.finish().map((g) => this.toolItem(g));
  }

  private singleItem(event: SourceEvent): Built | undefined {
    const spec = SINGLE[event.kind];
    if (!spec) return undefined;
    const raw = event.payload[spec.field];
    if (raw === undefined || raw === null) return undefined;
    const text = cleanText(raw, this.opts.rules);
    if (text.trim() === "") return undefined;
    return this.item(spec.kind, [event], text, spec.titlePrefix + firstLine(text));
  }

  private toolItem(parts: Part[]): Built {
    const lead = parts.find((p) => p.head !== "") ?? parts[0]!;
    const body = [lead.head, ...parts.map((p) => p.text)].filter((t) => t !== "").join("\n");
    return this.item(
      "tool_call",
      parts.map((p) => p.event),
      body,
      lead.label,
    );
  }

  private item(kind: MemoryKind, events: SourceEvent[], text: string, derivedTitle: string): Built {
    const sorted = [...events].sort((a, b) => a.sequence - b.sequence);
    const first = sorted[0]!;
    const source: MemorySource = {
      provider: first.provider,
      session_id: first.session_id,
      agent_id: first.agent_id ?? null,
      seq_from: first.sequence,
      seq_to: sorted.at(-1)!.sequence,
      event_ids: sorted.map((e) => e.event_id),
      envelope_schema_version: first.schema_version,
      archive_sha256: this.opts.archive.sha256,
      archive_bytes: this.opts.archive.bytes,
    };
    const { body, truncated } = boundBody(text);
    const title = this.opts.title ? `${oneLine(this.opts.title)} · ${derivedTitle}` : derivedTitle;
    const item: MemoryItem = {
      id: itemId(kind, source),
      schema_version: MEMORY_SCHEMA_VERSION,
      kind,
      title: boundTitle(title),
      body,
      truncated,
      created_at: this.opts.createdAt,
      source,
    };
    return { item, events: sorted };
  }
}

const SINGLE: Record<string, { kind: MemoryKind; field: string; titlePrefix: string } | undefined> = {
  user_prompt: { kind: "prompt", field: "prompt", titlePrefix: "" },
  assistant_message: { kind: "answer", field: "text", titlePrefix: "" },
  // Only Claude's PostCompact carries the summary text; a compaction without one holds nothing to remember.
  compaction: { kind: "compaction_summary", field: "compact_summary", titlePrefix: "Compaction: " },
};

/**
 * Stable across runs and machines: the memory schema version, where the events come from and which events
 * they are. Not the body: promoting the same range again (even with other exclusions) finds the same item.
 */
export function itemId(kind: MemoryKind, s: Omit<MemorySource, "archive_sha256" | "archive_bytes">): string {
  const key = JSON.stringify([
    MEMORY_SCHEMA_VERSION,
    s.provider,
    s.session_id,
    kind,
    s.seq_from,
    s.seq_to,
    s.event_ids,
  ]);
  return `m${MEMORY_SCHEMA_VERSION}-${createHash("sha256").update(key).digest("hex").slice(0, 32)}`;
}

// ---------------------------------------------------------------------------
// Text: strip the marker, redact, render, bound
// ---------------------------------------------------------------------------

/** Strings only, through an explicit stack: archive payloads are bounded, but a planted file need not be. */
function stripDeep(value: unknown): unknown {
  if (typeof value === "string") return stripInjected(value);
  if (value === null || typeof value !== "object") return value;
  const root: { v: unknown } = { v: undefined };
  const stack: Array<{ src: unknown; set: (v: unknown) => void; depth: number }> = [
    {
      src: value,
      set: (v) => {
        root.v = v;
      },
      depth: 0,
    },
  ];
  while (stack.length > 0) {
    const { src, set, depth } = stack.pop()!;
    if (typeof src === "string") set(stripInjected(src));
    else if (src === null || typeof src !== "object" || depth > 64) set(typeof src === "object" ? null : src);
    else if (Array.isArray(src)) {
      const out: unknown[] = new Array(src.length);
      set(out);
      for (let i = 0; i < src.length; i += 1) {
        stack.push({
          src: src[i],
          set: (x) => {
            out[i] = x;
          },
          depth: depth + 1,
        });
      }
    } else {
      const out: Record<string, unknown> = {};
      set(out);
      for (const [k, v] of Object.entries(src)) {
        // The slot first, so the keys keep their order whatever order the stack fills them in.
        Object.defineProperty(out, k, field(undefined));
        stack.push({
          src: v,
          set: (x) => {
            out[k] = x;
          },
          depth: depth + 1,
        });
      }
    }
  }
  return root.v;
}

function field(value: unknown): PropertyDescriptor {
  return { value, enumerable: true, writable: true, configurable: true };
}

/** The marker removed, then the current policy applied: a value as it may enter memory. */
export function cleanValue(value: unknown, rules: RedactionRules | undefined): unknown {
  return redactValue(stripDeep(value), "payload", rules).value;
}

function cleanText(value: unknown, rules: RedactionRules | undefined): string {
  return render(cleanValue(value, rules));
}

/** Strings as they are; anything else as compact JSON (bounded below, so a huge object costs one stringify). */
export function render(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  return JSON.stringify(value) ?? "";
}

/** Tool parts render what a reader wants first: the command, the output, the error. */
function toolPart(event: SourceEvent, role: ToolRole, rules: RedactionRules | undefined): Part {
  const p = cleanValue(event.payload, rules) as Record<string, unknown>;
  const name = typeof p.tool_name === "string" && p.tool_name !== "" ? p.tool_name : "tool";
  const input = p.tool_input ?? (typeof p.command === "string" ? { command: p.command } : undefined);
  const head = role === "call" || input !== undefined ? `${name}: ${inputText(input)}` : "";
  let text = "";
  if (role === "result") text = `Result:\n${responseText(p.tool_response ?? p.output)}`;
  if (role === "error") {
    const detail = [p.error, p.tool_response, p.output].filter((v) => v !== undefined).map(responseText);
    text = `Error:\n${detail.join("\n")}`;
  }
  const label = input === undefined ? name : `${name}: ${firstLine(inputText(input))}`;
  // Each part is cut (after redaction) a little past the body bound, so a pending call holds a few KiB at most
  // and a part that was cut still makes the body too long: boundBody then marks it.
  const keep = MAX_BODY_BYTES + 16;
  return { event, head: cutUtf8(head, keep), text: cutUtf8(text, keep), label };
}

const INPUT_SUMMARY_FIELDS = [
  "command",
  "file_path",
  "path",
  "pattern",
  "url",
  "query",
  "description",
  "prompt",
];

function inputText(input: unknown): string {
  if (input === undefined || input === null) return "";
  if (typeof input !== "object" || Array.isArray(input)) return render(input);
  const rec = input as Record<string, unknown>;
  for (const key of INPUT_SUMMARY_FIELDS) {
    const v = rec[key];
    // The one field that says what the call does, then the rest as JSON only when there is more.
    if (typeof v === "string" && v !== "") {
      const rest = Object.keys(rec).filter((k) => k !== key && k !== "description");
      return rest.length === 0 ? v : `${v}\n${render(Object.fromEntries(rest.map((k) => [k, rec[k]])))}`;
    }
  }
  return render(input);
}

function responseText(response: unknown): string {
  if (response === null || typeof response !== "object" || Array.isArray(response)) return render(response);
  const r = response as Record<string, unknown>;
  if (typeof r.stdout === "string" || typeof r.stderr === "string") {
    const out = typeof r.stdout === "string" ? r.stdout : "";
    const err = typeof r.stderr === "string" && r.stderr !== "" ? `\nstderr:\n${r.stderr}` : "";
    return out + err;
  }
  // Gemini answers {llmContent, returnDisplay}: the display is what the user saw, the content wraps it for
  // the model (<untrusted_context>, process ids).
  if (typeof r.returnDisplay === "string" && r.returnDisplay !== "") return r.returnDisplay;
  if (typeof r.llmContent === "string") return r.llmContent;
  // Claude's Agent and MCP tools answer with content blocks: their text is the answer, the rest bookkeeping.
  const texts = Array.isArray(r.content) ? r.content.filter(isTextBlock).map((b) => b.text) : [];
  if (texts.length > 0) return texts.join("\n");
  return render(response);
}

function isTextBlock(b: unknown): b is { text: string } {
  return typeof b === "object" && b !== null && typeof (b as { text?: unknown }).text === "string";
}

function oneLine(text: string): string {
  return text
    .replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** A title needs 100 characters: the line is cut well before the whitespace pass (a 4 KiB one-line answer). */
function firstLine(text: string): string {
  const start = text.search(/\S/);
  if (start < 0) return "";
  const end = text.indexOf("\n", start);
  const line = text.slice(start, end < 0 ? undefined : end);
  return oneLine(line.slice(0, MAX_TITLE_CHARS * 4));
}

function boundTitle(title: string): string {
  const t = oneLine(title) || "(untitled)";
  const chars = [...t];
  return chars.length <= MAX_TITLE_CHARS ? t : `${chars.slice(0, MAX_TITLE_CHARS - 1).join("")}…`;
}

// ---------------------------------------------------------------------------
// --exclude-fields
// ---------------------------------------------------------------------------

const FIELD_PATH = /^payload(\.[^.\s]+)+$/;

export class FieldPathError extends Error {
  override name = "FieldPathError";
}

/** `payload.tool_response.stdout` → ["payload", "tool_response", "stdout"]; only payload fields may be dropped. */
export function parseFieldPath(path: string): string[] {
  if (!FIELD_PATH.test(path)) {
    throw new FieldPathError(`"${path}" is not a payload field path (e.g. payload.tool_response)`);
  }
  return path.split(".");
}

function dropPath(root: Record<string, unknown>, path: readonly string[]): void {
  let node: unknown = root;
  for (let i = 0; i < path.length - 1; i += 1) {
    if (node === null || typeof node !== "object") return;
    const key = path[i]!;
    node = Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined;
  }
  const last = path.at(-1)!;
  if (node !== null && typeof node === "object" && Object.hasOwn(node, last)) {
    delete (node as Record<string, unknown>)[last];
  }
}
