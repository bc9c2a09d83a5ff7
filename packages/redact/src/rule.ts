// A rule is a sticky regex tried at one position, and a span what it found. Every scanner pushes spans;
// the scan merges them at the end (./scan.ts).
import { isSampleToken } from "./placeholders.ts";

export interface Span {
  s: number;
  e: number;
  kind: string;
  /** Provider rules outrank key-based ones when spans overlap, for a more useful kind. */
  p: number;
}

export interface Rule {
  kind: string;
  /** Sticky regex anchored at the token start; when it has a group 1, only that group is secret. */
  re: RegExp;
  ok?: (secret: string) => boolean;
  /** How far before its anchor the token starts. */
  back?: number;
}

/**
 * Agent traffic is full of JSON-escaped text, where a token often follows a
 * literal `\n`. Every one-character boundary `(?<![...])` is therefore widened
 * so that a letter right after a backslash still counts as a boundary.
 */
export function escapeAware(src: string): string {
  return src.replaceAll("(?<![", "(?<!(?<!\\\\)[");
}

export function rule(kind: string, src: string, ok?: (secret: string) => boolean): Rule {
  // Indices are only needed to locate a group; compute them only for rules that have one.
  const flags = /\((?!\?)/.test(src.replace(/\\\\|\\\(|\[[^\]]*\]/g, "")) ? "dy" : "y";
  return { kind, re: new RegExp(escapeAware(src), flags), ok };
}

export function tryRule(r: Rule, text: string, start: number): Span | null {
  const from = start - (r.back ?? 0);
  if (from < 0) return null;
  r.re.lastIndex = from;
  const m = r.re.exec(text);
  if (m === null) return null;
  const idx = m.indices?.[1];
  const s = idx ? idx[0] : from;
  const e = idx ? idx[1] : from + m[0].length;
  const secret = text.slice(s, e);
  if ((r.ok && !r.ok(secret)) || isSampleToken(secret)) return null;
  return { s, e, kind: r.kind, p: 2 };
}

export function tryRules(rules: Rule[] | undefined, text: string, start: number): Span | null {
  if (rules === undefined) return null;
  for (const r of rules) {
    const hit = tryRule(r, text, start);
    if (hit !== null) return hit;
  }
  return null;
}

export function push(spans: Span[], hit: Span | null, miss: number, resume?: number): number {
  if (hit === null) return miss;
  spans.push(hit);
  return resume ?? hit.e;
}
