// Promotion: a user-chosen part of one recorded session becomes durable memory items. Two passes over the
// archive, both streamed: the plan (what would be stored, for the preview and the confirmation) and the write
// (the same bytes again, batch by batch into the store). Nothing is held but a batch and the pending tool
// calls, so a 100,000-event session promotes in bounded memory. The write pass stops where the plan stopped:
// an active session that grew meanwhile gives exactly the previewed items.

import type { RedactionRules } from "@tapedeck/redact";
import { loadRedactionRules } from "@tapedeck/redact/rules-file";
import { UnsafePathError } from "../../core/base/fsutil.ts";
import { EXIT, UserError } from "../../core/base/user-error.ts";
import type { SessionRef } from "../../core/read/sessions.ts";
import {
  type Built,
  FieldPathError,
  ItemBuilder,
  type MemoryItem,
  type MemoryKind,
  PROMOTABLE_EVENT_KINDS,
  parseFieldPath,
  type Skipped,
  type SourceEvent,
} from "./items.ts";
import { eventsFile, type ScanProgress, scanArchive, sha256Prefix } from "./source.ts";
import type { MemoryStore } from "./store.ts";

export interface SeqRange {
  from: number;
  to: number;
}

export interface Selection {
  /** Inclusive sequence ranges (`--events 3-9,14`); undefined for the whole session. */
  ranges?: readonly SeqRange[];
  /** Event kinds to read (default: every promotable kind). */
  kinds: ReadonlySet<string>;
  excludeEvents: readonly SeqRange[];
  excludeFields: readonly string[];
  /** The set's label (`--title`), stored beside each item. */
  title?: string;
  /** Only these items of the plan (`--pick`): the ids the user ticked. */
  ids?: ReadonlySet<string>;
  /** Keep trivial, unanswered and repeated items too. */
  keepAll?: boolean;
}

export interface PromotionPlan {
  session_id: string;
  /** The set's label (`--title`), when one was given. */
  label?: string;
  /** One time for every pass: the items built again for output are the ones stored, field for field. */
  created_at: string;
  provider: string;
  /** Where the plan's scan ended: the write pass reads no further. */
  scan_end: number;
  archive: { sha256: string; bytes: number };
  events_scanned: number;
  events_selected: number;
  lines_skipped: number;
  items: number;
  body_bytes: number;
  truncated: number;
  by_kind: Partial<Record<MemoryKind, number>>;
  /** What cleaning left out (trivial, unanswered, repeated items). */
  skipped: Skipped;
  /** The first items in full, in the order they are stored, for the preview. */
  preview: MemoryItem[];
  /** Events still in the spool: not in events.jsonl yet, so not promotable until a writer or repair drains them. */
  spooled: number;
}

export const PREVIEW_ITEMS = 20;
/** Items per write transaction: short enough that a concurrent promotion waits milliseconds, not seconds. */
export const INSERT_BATCH = 500;

const ALIASES = new Map([
  ["prompt", "user_prompt"],
  ["answer", "assistant_message"],
  ["compaction_summary", "compaction"],
]);

/** `--kinds user_prompt,assistant_message` (item kind names work too: prompt, answer, compaction_summary). */
export function parseKinds(text: string | undefined): Set<string> {
  if (text === undefined) return new Set(PROMOTABLE_EVENT_KINDS);
  const out = new Set<string>();
  for (const raw of text.split(",")) {
    const name = raw.trim();
    if (name === "") continue;
    const kind = ALIASES.get(name) ?? name;
    if (!(PROMOTABLE_EVENT_KINDS as readonly string[]).includes(kind)) {
      throw new UserError(
        `unknown kind "${name}" for promotion (kinds: ${PROMOTABLE_EVENT_KINDS.join(", ")})`,
        EXIT.usage,
      );
    }
    out.add(kind);
  }
  if (out.size === 0) throw new UserError("--kinds needs at least one kind", EXIT.usage);
  return out;
}

const RANGE = /^(\d*)(?:\.\.|-)(\d*)$/;
const SEQ = /^\d+$/;

/** `A..B` (or `A-B`), `A..`, `..B` or `N` (sequence numbers, inclusive). */
export function parseRange(text: string): SeqRange {
  const t = text.trim();
  const m = RANGE.exec(t);
  let range: SeqRange | undefined;
  if (m && (m[1] !== "" || m[2] !== "")) {
    range = { from: m[1] ? Number(m[1]) : 1, to: m[2] ? Number(m[2]) : Number.MAX_SAFE_INTEGER };
  } else if (SEQ.test(t)) {
    range = { from: Number(t), to: Number(t) };
  }
  if (!range || !Number.isSafeInteger(range.from) || !Number.isSafeInteger(range.to)) {
    throw new UserError(`"${text}" is not a sequence range (A-B, A..B, A.., ..B or N)`, EXIT.usage);
  }
  if (range.from > range.to) throw new UserError(`"${text}": the range ends before it starts`, EXIT.usage);
  return range;
}

/** `N,M,P-Q` (or `P..Q`): `option` names the flag in the error. */
export function parseSeqList(text: string, option = "--exclude-events"): SeqRange[] {
  const parts = text
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (parts.length === 0) throw new UserError(`${option} needs sequence numbers (N,M or A-B)`, EXIT.usage);
  return parts.map(parseRange);
}

export function parseFieldList(text: string | undefined): string[] {
  if (text === undefined) return [];
  const fields = text
    .split(",")
    .map((f) => f.trim())
    .filter((f) => f !== "");
  try {
    for (const f of fields) parseFieldPath(f);
  } catch (error) {
    if (error instanceof FieldPathError) throw new UserError(error.message, EXIT.usage);
    throw error;
  }
  return fields;
}

function inRange(seq: number, r: SeqRange): boolean {
  return seq >= r.from && seq <= r.to;
}

function selected(event: SourceEvent, sel: Selection): boolean {
  if (!sel.kinds.has(event.kind)) return false;
  if (sel.ranges && !sel.ranges.some((r) => inRange(event.sequence, r))) return false;
  return !sel.excludeEvents.some((r) => inRange(event.sequence, r));
}

/** The project's redaction rules: a broken rules file stops a promotion instead of promoting without them. */
export function currentRules(projectRoot: string): RedactionRules | undefined {
  const loaded = loadRedactionRules(projectRoot);
  if (loaded.error) {
    throw new UserError(
      `${loaded.error}; fix it before promoting (memory is redacted again with the project's current rules)`,
    );
  }
  return loaded.rules;
}

export interface PassOptions {
  rules: RedactionRules | undefined;
  onProgress?: (p: ScanProgress) => void;
}

interface Pass {
  sel: Selection;
  ref: SessionRef;
  archive: { sha256: string; bytes: number };
  createdAt: string;
  until?: number;
  opts: PassOptions;
  onBuilt(built: Built, lineEnd: number): void;
}

type PassResult = ReturnType<typeof scanArchive> & { selected: number; cleaned: Skipped };

/** One streamed pass: events in archive order through the item builder. */
function runPass(p: Pass): PassResult {
  return unsafeAsCliError(() => buildPass(p));
}

function unsafeAsCliError<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    // events.jsonl replaced by a symlink, a FIFO or a directory: refused, never followed.
    if (error instanceof UnsafePathError) throw new UserError(`${error.message}; refusing to read it`);
    throw error;
  }
}

function buildPass(p: Pass): PassResult {
  const builder = new ItemBuilder({
    rules: p.opts.rules,
    excludeFields: p.sel.excludeFields,
    label: p.sel.title,
    archive: p.archive,
    createdAt: p.createdAt,
    keepAll: p.sel.keepAll,
    answers: p.sel.kinds.has("assistant_message"),
  });
  // Each event's line end, until the item it belongs to is out: the checksum covers the last promoted line.
  const ends = new WeakMap<SourceEvent, number>();
  const emit = (list: Built[]) => {
    for (const b of list) {
      if (p.sel.ids && !p.sel.ids.has(b.item.id)) continue;
      p.onBuilt(b, Math.max(...b.events.map((e) => ends.get(e) ?? 0)));
    }
  };
  let count = 0;
  const scan = scanArchive(eventsFile(p.ref.dir), {
    sessionId: p.ref.manifest.session_id,
    until: p.until,
    onProgress: p.opts.onProgress,
    onEvent(event, lineEnd) {
      const chosen = selected(event, p.sel);
      // Outside the selection an event is not read, only seen: an answer outside it keeps its prompt an item.
      if (!chosen && !PROMOTABLE.has(event.kind)) return;
      if (chosen) {
        count += 1;
        ends.set(event, lineEnd);
      }
      emit(builder.push(event, chosen));
    },
  });
  emit(builder.finish());
  return { ...scan, selected: count, cleaned: builder.skipped };
}

const PROMOTABLE: ReadonlySet<string> = new Set(PROMOTABLE_EVENT_KINDS);

/** What a promotion would store: counts, sizes, the first items, and the checksum of the promoted bytes. */
export function planPromotion(ref: SessionRef, sel: Selection, opts: PassOptions): PromotionPlan {
  const plan: PromotionPlan = {
    session_id: ref.manifest.session_id,
    created_at: new Date().toISOString(),
    provider: ref.manifest.provider,
    scan_end: 0,
    archive: { sha256: "", bytes: 0 },
    events_scanned: 0,
    events_selected: 0,
    lines_skipped: 0,
    items: 0,
    body_bytes: 0,
    truncated: 0,
    by_kind: {},
    skipped: { trivial: 0, unanswered: 0, duplicate: 0 },
    preview: [],
    spooled: ref.spooled_events,
    ...(sel.title !== undefined ? { label: sel.title } : {}),
  };
  let lastEnd = 0;
  const scan = runPass({
    sel,
    ref,
    archive: plan.archive,
    createdAt: plan.created_at,
    opts,
    onBuilt({ item }, lineEnd) {
      plan.items += 1;
      plan.body_bytes += Buffer.byteLength(item.body);
      if (item.truncated) plan.truncated += 1;
      plan.by_kind[item.kind] = (plan.by_kind[item.kind] ?? 0) + 1;
      if (plan.preview.length < PREVIEW_ITEMS) plan.preview.push(item);
      lastEnd = Math.max(lastEnd, lineEnd);
    },
  });
  plan.skipped = scan.cleaned;
  plan.scan_end = scan.end;
  plan.events_scanned = scan.lines - scan.skipped;
  plan.events_selected = scan.selected;
  plan.lines_skipped = scan.skipped;
  if (plan.items > 0) {
    const sha256 = unsafeAsCliError(() => sha256Prefix(eventsFile(ref.dir), lastEnd));
    if (sha256 === undefined) throw new UserError("the session's events.jsonl shrank while it was read");
    plan.archive = { sha256, bytes: lastEnd };
    for (const item of plan.preview) {
      item.source.archive_sha256 = sha256;
      item.source.archive_bytes = lastEnd;
    }
  }
  return plan;
}

/** Every item of the plan, built again from the same bytes with the plan's checksum (dry runs, the write). */
export function forEachItem(
  ref: SessionRef,
  sel: Selection,
  plan: PromotionPlan,
  opts: PassOptions,
  onItem: (item: MemoryItem) => void,
): void {
  runPass({
    sel,
    ref,
    archive: plan.archive,
    createdAt: plan.created_at,
    until: plan.scan_end,
    opts,
    onBuilt: ({ item }) => onItem(item),
  });
}

export interface PromoteResult {
  created: string[];
  existing: string[];
}

/** Writes the plan's items in batches. */
export function writePromotion(
  store: MemoryStore,
  ref: SessionRef,
  sel: Selection,
  plan: PromotionPlan,
  opts: PassOptions,
): PromoteResult {
  const result: PromoteResult = { created: [], existing: [] };
  inBatches<MemoryItem>(
    (on) => forEachItem(ref, sel, plan, opts, on),
    (batch) => {
      const r = store.insert(batch);
      result.created.push(...r.created);
      result.existing.push(...r.existing);
    },
  );
  const expected = sel.ids ? Math.min(sel.ids.size, plan.items) : plan.items;
  if (result.created.length + result.existing.length !== expected) {
    // Only a rewritten archive can do this (appends are never read: the pass stops at the plan's end).
    throw new UserError("the session changed during promotion; run it again and check the preview");
  }
  return result;
}

/**
 * The plan's items as stored, in batches (an item that was already in memory as it was stored then): a third
 * pass, so that `--json` can name the created and existing ids first without holding every item.
 */
export function forEachStored(
  store: MemoryStore,
  ...[ref, sel, plan, opts, onItem]: Parameters<typeof forEachItem>
): void {
  inBatches<MemoryItem>(
    (on) => forEachItem(ref, sel, plan, opts, on),
    (batch) => {
      for (const item of store.get(batch.map((i) => i.id))) onItem(item);
    },
  );
}

/** What `each` hands over, INSERT_BATCH at a time (the last batch shorter; none when it hands nothing). */
function inBatches<T>(each: (on: (item: T) => void) => void, onBatch: (batch: T[]) => void): void {
  let batch: T[] = [];
  each((item) => {
    batch.push(item);
    if (batch.length < INSERT_BATCH) return;
    onBatch(batch);
    batch = [];
  });
  if (batch.length > 0) onBatch(batch);
}
