// Reading Gemini's chat recording (`transcript_path`) from the hooks, a little at a time.
//
// The file is JSONL of upserts: a message is written again, same id, when its tool calls are attached, and
// `{"$set":{"messages":[...]}}` rewrites the history after a resume or compression. A reader keeps a cursor
// (how far it read, the message ids it already turned into events, bounded) in the adapter's state, so each
// hook reads only the lines written since the last one. What the hooks take from it: the token counts they
// lack (chat-usage.ts) and what the model said (chat-text.ts).
import { closeSync, constants, fstatSync } from "node:fs";
import { scanLines } from "../../core/archive/line-scan.ts";
import { openRegularSync } from "../../core/base/fsutil.ts";
import { isRecord } from "../shared.ts";

/** A chat file is small (it holds text, not tool output blobs); the bound keeps a hook fast on a huge one. */
export const MAX_CHAT_READ_BYTES = 32 * 1024 * 1024;
/** Message ids remembered per session: far more than one turn writes. */
export const SEEN_KEPT = 512;

export interface ChatCursor {
  path: string;
  offset: number;
  seen: string[];
}

export function loadChatCursor(raw: unknown): ChatCursor | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.path !== "string" || r.path.length > 4096) return undefined;
  if (typeof r.offset !== "number" || !Number.isSafeInteger(r.offset) || r.offset < 0) return undefined;
  const seen = Array.isArray(r.seen)
    ? r.seen.filter((s): s is string => typeof s === "string" && s.length <= 256)
    : [];
  return { path: r.path, offset: r.offset, seen: seen.slice(-SEEN_KEPT) };
}

/**
 * Calls `onLine` for each complete line of `path` written since `cursor` (all of it for another file or no
 * cursor), at most MAX_CHAT_READ_BYTES; the offset the next read starts from. undefined when the file cannot
 * be read (gone, not a regular file, a FIFO): the caller keeps its cursor.
 */
export function scanChatFile(
  path: string,
  cursor: ChatCursor | undefined,
  onLine: (line: Buffer) => void,
): number | undefined {
  const from = cursor?.path === path ? cursor.offset : 0;
  let fd: number;
  try {
    fd = openRegularSync(path, constants.O_RDONLY);
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    // A file that shrank was rewritten: read it again from the start (ids already seen stay seen).
    const start = from <= size ? from : 0;
    const end = Math.min(size, start + MAX_CHAT_READ_BYTES);
    const lineEnd = scanLines(fd, start, (line) => onLine(line.bytes), { end, completeOnly: true });
    return lineEnd === start && end < size ? end : lineEnd;
  } finally {
    closeSync(fd);
  }
}

/** The ids a cursor remembers, bounded, the newest kept. */
export function keptSeen(seen: Set<string>): string[] {
  return [...seen].slice(-SEEN_KEPT);
}

/**
 * Text of a message's content: a string (what Gemini CLI 0.61 writes for a model message), or parts of which
 * the text ones (thoughts left out) count. Also what `tapedeck import` reads (history-map.ts).
 */
export function chatText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const texts = content
    .filter(isRecord)
    .flatMap((p) => (typeof p.text === "string" && p.thought !== true ? [p.text] : []));
  return texts.length > 0 ? texts.join("\n") : undefined;
}
