// The shape of a memory item, its bounds and its id-independent constants: what the store and retrieval need,
// without the item builder and the redaction rules it loads (a prompt hook with retrieval on pays for every
// module it requires: the builder's redaction policy alone compiles its rules at load).

/** Bumped when the item format or the id derivation changes: a new version gives new ids, never a rewrite. */
export const MEMORY_SCHEMA_VERSION = 1 as const;
/** Small enough that a few items fit the retrieval budget (4 KiB by default, 8 KiB at most). */
export const MAX_BODY_BYTES = 4096;
export const MAX_TITLE_CHARS = 100;
export const TRUNCATED_MARK = "\n[… truncated]";

/** `exchange`: a prompt with the answer of its turn, one item (they are read together). */
export const ITEM_KINDS = ["exchange", "prompt", "answer", "tool_call", "compaction_summary"] as const;
export type MemoryKind = (typeof ITEM_KINDS)[number];

/** Which events of which session an item came from. */
export interface SourceSpan {
  provider: string;
  session_id: string;
  agent_id: string | null;
  seq_from: number;
  seq_to: number;
}

/** The span, copied field by field out of anything that holds one (a source, a stored row). */
export function sourceSpan(s: SourceSpan): SourceSpan {
  return {
    provider: s.provider,
    session_id: s.session_id,
    agent_id: s.agent_id,
    seq_from: s.seq_from,
    seq_to: s.seq_to,
  };
}

/** The span with the ids of its events and the checksum that ties it to the archive. */
export interface MemorySource extends SourceSpan {
  event_ids: string[];
  envelope_schema_version: number;
  /** sha256 of events.jsonl from byte 0 to the end of the promotion's last promoted line (see docs/memory.md). */
  archive_sha256: string;
  /** How many bytes of events.jsonl that checksum covers: what `memory verify` hashes again. */
  archive_bytes: number;
}

export interface MemoryItem {
  id: string;
  schema_version: typeof MEMORY_SCHEMA_VERSION;
  kind: MemoryKind;
  title: string;
  /** At most MAX_BODY_BYTES of UTF-8, redacted with the current policy. */
  body: string;
  /** The body was cut to fit (it then ends with TRUNCATED_MARK). */
  truncated: boolean;
  created_at: string;
  source: MemorySource;
  /** The label of the set it was promoted in (`promote --title`); null when none was given. */
  label?: string | null;
  /** When `memory edit` last changed its title or text; null when never. */
  edited_at?: string | null;
}

/** At most MAX_BODY_BYTES of UTF-8, cut on a character boundary, the cut marked. */
export function boundBody(text: string): { body: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= MAX_BODY_BYTES) return { body: text, truncated: false };
  const room = MAX_BODY_BYTES - Buffer.byteLength(TRUNCATED_MARK);
  return { body: cutUtf8(text, room) + TRUNCATED_MARK, truncated: true };
}

/** The longest prefix of `text` that is at most `maxBytes` of UTF-8 and ends on a whole character. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return text;
  let prefix = text.slice(0, maxBytes);
  // A high surrogate whose pair was sliced off would encode as U+FFFD.
  if (/[\ud800-\udbff]$/.test(prefix)) prefix = prefix.slice(0, -1);
  const buf = Buffer.from(prefix);
  let end = Math.min(maxBytes, buf.length);
  // Back off continuation bytes (10xxxxxx) to the lead byte, and drop it too: its sequence would be cut.
  if (end < buf.length && (buf[end]! & 0xc0) === 0x80) {
    while (end > 0 && (buf[end]! & 0xc0) === 0x80) end -= 1;
  }
  return buf.subarray(0, end).toString("utf8");
}
