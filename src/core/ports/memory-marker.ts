/**
 * The marker around every piece of memory tapedeck hands to an agent as added context.
 *
 * Why a marker at all: clients echo added context back (Claude's transcript carries it, a user may paste
 * it), and text tapedeck injected must never be recorded as the user's words nor promoted into memory a
 * second time. Normalizers and promotion call `stripInjected` on anything that might carry it.
 *
 * Imports nothing: the hook hot path and the normalizers load it.
 */

export const MARKER_NAME = "tapedeck-memory";

// Gemini CLI escapes `<` and `>` (only those) in the hook context it passes on and keeps in its chat file, so
// the escaped spelling is a marker too. Attributes never hold `&` or angle brackets (ids are hashes).
const LT = "(?:<|&lt;)";
const GT = "(?:>|&gt;)";
const OPEN = `${LT}tapedeck-memory(?:\\s[^<>&]*)?${GT}`;
const CLOSE = `${LT}\\/tapedeck-memory\\s*${GT}`;
const OPEN_RE = new RegExp(OPEN, "i");
const CLOSE_RE = new RegExp(CLOSE, "gi");
/** One whole block (lazy body), or an open tag whose close never came (a client cut the context short). */
const BLOCK_RE = new RegExp(`${OPEN}[\\s\\S]*?(?:${CLOSE}|$)[ \\t]*(?:\\r?\\n)?`, "gi");
const PARSE_RE = new RegExp(`${LT}tapedeck-memory(\\s[^<>&]*)?${GT}([\\s\\S]*?)(?:${CLOSE}|$)`, "gi");
/** Item ids are hashes; anything else is dropped so an id can never break out of the attribute. */
const ID_RE = /^[A-Za-z0-9_.:-]{1,128}$/;

export interface InjectedBlock {
  ids: string[];
  body: string;
}

/** Neutralizes a tag inside a memory body so that it cannot end (or open) the block early. */
function defuse(body: string): string {
  return body.replace(/(<|&lt;)(\/?tapedeck-memory)/gi, "$1 $2");
}

export function openTag(ids: readonly string[]): string {
  const safe = ids.filter((id) => ID_RE.test(id));
  return `<${MARKER_NAME} items="${safe.join(",")}">`;
}

export const CLOSE_TAG = `</${MARKER_NAME}>`;

/** Wraps `body` in the marker, with the ids of the memory items it came from. */
export function wrapInjected(body: string, ids: readonly string[]): string {
  return `${openTag(ids)}\n${defuse(body)}\n${CLOSE_TAG}`;
}

/** The bytes `wrapInjected` adds around a body with these ids (for budgeting before wrapping). */
export function markerOverhead(ids: readonly string[]): number {
  return Buffer.byteLength(`${openTag(ids)}\n\n${CLOSE_TAG}`);
}

export function hasInjected(text: string): boolean {
  return OPEN_RE.test(text);
}

/**
 * Removes every marker block (and a stray close tag) from `text`. An unterminated block is removed to the
 * end: Claude Code cuts added context past about 10 KB, so an echo may have lost its close tag, and
 * keeping the rest would record injected memory as the user's words.
 */
export function stripInjected(text: string): string {
  if (!/tapedeck-memory/i.test(text)) return text;
  return text.replace(BLOCK_RE, "").replace(CLOSE_RE, "");
}

/** The blocks in `text` with their item ids (for a record of what an echo carried). */
export function parseInjected(text: string): InjectedBlock[] {
  const out: InjectedBlock[] = [];
  for (const m of text.matchAll(PARSE_RE)) {
    const attr = /\bitems="([^"]*)"/i.exec(m[1] ?? "");
    const ids = (attr?.[1] ?? "").split(",").filter((id) => ID_RE.test(id));
    out.push({ ids, body: (m[2] ?? "").replace(/^\r?\n/, "").replace(/\r?\n$/, "") });
  }
  return out;
}
