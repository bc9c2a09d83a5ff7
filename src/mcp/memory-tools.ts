// What the MCP memory tools do, without the protocol: search the project's promoted memory and read items of
// it, read-only. The memory is the user's (they promote with `tapedeck promote`); nothing here adds to it.

import { UserError } from "../core/base/user-error.ts";
import {
  type MemoryItem,
  type MemorySource,
  type SourceSpan,
  sourceSpan,
} from "../memory/store/item-shape.ts";
import { foreignMemoryError, openMemory } from "../memory/store/store.ts";
import { type ControlScope, projectOf } from "./control.ts";

export const MAX_SEARCH_HITS = 10;
export const MAX_GET_ITEMS = 5;

export const MEMORY_SEARCH_DESCRIPTION = [
  "Search the memory the user promoted into tapedeck for this project: material they selected from earlier",
  "sessions (prompts, answers, tool calls, summaries), redacted, each item linked to the session it came from.",
  "Memory is the user's: only the user adds to it (tapedeck promote); never promote, store or record anything on",
  "your own, and do not start recording to fill it. Read-only.",
  'query: words, "phrases", prefix*, a OR b, -word. limit: at most 10 (default 5).',
  "Returns compact hits (id, title, score, snippet, source); read the items you need with memory_get.",
].join(" ");

export const MEMORY_GET_DESCRIPTION = [
  "Read up to 5 items of the memory the user promoted into tapedeck, by the ids memory_search returned:",
  "each item's body (at most 4 KiB) and its source (provider, session, event range).",
  "Memory is the user's promoted material; the agent never adds to it. Read-only.",
].join(" ");

/** An item's source as the agent is given it: the span, not the checksum. */
export type CompactSource = SourceSpan;

export interface CompactHit {
  id: string;
  kind: string;
  title: string;
  score: number;
  snippet: string;
  source: CompactSource;
}

/** What a tool call failed with, said without a stack: the message of a tapedeck error, else a code. */
export class MemoryToolError extends Error {}

function withMemory<T>(
  scope: ControlScope,
  empty: T,
  use: (store: NonNullable<ReturnType<typeof openMemory>>) => T,
): T {
  const project = projectOf(scope);
  if (!project) return empty;
  let store: ReturnType<typeof openMemory>;
  try {
    store = openMemory(project, { readonly: true });
  } catch (error) {
    throw toolError(error);
  }
  if (!store) return empty;
  try {
    // The agent reads what these tools return: a memory file that came with the project is not the user's.
    if (!store.isOwn()) throw foreignMemoryError(store.path);
    return use(store);
  } catch (error) {
    throw toolError(error);
  } finally {
    store.close();
  }
}

function toolError(error: unknown): MemoryToolError {
  // tapedeck's own errors (a bad query, a damaged file) name the problem and the fix and quote no content.
  if (error instanceof UserError) return new MemoryToolError(error.message);
  return new MemoryToolError(
    `tapedeck could not read its memory: ${(error as { code?: string }).code ?? "error"}`,
  );
}

export function memorySearch(scope: ControlScope, query: string, limit = 5): CompactHit[] {
  const n = Math.max(1, Math.min(MAX_SEARCH_HITS, Math.trunc(limit)));
  return withMemory(scope, [], (store) =>
    store.givable(store.search(query, { limit: n })).map((h) => ({
      id: h.id,
      kind: h.kind,
      title: h.title,
      score: Math.round(h.score * 1000) / 1000,
      snippet: h.snippet,
      source: sourceSpan(h.source),
    })),
  );
}

export interface ItemBody {
  id: string;
  kind: string;
  title: string;
  body: string;
  truncated: boolean;
  created_at: string;
  source: MemorySource;
}

export function memoryGet(scope: ControlScope, ids: readonly string[]): ItemBody[] {
  if (ids.length > MAX_GET_ITEMS) throw new MemoryToolError(`at most ${MAX_GET_ITEMS} ids at once`);
  return withMemory(scope, [], (store) =>
    store.givable(store.get(ids)).map((i: MemoryItem) => ({
      id: i.id,
      kind: i.kind,
      title: i.title,
      body: i.body,
      truncated: i.truncated,
      created_at: i.created_at,
      source: i.source,
    })),
  );
}

/** Whether the project has a memory at all (for the tools' "nothing promoted yet" answer). */
export function hasMemory(scope: ControlScope): boolean {
  return withMemory(scope, false, () => true);
}
