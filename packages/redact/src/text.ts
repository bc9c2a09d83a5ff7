// Redacting one text: omission first, then the scan, a second scan through a decoded view of escaped
// punctuation, and the project's own rules from `.tapedeck/redaction.json` (loaded and validated by
// ./rules-file.ts): extra patterns, and allow-listed literals that are never redacted.
import { type AgentView, grepView, lineView, toOriginal } from "./agent-view.ts";
import { bareAwsSecret, bareAwsSecrets } from "./aws.ts";
import { omission } from "./omission.ts";
import type { Span } from "./rule.ts";
import { applySpans, mergeSpans, scan } from "./scan.ts";
import { scanState } from "./scan-state.ts";
import type { Explanation, RedactionRules } from "./types.ts";

// Go and .NET encoders write `"` as `\u0022` (and `=`, `&`, `<`, `>` alike); PHP writes `/` as `\/`.
// Such text is scanned a second time through a decoded view, mapped back onto the original.
// HTML exports and pages escape quotes as entities (`&quot;api_key&quot;: &quot;...&quot;`).
// JSON in a URL's query or a form body is percent-encoded (`%7B%22api_key%22%3A%22…`).
const ESCAPED_PUNCT =
  /\\u00(?:22|27|3[dDaAcCeE]|26)|\\\/|&(?:quot|#34|#39|#x2[27]|apos);|%(?:2[27cC]|3[aAdD]|7[bBdD])/g;
const HTML_QUOTE = /^&(?:quot|#34|#39|#x2[27]|apos);/;
const ENTITY: Record<string, string> = {
  "&quot;": '"',
  "&#34;": '"',
  "&#39;": "'",
  "&#x22;": '"',
  "&#x27;": "'",
  "&apos;": "'",
};

/**
 * Whether an entity of a quote is in `text`. Its `&`s are found at memchr speed and the entity read after
 * each: a regex over the whole of every text with an `&` (shell's `&&`, a URL's query) cost 0.2 ms a MB,
 * this a tenth of it.
 */
function hasQuoteEntity(text: string): boolean {
  for (let i = text.indexOf("&"); i >= 0; i = text.indexOf("&", i + 1)) {
    const c = text.charCodeAt(i + 1);
    if ((c === 113 || c === 35 || c === 97) && HTML_QUOTE.test(text.slice(i, i + 7))) return true;
  }
  return false;
}

function decodedViewSpans(text: string): Span[] | null {
  // Both escapes start with a backslash, rare outside escaped text and found at memchr speed; a search for
  // `:\/\/` stopped at every colon.
  const escaped = text.includes("\\") && (text.includes("\\u00") || text.includes(":\\/\\/"));
  if (!escaped && !text.includes("%22") && !hasQuoteEntity(text)) return null;
  const map: number[] = [];
  let view = "";
  let pos = 0;
  ESCAPED_PUNCT.lastIndex = 0;
  for (let m = ESCAPED_PUNCT.exec(text); m !== null; m = ESCAPED_PUNCT.exec(text)) {
    for (let i = pos; i < m.index; i++) map.push(i);
    view += text.slice(pos, m.index);
    map.push(m.index);
    const hex = m[0].charCodeAt(0) === 37 ? m[0].slice(1) : m[0].slice(2);
    view += m[0] === "\\/" ? "/" : (ENTITY[m[0]] ?? String.fromCharCode(Number.parseInt(hex, 16)));
    pos = m.index + m[0].length;
  }
  if (pos === 0) return null;
  for (let i = pos; i < text.length; i++) map.push(i);
  map.push(text.length);
  view += text.slice(pos);
  const spans = scan(view, true);
  if (spans === null) return null;
  return spans.map((sp) => ({ ...sp, s: map[sp.s] as number, e: map[sp.e] as number }));
}

/** The scan and the decoded view of one text. */
function textSpans(text: string): Span[] | null {
  const spans = scan(text, true);
  const decoded = decodedViewSpans(text);
  if (decoded === null) return spans;
  return spans === null ? decoded : spans.concat(decoded);
}

/** The text's spans, read through the line prefixes agents add (./agent-view.ts) where it has them. */
function viewSpans(text: string, view: AgentView | null): Span[] | null {
  const base = view?.alone === true ? view.text : text;
  let spans = scan(base, true);
  const grep = scanState.grepLine ? grepView(text, view?.alone === true ? view : null) : null;
  spans = union(spans, decodedViewSpans(base));
  if (view !== null && spans !== null && view.alone) spans = toOriginal(view, spans);
  if (view !== null && !view.alone) spans = union(spans, mapped(view));
  if (grep !== null) spans = union(spans, mapped(grep));
  return spans;
}

function mapped(view: AgentView): Span[] | null {
  const spans = textSpans(view.text);
  return spans === null ? null : toOriginal(view, spans);
}

function union(a: Span[] | null, b: Span[] | null): Span[] | null {
  if (a === null || b === null) return a ?? b;
  return a.concat(b);
}

function allSpans(
  text: string,
  view: AgentView | null,
  extra: Span[] | undefined,
  rules: RedactionRules | undefined,
): Span[] | null {
  let spans = viewSpans(text, view);
  const bare = text.length <= 64 ? bareAwsSecret(text) : null;
  if (bare !== null) spans = spans === null ? [bare] : [...spans, bare];
  // Once a text, not once a view: the agent's prefixes and JSON's escapes end a run as any other character
  // does (a `\\n` in front is read through), and a second pass over a decoded copy cost 0.5-1 ms a MB.
  if (text.length >= 40) {
    const runs: Span[] = [];
    bareAwsSecrets(text, runs);
    if (runs.length > 0) spans = spans === null ? runs : spans.concat(runs);
  }
  if (extra !== undefined) spans = spans === null ? extra : spans.concat(extra);
  if (rules === undefined) return spans;
  for (const up of rules.patterns) {
    const re = up.re;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      const g = m.indices?.[1];
      const s = g ? g[0] : m.index;
      const e = g ? g[1] : m.index + m[0].length;
      if (e > s) {
        spans ??= [];
        spans.push({ s, e, kind: up.name, p: 3 });
      }
      if (m[0].length === 0) re.lastIndex++;
    }
  }
  if (spans !== null && rules.allow.size > 0) {
    spans = spans.filter((sp) => !rules.allow.has(text.slice(sp.s, sp.e)));
    if (spans.length === 0) spans = null;
  }
  return spans;
}

/** An environment dump or process table, also as Read or `cat -n` shows it. */
function omissionOf(text: string, view: AgentView | null): string | null {
  return omission(text) ?? (view?.alone === true ? omission(view.text) : null);
}

export function explainText(text: string, rules?: RedactionRules): Explanation {
  const bytes = Buffer.byteLength(text);
  const view = text.length < 6 ? null : lineView(text);
  const omit = text.length < 6 ? null : omissionOf(text, view);
  if (omit !== null) return { omitted: omit, bytes, hits: [] };
  const spans = text.length < 6 ? null : allSpans(text, view, undefined, rules);
  const hits: Explanation["hits"] = [];
  let pos = 0;
  let byte = 0;
  for (const r of spans === null ? [] : mergeSpans(spans)) {
    byte += Buffer.byteLength(text.slice(pos, r.s));
    const length = Buffer.byteLength(text.slice(r.s, r.e));
    hits.push({ kind: r.kind, offset: byte, length });
    byte += length;
    pos = r.e;
  }
  return { bytes, hits };
}

export function redactText(text: string, rules?: RedactionRules): { text: string; kinds: string[] } {
  return redactTextWith(text, undefined, rules);
}

export function redactTextWith(
  text: string,
  extra: Span[] | undefined,
  rules: RedactionRules | undefined,
): { text: string; kinds: string[] } {
  if (text.length < 6 && extra === undefined && rules === undefined) return { text, kinds: [] };
  const view = lineView(text);
  const omit = omissionOf(text, view);
  if (omit !== null) return { text: `[OMITTED:${omit}]`, kinds: [`omitted:${omit}`] };
  const spans = allSpans(text, view, extra, rules);
  if (spans === null) return { text, kinds: [] };
  const kinds: string[] = [];
  return { text: applySpans(text, spans, kinds), kinds };
}
