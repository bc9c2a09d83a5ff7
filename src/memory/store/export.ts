// `tapedeck memory export`: every item, oldest first, as JSONL (one item per line, the store's own shape) or
// Markdown (for reading and review). Streamed: a large memory is never held whole. Bodies are already
// redacted and bounded; the Markdown fence is chosen per body so no body can end it early.
import { printableJson, printableText } from "../../core/base/printable.ts";
import type { MemoryItem } from "./items.ts";
import type { MemoryStore } from "./store.ts";

export type ExportFormat = "jsonl" | "md";

export function exportMemory(
  store: MemoryStore,
  format: ExportFormat,
  write: (text: string) => void,
): number {
  let n = 0;
  if (format === "md") write("# tapedeck memory\n\n");
  for (const item of store.iterate()) {
    // Markdown is read on a terminal or in an editor: no escape sequence or bidi control from a body steers it.
    write(format === "jsonl" ? jsonLine(item) : printableText(markdown(item)));
    n += 1;
  }
  if (format === "md" && n === 0) write("No promoted items.\n");
  return n;
}

/** One line: JSON escapes every newline, and the terminal-unsafe characters printableJson escapes too. */
function jsonLine(item: MemoryItem): string {
  return `${printableJson(item).replace(/\n\s*/g, "")}\n`;
}

function markdown(item: MemoryItem): string {
  const s = item.source;
  const seq = s.seq_from === s.seq_to ? `${s.seq_from}` : `${s.seq_from}-${s.seq_to}`;
  const fence = fenceFor(item.body);
  return (
    `## ${oneLine(item.title)}\n\n` +
    `- id: \`${item.id}\`\n` +
    `- kind: ${item.kind}${item.truncated ? " (cut to 4 KiB)" : ""}\n` +
    `- source: ${oneLine(s.provider)} session \`${oneLine(s.session_id)}\`, events ${seq}` +
    `${s.agent_id ? `, agent \`${oneLine(s.agent_id)}\`` : ""}\n` +
    `- archive: sha256 ${s.archive_sha256} of the first ${s.archive_bytes} bytes (envelope v${s.envelope_schema_version})\n` +
    `- promoted: ${item.created_at}\n\n` +
    `${fence}text\n${item.body}\n${fence}\n\n`
  );
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, " ");
}

/** Three backticks, or one more than the longest run of them in the body. */
function fenceFor(body: string): string {
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return "`".repeat(Math.max(3, longest + 1));
}
