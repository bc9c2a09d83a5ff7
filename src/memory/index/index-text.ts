// What of an event is searchable: the words a person would look for (the
// prompt, the answer, a tool's name, input and output), and separately the
// identifiers, paths and commands in them for the trigram table. The archive
// is already redacted and bounded; these bounds keep one huge tool output from
// dominating the index (an excerpt finds the event; `inspect` shows it whole).

import { injectionHeadline, injectionOf } from "../../core/ports/injection.ts";

/** A prompt or an answer is what people search for: kept almost whole. */
const MAX_TEXT_CHARS = 32 * 1024;
const MAX_INPUT_CHARS = 2 * 1024;
const MAX_OUTPUT_CHARS = 4 * 1024;
const MAX_OTHER_CHARS = 2 * 1024;
const MAX_IDENT_CHARS = 4 * 1024;
/** Depth and key bounds for walking a payload: a deep planted object costs no more than a flat one. */
const MAX_DEPTH = 6;
const MAX_VALUES = 200;

/** The snippet highlighter's markers (private-use characters); any in recorded text are replaced first. */
export const MARK_OPEN = "\ue000";
export const MARK_CLOSE = "\ue001";
const MARKS = /[\ue000\ue001]/g;

export interface SearchableText {
  body: string;
  idents: string;
}

const TOOL_KINDS = new Set(["tool_call", "tool_result", "tool_error"]);

export function searchableText(kind: string, payload: unknown): SearchableText {
  const p =
    payload !== null && typeof payload === "object" && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : {};
  let body: string;
  let input = "";
  const injection = injectionOf({ kind, payload: p });
  // An injection carries copies of promoted items: searching them would land inside tapedeck's own addition
  // instead of where the words were said. Its label and item ids are searchable; its text is not.
  if (injection) body = `${injectionHeadline(injection)}\n${injection.item_ids.join(" ")}`;
  else if (kind === "user_prompt") body = bounded(str(p.prompt), MAX_TEXT_CHARS);
  else if (kind === "assistant_message") body = bounded(str(p.text), MAX_TEXT_CHARS);
  else if (TOOL_KINDS.has(kind)) {
    input = flatten(p.tool_input, MAX_INPUT_CHARS);
    const output = flatten(p.tool_response ?? p.error, MAX_OUTPUT_CHARS);
    body = [str(p.tool_name), input, output].filter((s) => s !== "").join("\n");
  } else if (kind === "compaction") {
    body = bounded(str(p.compact_summary) || str(p.custom_instructions), MAX_TEXT_CHARS);
  } else if (kind === "turn_usage") body = "";
  else body = flatten(p, MAX_OTHER_CHARS);
  body = body.replace(MARKS, "\ufffd");
  return { body, idents: identifiers(`${str(p.tool_name)}\n${input}\n${body}`) };
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function bounded(s: string, max: number): string {
  if (s.length <= max) return s;
  // Never split a surrogate pair: half of one is not text.
  const cut = /[\ud800-\udbff]/.test(s[max - 1]!) ? max - 1 : max;
  return s.slice(0, cut);
}

/**
 * The string and number values of a JSON value, one per line, in order, within `max` characters. Not its
 * booleans: a tool response's flags (Claude's `interrupted`, `isImage`, `noOutputExpected`) made snippets of
 * `false false false`, and nobody searches for a flag's value.
 */
function flatten(value: unknown, max: number): string {
  const out: string[] = [];
  let length = 0;
  let count = 0;
  const walk = (v: unknown, depth: number): void => {
    if (length >= max || count >= MAX_VALUES || depth > MAX_DEPTH) return;
    if (typeof v === "string" || typeof v === "number") {
      const s = bounded(String(v), max - length);
      out.push(s);
      length += s.length + 1;
      count += 1;
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
    } else if (v !== null && typeof v === "object") {
      for (const x of Object.values(v)) walk(x, depth + 1);
    }
  };
  walk(value, 0);
  return out.join("\n");
}

// Split on spaces, quotes and brackets only: what is left between them may hold `.`, `/`, `_`, `-`, `:`, `=`.
const SPLIT = /[\s"'`()[\]{}<>,;|&]+/;
/**
 * What sends a token to the trigram table: a character unicode61 splits on that identifiers, paths and flags
 * are made of, or a script written without spaces (Chinese, Japanese), where unicode61 makes a whole clause one
 * token and a word inside it is only found as a substring.
 */
const JOINERS = /[._/\\:=@$#~+-]/;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const NON_ASCII = /[^\x00-\x7f]/;

function forTrigrams(token: string): boolean {
  return JOINERS.test(token) || (NON_ASCII.test(token) && UNSPACED.test(token));
}
const TRAILING = new Set([".", ":", "!", "?"]);

/**
 * Tokens holding a character the word tokenizer splits on (a path, a snake_case name, a flag), unique, bounded.
 * Plain tests per token, no regex replace: this ran at 85 MB/s with one, the slowest step of an index build.
 */
export function identifiers(text: string): string {
  const seen = new Set<string>();
  let length = 0;
  for (const raw of text.split(SPLIT)) {
    if (raw.length < 3 || !forTrigrams(raw)) continue;
    // A sentence's trailing period or colon is not part of the identifier before it.
    let end = raw.length;
    while (end > 0 && TRAILING.has(raw[end - 1]!)) end -= 1;
    const token = end === raw.length ? raw : raw.slice(0, end);
    if (token.length < 3 || seen.has(token) || !forTrigrams(token)) continue;
    if (length + token.length + 1 > MAX_IDENT_CHARS) break;
    seen.add(token);
    length += token.length + 1;
  }
  return [...seen].join(" ");
}
