// Memory items as promotion writes them, for tests that fill a project's memory directly: the fields a test
// does not care about hold one fixed, valid value.

import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MemoryItem, SourceEvent } from "../../src/memory/store/items.ts";
import { MEMORY_SCHEMA_VERSION } from "../../src/memory/store/items.ts";
import { memoryPath, openMemory } from "../../src/memory/store/store.ts";

export interface ItemShape {
  kind?: MemoryItem["kind"];
  session_id?: string;
  /** The item's last source sequence: n + 1 unless given. */
  seq_to?: (n: number) => number;
  event_ids?: (n: number) => string[];
}

/** Item number `n` (its id is m1-0000000n), a Claude answer unless `shape` says otherwise. */
export function memoryItem(n: number, title: string, body: string, shape: ItemShape = {}): MemoryItem {
  return {
    id: `m1-${String(n).padStart(8, "0")}`,
    schema_version: MEMORY_SCHEMA_VERSION,
    kind: shape.kind ?? "answer",
    title,
    body,
    truncated: false,
    created_at: "2026-12-01T10:00:00.000Z",
    source: {
      provider: "claude",
      session_id: shape.session_id ?? "claude:s1",
      agent_id: null,
      seq_from: n,
      seq_to: shape.seq_to ? shape.seq_to(n) : n + 1,
      event_ids: shape.event_ids ? shape.event_ids(n) : [`assistant_message:${n}`],
      envelope_schema_version: 1,
      archive_sha256: "0".repeat(64),
      archive_bytes: 100,
    },
  };
}

/** Item `id` with every field set (a Claude prompt, never edited), but for what `over` and `source` give. */
export function storedItem(
  id: string,
  over: Partial<MemoryItem> = {},
  source: Partial<MemoryItem["source"]> = {},
): MemoryItem {
  return {
    id,
    schema_version: 1,
    kind: "prompt",
    title: `title of ${id}`,
    body: `body of ${id}`,
    truncated: false,
    created_at: "2026-01-01T00:00:00.000Z",
    label: null,
    edited_at: null,
    source: {
      provider: "claude",
      session_id: "claude:abc-123",
      agent_id: null,
      seq_from: 1,
      seq_to: 1,
      event_ids: [`e-${id}`],
      envelope_schema_version: 1,
      archive_sha256: "0".repeat(64),
      archive_bytes: 100,
      ...source,
    },
    ...over,
  };
}

/** Numbered items, 1, 2, 3… in the order made: `item(title, body, session?)`. */
export function itemMaker(
  shape: ItemShape = {},
): (title: string, body: string, session?: string) => MemoryItem {
  let n = 0;
  return (title, body, session) => {
    n += 1;
    return memoryItem(n, title, body, { ...shape, ...(session ? { session_id: session } : {}) });
  };
}

/** `items` inserted into the memory of the project at `root`; the root. */
export function storeMemory(root: string, items: MemoryItem[]): string {
  const store = openMemory(root)!;
  store.insert(items);
  store.close();
  return root;
}

/** The project's memory.sqlite made a link to a file `name` that holds `content`: the target's path. */
export function linkedMemory(root: string, name: string, content: string): string {
  mkdirSync(join(root, ".tapedeck"), { mode: 0o700 });
  const target = join(root, name);
  writeFileSync(target, content);
  symlinkSync(target, memoryPath(root));
  return target;
}

/** An archive event as promotion reads it: number `sequence` of Claude session s1, in turn t1 unless `extra` says. */
export function sourceEvent(
  sequence: number,
  kind: string,
  payload: Record<string, unknown>,
  extra: Partial<SourceEvent> = {},
): SourceEvent {
  return {
    schema_version: 1,
    sequence,
    event_id: `${kind}-${sequence}`,
    kind,
    provider: "claude",
    session_id: "claude:s1",
    turn_id: "t1",
    payload,
    ...extra,
  };
}

/** The project's memory store, open; a test that finds none has failed already. */
export function openStore(root: string) {
  const s = openMemory(root);
  if (!s) throw new Error("no store");
  return s;
}
