// Recorded events → small typed memory items: a prompt with the answer of its turn (an exchange), a prompt or an
// answer on its own, a tool call with its result, a compaction summary. Deterministic (no model, no network):
// the same events give the same items, ids and titles, in the order they start in the session (what the
// preview shows is the order they are stored in). Every item is built from an already-redacted archive line and
// redacted AGAIN with the project's current policy, because the policy may have grown rules since the session
// was recorded; text tapedeck itself injected (the retrieval marker) is removed first, so memory never feeds on
// its own echo. Trivial and repeated items are left out and counted (clean.ts).
import { createHash } from "node:crypto";
import type { RedactionRules } from "@tapedeck/redact";
import { eventKindsExcept } from "../../core/archive/kinds.ts";
import type { CallNode } from "../../core/read/timeline/nodes.ts";
import { TurnModel } from "../../core/read/timeline/turns.ts";
import { Duplicates, isFollowUp, isTrivial, saysLittle } from "./clean.ts";
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
import {
  boundTitle,
  cleanText,
  dropPath,
  firstLine,
  oneLine,
  type Part,
  parseFieldPath,
  type SourceEvent,
  type ToolRole,
  toolPart,
} from "./item-text.ts";

export * from "./item-shape.ts";
export { cleanValue, FieldPathError, parseFieldPath, render } from "./item-text.ts";
export type { Part, SourceEvent };

/** The event kinds promotion reads: all but those that hold no material (usage, boundaries, provider events). */
export const PROMOTABLE_EVENT_KINDS = eventKindsExcept(
  "session_start",
  "subagent_start",
  "subagent_stop",
  "session_end",
  "turn_usage",
  "provider_event",
);

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
  /** The label of the item set (`promote --title`): stored beside each item, never in its title. */
  label?: string;
  archive: { sha256: string; bytes: number };
  createdAt: string;
  /** Keep trivial, unanswered and repeated items too (`promote --keep-all`). */
  keepAll?: boolean;
  /**
   * Whether answers are read at all (the selection's kinds): when they are not, a prompt is an item on its
   * own instead of waiting for an answer it will never get.
   */
  answers?: boolean;
}

/** What cleaning left out, by reason. */
export interface Skipped {
  /** Acknowledgements, greetings, empty answers (an exchange of two such counts once). */
  trivial: number;
  /** Prompts whose turn ended without an answer (interrupted, failed). */
  unanswered: number;
  /** Repeats of an earlier item of the same promotion, word for word or nearly. */
  duplicate: number;
}

/** An item and the events it was built from. */
export interface Built {
  item: MemoryItem;
  events: SourceEvent[];
}

/** A prompt waiting for the answer of its turn. */
interface Pending {
  event: SourceEvent;
  text: string;
  /** Its answer exists but is outside the selection: the prompt is then an item of its own. */
  answeredOutside: boolean;
}

/** An exchange held back in case the next prompt continues it (a follow-up joins it). */
interface Held {
  events: SourceEvent[];
  turns: Array<{ prompt: string; answer: string }>;
  title: string;
}

/** Built items held for ordering at most: past it the oldest waiting prompt stands alone. */
const MAX_READY = 512;
/** Tool items waiting for more of their events at most: past it the oldest is complete. */
const MAX_OPEN = 256;
const ROLE_ORDER: Record<ToolRole, number> = { call: 0, result: 1, error: 2 };

/** One tool item being built: a call and what was reported for it, as the turn model paired them. */
interface ToolGroup {
  call: CallNode;
  turn: string | undefined;
  first: number;
  parts: Partial<Record<ToolRole, Part>>;
}

/**
 * A tool call and its result are one memory item; which result is whose call is the core turn model's rule
 * (the one the viewer and the OTLP export use). An item stays open until its turn ends, so a second report
 * of a call (a client's later tool_error with the same id) lands in it; the same role twice means the item
 * was complete. Open items are bounded: past MAX_OPEN the oldest is closed.
 */
class ToolItems {
  private readonly model = new TurnModel();
  /** In the order the items opened. */
  private open: ToolGroup[] = [];

  /** Adds a tool event; answers the items this closes (a duplicate role, another turn, the bound). */
  push(event: SourceEvent, role: ToolRole, part: Part): Part[][] {
    const closed = this.onEvent(event);
    const placed = this.model.add(event);
    if (placed.role !== "call" && placed.role !== "result") return closed;
    const call = placed.call;
    let group = this.open.find((g) => g.call === call);
    if (group?.parts[role]) {
      closed.push(this.close(group));
      group = undefined;
    }
    if (role === "call" && call.tool_use_id !== null) {
      // A new call with an id already seen: the earlier one's item is complete.
      for (const g of this.open.filter((o) => o.call !== call && o.call.tool_use_id === call.tool_use_id))
        closed.push(this.close(g));
    }
    if (!group) {
      group = { call, turn: event.turn_id, first: event.sequence, parts: {} };
      this.open.push(group);
      if (this.open.length > MAX_OPEN) closed.push(this.close(this.open[0]!));
    }
    group.parts[role] = part;
    return closed;
  }

  /** Any event of a new turn closes the items of the turns before it. */
  onEvent(event: SourceEvent): Part[][] {
    const turn = event.turn_id;
    if (turn === undefined) return [];
    const done = this.open.filter((g) => g.turn !== undefined && g.turn !== turn);
    return done.map((g) => this.close(g));
  }

  /** A non-tool event: a prompt may start a new turn of the model (its calls are then forgotten). */
  other(event: SourceEvent): Part[][] {
    const closed = this.onEvent(event);
    this.model.add(event);
    return closed;
  }

  /** The first sequence number of the open items: no tool item can start before it any more. */
  oldest(): number | undefined {
    return this.open.length === 0 ? undefined : Math.min(...this.open.map((g) => g.first));
  }

  finish(): Part[][] {
    const all = [...this.open].sort((a, b) => a.first - b.first);
    return all.map((g) => this.close(g));
  }

  private close(group: ToolGroup): Part[] {
    this.open = this.open.filter((g) => g !== group);
    return (Object.entries(group.parts) as Array<[ToolRole, Part]>)
      .sort(([a], [b]) => ROLE_ORDER[a] - ROLE_ORDER[b])
      .map(([, part]) => part);
  }
}

/**
 * Feeds events in archive order, hands back the items they complete, in the order they start. Tool calls wait
 * (bounded) for their result and a prompt for its answer; an item is handed back once nothing still waiting can
 * start before it.
 */
export class ItemBuilder {
  private readonly pairer = new ToolItems();
  private readonly exclude: string[][];
  private readonly pending = new Map<string, Pending>();
  private readonly held = new Map<string, Held>();
  private ready: Built[] = [];
  private readonly duplicates = new Duplicates();
  readonly skipped: Skipped = { trivial: 0, unanswered: 0, duplicate: 0 };

  constructor(private readonly opts: ItemOptions) {
    this.exclude = (opts.excludeFields ?? []).map(parseFieldPath);
  }

  /** An event of the session; `selected` false for one outside the selection (it only tells turns apart). */
  push(event: SourceEvent, selected = true): Built[] {
    if (!selected) {
      this.outside(event);
      return this.emit(false);
    }
    for (const path of this.exclude) dropPath(event as unknown as Record<string, unknown>, path);
    const kind = event.kind;
    if (kind === "tool_call" || kind === "tool_result" || kind === "tool_error") {
      const role: ToolRole = kind === "tool_call" ? "call" : kind === "tool_result" ? "result" : "error";
      const part = toolPart(event, role, this.opts.rules);
      for (const g of this.pairer.push(event, role, part)) this.ready.push(this.toolItem(g));
      return this.emit(false);
    }
    for (const g of this.pairer.other(event)) this.ready.push(this.toolItem(g));
    if (kind === "user_prompt") this.prompt(event);
    else if (kind === "assistant_message") this.answer(event);
    else if (kind === "compaction") this.summary(event);
    return this.emit(false);
  }

  finish(): Built[] {
    for (const g of this.pairer.finish()) this.ready.push(this.toolItem(g));
    for (const key of [...this.pending.keys()]) this.resolve(key);
    for (const key of [...this.held.keys()]) this.release(key);
    return this.emit(true);
  }

  private outside(event: SourceEvent): void {
    const key = event.agent_id ?? "";
    const waiting = this.pending.get(key);
    if (!waiting) return;
    if (event.kind === "assistant_message") waiting.answeredOutside = true;
    // Another prompt of the same agent: the waiting one's turn is over.
    else if (event.kind === "user_prompt") this.resolve(key);
  }

  private prompt(event: SourceEvent): void {
    const text = textOf(event, "prompt", this.opts.rules);
    // A prompt that held nothing but tapedeck's own marker is no item at all.
    if (text.trim() === "") return;
    const key = event.agent_id ?? "";
    if (this.pending.has(key)) this.resolve(key);
    // A new subject: the exchange before it is complete.
    if (!isFollowUp(text)) this.release(key);
    if (this.opts.answers === false) {
      this.single("prompt", event, text);
      return;
    }
    this.pending.set(key, { event, text, answeredOutside: false });
  }

  private answer(event: SourceEvent): void {
    const text = textOf(event, "text", this.opts.rules);
    const key = event.agent_id ?? "";
    const waiting = this.pending.get(key);
    this.pending.delete(key);
    if (!waiting) {
      this.single("answer", event, text);
      return;
    }
    const keepAll = this.opts.keepAll === true;
    const promptTrivial = !keepAll && isTrivial(waiting.text);
    const answerTrivial = text.trim() === "" || (!keepAll && isTrivial(text));
    if (promptTrivial && answerTrivial) this.skipped.trivial += 1;
    // "continue" → a long answer: the answer says it all.
    else if (promptTrivial) this.single("answer", event, text);
    // A statement → "Noted.": the prompt does. A question → "Yes.": both do.
    else if (answerTrivial && (text.trim() === "" || !waiting.text.includes("?")))
      this.single("prompt", waiting.event, waiting.text);
    else this.join(key, waiting, event, text);
  }

  /** An exchange: joined to the held one it follows up on when both fit one item, else held itself. */
  private join(key: string, prompt: Pending, answer: SourceEvent, answerText: string): void {
    const turn = { prompt: prompt.text, answer: answerText };
    const before = this.held.get(key);
    if (before && !this.opts.keepAll) {
      const turns = [...before.turns, turn];
      if (Buffer.byteLength(exchangeText(turns)) <= MAX_BODY_BYTES) {
        this.held.set(key, { ...before, events: [...before.events, prompt.event, answer], turns });
        return;
      }
    }
    this.release(key);
    this.held.set(key, { events: [prompt.event, answer], turns: [turn], title: firstLine(prompt.text) });
  }

  private release(key: string): void {
    const h = this.held.get(key);
    if (!h) return;
    this.held.delete(key);
    const body =
      h.turns.length === 1 ? exchangeBody(h.turns[0]!.prompt, h.turns[0]!.answer) : exchangeText(h.turns);
    this.ready.push(this.item("exchange", h.events, body, h.title));
  }

  private summary(event: SourceEvent): void {
    // Only Claude's PostCompact carries the summary text; a compaction without one holds nothing to remember.
    const text = textOf(event, "compact_summary", this.opts.rules);
    if (text.trim() === "") return;
    this.ready.push(this.item("compaction_summary", [event], text, `Compaction: ${firstLine(text)}`));
  }

  /** A waiting prompt whose turn is over. */
  private resolve(key: string): void {
    const waiting = this.pending.get(key);
    if (!waiting) return;
    this.pending.delete(key);
    if (waiting.answeredOutside || this.opts.keepAll) this.single("prompt", waiting.event, waiting.text);
    else this.skipped.unanswered += 1;
  }

  private single(kind: "prompt" | "answer", event: SourceEvent, text: string): void {
    if (text.trim() === "" || (!this.opts.keepAll && saysLittle(text))) {
      this.skipped.trivial += 1;
      return;
    }
    this.ready.push(this.item(kind, [event], text, firstLine(text)));
  }

  /** Built items that nothing waiting can precede any more, in the order they start; cleaned. */
  private emit(all: boolean): Built[] {
    if (!all && this.ready.length > MAX_READY) {
      // A turn of hundreds of tool calls: its prompt stops holding the rest back, and stands alone.
      const oldest = [...this.pending.entries()].sort((a, b) => a[1].event.sequence - b[1].event.sequence)[0];
      if (oldest) {
        this.pending.delete(oldest[0]);
        this.single("prompt", oldest[1].event, oldest[1].text);
      }
    }
    if (this.ready.length === 0) return [];
    const waits = [
      ...[...this.pending.values()].map((p) => p.event.sequence),
      ...[...this.held.values()].map((h) => h.events[0]!.sequence),
    ];
    const open = this.pairer.oldest();
    if (open !== undefined) waits.push(open);
    const before = all || waits.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...waits);
    this.ready.sort((a, b) => a.item.source.seq_from - b.item.source.seq_from);
    const cut = this.ready.findIndex((b) => b.item.source.seq_from >= before);
    const out = cut < 0 ? this.ready : this.ready.slice(0, cut);
    this.ready = cut < 0 ? [] : this.ready.slice(cut);
    if (this.opts.keepAll) return out;
    return out.filter((b) => {
      if (!this.duplicates.repeats(b.item.kind, b.item.body)) return true;
      this.skipped.duplicate += 1;
      return false;
    });
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

  private item(kind: MemoryKind, events: SourceEvent[], text: string, title: string): Built {
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
    const label = this.opts.label === undefined ? null : boundLabel(this.opts.label);
    const item: MemoryItem = {
      id: itemId(kind, source),
      schema_version: MEMORY_SCHEMA_VERSION,
      kind,
      title: boundTitle(title),
      body,
      truncated,
      created_at: this.opts.createdAt,
      source,
      label,
      edited_at: null,
    };
    return { item, events: sorted };
  }
}

function textOf(event: SourceEvent, field: string, rules: RedactionRules | undefined): string {
  const raw = event.payload[field];
  return raw === undefined || raw === null ? "" : cleanText(raw, rules);
}

const USER = "User: ";
const ASSISTANT = "\n\nAssistant: ";
/** A long prompt gives way to its answer: it keeps at least this much, the answer the rest. */
const PROMPT_KEEPS = 1024;

/** Turns of one exchange and its follow-ups, in order. */
function exchangeText(turns: ReadonlyArray<{ prompt: string; answer: string }>): string {
  return turns.map((t) => `${USER}${t.prompt}${ASSISTANT}${t.answer}`).join("\n\n");
}

/** The prompt, then the answer; over the bound the prompt is cut first (the answer holds what was found). */
export function exchangeBody(prompt: string, answer: string): string {
  const whole = `${USER}${prompt}${ASSISTANT}${answer}`;
  if (Buffer.byteLength(whole) <= MAX_BODY_BYTES) return whole;
  const room = MAX_BODY_BYTES - Buffer.byteLength(`${USER}${ASSISTANT}${answer}`) - 8;
  const keep = Math.max(PROMPT_KEEPS, room);
  const cut = cutUtf8(prompt, keep);
  return `${USER}${cut === prompt ? prompt : `${cut} […]`}${ASSISTANT}${answer}`;
}

function boundLabel(label: string): string | null {
  const t = oneLine(label);
  if (t === "") return null;
  const chars = [...t];
  return chars.length <= MAX_TITLE_CHARS ? t : `${chars.slice(0, MAX_TITLE_CHARS - 1).join("")}…`;
}

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
