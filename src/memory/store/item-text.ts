// The text of memory items: tapedeck's marker stripped, redacted again with the current policy, rendered (a
// tool's input, its output or error), titled and bounded. What the item builder (items.ts) and `memory edit`
// put into an item.

import { type RedactionRules, redactValue } from "@tapedeck/redact";
import { stripInjected } from "../../core/ports/memory-marker.ts";
import { TOOL_SUBJECT_FIELDS } from "../../core/read/tool-subject.ts";
import { cutUtf8, MAX_BODY_BYTES, MAX_TITLE_CHARS } from "./item-shape.ts";

/** What a tool event is to its item: the call, its result, or its error. */
export type ToolRole = "call" | "result" | "error";

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

export function cleanText(value: unknown, rules: RedactionRules | undefined): string {
  return render(cleanValue(value, rules));
}

/** Strings as they are; anything else as compact JSON (bounded below, so a huge object costs one stringify). */
export function render(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  return JSON.stringify(value) ?? "";
}

/** Tool parts render what a reader wants first: the command, the output, the error. */
export function toolPart(event: SourceEvent, role: ToolRole, rules: RedactionRules | undefined): Part {
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

const INPUT_SUMMARY_FIELDS = ["command", ...TOOL_SUBJECT_FIELDS];

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

export function oneLine(text: string): string {
  return text
    .replace(/[\x00-\x1f\x7f-\x9f\u2028\u2029]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** A title needs 100 characters: the line is cut well before the whitespace pass (a 4 KiB one-line answer). */
export function firstLine(text: string): string {
  const start = text.search(/\S/);
  if (start < 0) return "";
  const end = text.indexOf("\n", start);
  const line = text.slice(start, end < 0 ? undefined : end);
  return oneLine(line.slice(0, MAX_TITLE_CHARS * 4));
}

export function boundTitle(title: string): string {
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

export function dropPath(root: Record<string, unknown>, path: readonly string[]): void {
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
