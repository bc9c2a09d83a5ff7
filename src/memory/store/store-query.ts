// The SQL of memory search's filters and the snippets of its hits: the part of the store that speaks the query
// language (query.ts) rather than the file's layout.

import type { ParsedQuery } from "../index/query.ts";
import type { MemoryKind } from "./item-shape.ts";

/** The event kinds a `kind:` filter names (the query language's), as the item kinds they become. */
const KIND_FILTER: Record<string, MemoryKind[]> = {
  user_prompt: ["prompt", "exchange"],
  assistant_message: ["answer", "exchange"],
  tool_call: ["tool_call"],
  tool_result: ["tool_call"],
  tool_error: ["tool_call"],
  compaction: ["compaction_summary"],
};

export interface Filter {
  sql: string;
  params: unknown[];
}

/** SQL for the query's filters; null when a kind filter names only kinds memory never holds. */
export function filterSql(filters: ParsedQuery["filters"]): Filter | null {
  let sql = "";
  const params: unknown[] = [];
  if (filters.kinds) {
    const kinds = [...new Set(filters.kinds.flatMap((k) => KIND_FILTER[k] ?? []))];
    if (kinds.length === 0) return null;
    sql += " AND i.kind IN (SELECT value FROM json_each(?))";
    params.push(JSON.stringify(kinds));
  }
  if (filters.providers) {
    sql += " AND i.provider IN (SELECT value FROM json_each(?))";
    params.push(JSON.stringify(filters.providers));
  }
  if (filters.sessions) {
    const s = sessionFilter(filters.sessions);
    sql += s.sql;
    params.push(...s.params);
  }
  return { sql, params };
}

/** `claude:abc`, `abc` (the provider's id) or a prefix of either. */
export function sessionFilter(sessions: readonly string[]): Filter {
  const alternatives: string[] = [];
  const params: unknown[] = [];
  for (const s of sessions) {
    const like = `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    alternatives.push("i.session_id LIKE ? ESCAPE '\\'", "i.session_id LIKE ? ESCAPE '\\'");
    params.push(like, `%:${like}`);
  }
  return { sql: ` AND (${alternatives.join(" OR ")})`, params };
}

export function clampLimit(limit: number, max: number): number {
  if (!Number.isFinite(limit)) return max;
  return Math.min(max, Math.max(1, Math.trunc(limit)));
}

const SNIPPET_CHARS = 160;

/** A window of the body around the first term found (case-insensitively), the matches marked « ». */
export function fragmentSnippet(body: string, terms: string[]): string {
  const lower = body.toLowerCase();
  const needles = terms.map((t) => t.toLowerCase()).filter((t) => t !== "");
  const found = needles.map((t) => lower.indexOf(t)).filter((i) => i >= 0);
  const start = Math.max(0, (found.length > 0 ? Math.min(...found) : 0) - Math.floor(SNIPPET_CHARS / 3));
  const end = Math.min(body.length, start + SNIPPET_CHARS);
  let out = "";
  let at = start;
  const window = lower.slice(0, end);
  for (;;) {
    let next = -1;
    let len = 0;
    for (const n of needles) {
      const i = window.indexOf(n, at);
      if (i >= 0 && i + n.length <= end && (next < 0 || i < next)) {
        next = i;
        len = n.length;
      }
    }
    if (next < 0) break;
    out += `${body.slice(at, next)}«${body.slice(next, next + len)}»`;
    at = next + len;
  }
  return `${start > 0 ? "…" : ""}${out}${body.slice(at, end)}${end < body.length ? "…" : ""}`;
}

export function headOf(body: string): string {
  const flat = body.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 159)}…` : flat;
}
