// Structured values: a payload walked without recursion (hook payloads nest as deep as they like),
// keys and strings redacted, a secret-keyed value replaced whole, secrets split across an array found.
import { keyKind, splitWords, weakKeyKind } from "./keys.ts";
import { isPlaceholder, placeholderFor } from "./placeholders.ts";
import { printedOutput, printsSecret } from "./printed.ts";
import type { Span } from "./rule.ts";
import { applySpans, scan } from "./scan.ts";
import { looksGenerated } from "./split.ts";
import { redactTextWith } from "./text.ts";
import type { RedactionRules, RedactResult } from "./types.ts";

// Arrays of short strings are where split secrets hide in structured payloads
// (`["ghp_abc", "def..."]`, argv lists, content parts). Longer arrays are prose or data.
const MAX_JOIN_PART = 1024;
const MAX_JOIN_TOTAL = 65536;

/**
 * Scans the strings of an array joined end to end, and returns for each element the spans
 * of secrets that only exist across elements. One extra scan of the joined text: linear.
 */
function acrossElements(arr: unknown[]): Map<number, Span[]> | null {
  let total = 0;
  let strings = 0;
  for (const v of arr) {
    if (typeof v !== "string") continue;
    if (v.length > MAX_JOIN_PART) return null;
    total += v.length;
    strings++;
  }
  if (strings < 2 || total > MAX_JOIN_TOTAL) return null;
  const starts: number[] = [];
  let joined = "";
  for (const v of arr) {
    starts.push(joined.length);
    if (typeof v === "string") joined += v;
  }
  const spans = scan(joined, true);
  if (spans === null) return null;
  const out = new Map<number, Span[]>();
  for (const sp of spans) {
    // Only spans that cross an element boundary are new; the others each element finds itself.
    let i = 0;
    while (i + 1 < starts.length && (starts[i + 1] as number) <= sp.s) i++;
    if (sp.e <= (starts[i + 1] ?? Number.POSITIVE_INFINITY)) continue;
    for (let j = i; j < arr.length && (starts[j] as number) < sp.e; j++) {
      const v = arr[j];
      if (typeof v !== "string" || v.length === 0) continue;
      const base = starts[j] as number;
      const s0 = Math.max(sp.s, base) - base;
      const e0 = Math.min(sp.e, base + v.length) - base;
      if (s0 >= e0) continue;
      // A token swallows whatever token characters follow it; a neighbour that does not look
      // generated (`"ok"`, `"--verbose"`) is where the secret really ended.
      if (j > i && !looksGenerated(v.slice(s0, e0))) break;
      const list = out.get(j) ?? [];
      list.push({ s: s0, e: e0, kind: sp.kind, p: sp.p });
      out.set(j, list);
    }
  }
  return out.size > 0 ? out : null;
}

/** Keys get the value patterns only: a key never holds `KEY=value` syntax worth parsing. */
function redactKeyText(key: string, kinds: string[]): string {
  if (key.length < 16) return key;
  const spans = scan(key, false);
  return spans === null ? key : applySpans(key, spans, kinds);
}

const IDENT_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function childPath(path: string, key: string): string {
  return IDENT_KEY.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

// A tool call's record: its command (`tool_input.command` and the like) and the output fields that say
// what the command printed. Provider-neutral: the names every hook and transcript shape uses.
const OUTPUT_KEYS = new Set([
  "stdout",
  "output",
  "tool_response",
  "llmContent",
  "returnDisplay",
  "content",
  "result",
]);

function commandOf(rec: Record<string, unknown>): string | undefined {
  for (const k of ["command", "cmd"]) if (typeof rec[k] === "string") return rec[k] as string;
  for (const k of ["tool_input", "input", "args", "arguments"]) {
    const v = rec[k];
    if (v !== null && typeof v === "object" && typeof (v as { command?: unknown }).command === "string")
      return (v as { command: string }).command;
  }
  return undefined;
}

/** Spans of a printed secret in an output string (./printed.ts), merged with any split-secret spans. */
function withPrinted(src: string, extra: Span[] | undefined): Span[] | undefined {
  const spans: Span[] = [];
  printedOutput(src, 0, spans);
  if (spans.length === 0) return extra;
  return extra === undefined ? spans : extra.concat(spans);
}

interface Frame {
  src: unknown;
  /** Depth left below an object whose command prints a secret; its output fields are that secret. */
  printed?: number;
  /** Spans of a secret split across this string and its neighbours in an array. */
  extra?: Span[];
  parent: Record<string, unknown> | unknown[];
  key: string | number;
  path: string;
  /** Kinds found in the object key itself; the path is then already a redaction. */
  keyKinds?: string[];
  /** The whole value is replaced, because its key is secret-ish. */
  mask?: string;
  maskKind?: string;
}

function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** What a secret-keyed value becomes, or undefined when it is kept (booleans, null, placeholders). */
function redactKeyedValue(kind: string, key: string, v: unknown): string | undefined {
  if (v === null || v === undefined || typeof v === "boolean") return undefined;
  if (typeof v === "string") {
    if (placeholderFor(kind, v)) return undefined;
    if (/pwd$/i.test(key) && /^[/~]/.test(v)) return undefined;
  }
  return `[REDACTED:${kind}]`;
}

/** What a secret-keyed value of `k` becomes (a mask and its kind), or undefined when it is walked as is. */
function keyedMask(
  k: string,
  v: unknown,
  rules: RedactionRules | undefined,
): { mask: string; kind: string } | undefined {
  let kind = keyKind(k);
  // A name that only suggests a secret holds one when the value looks generated.
  if (kind === null && typeof v === "string" && v.length >= 16 && looksGenerated(v) && !isPlaceholder(v))
    kind = weakKeyKind(k);
  // A bare `auth` key is as often a config section ({type: "oauth"}) as a credential:
  // walk objects under it, redact only scalars.
  const section = typeof v === "object" && v !== null && splitWords(k).at(-1) === "auth";
  if (kind === null || section || (typeof v === "string" && rules?.allow.has(v))) return undefined;
  const mask = redactKeyedValue(kind, k, v);
  return mask === undefined ? undefined : { mask, kind };
}

const KEY_KINDS: string[] = [];

/** The frames of an object's entries (into `pending`, in order), each key redacted and its slot reserved in `obj`. */
function objectChildren(
  rec: Record<string, unknown>,
  obj: Record<string, unknown>,
  f: Frame,
  rules: RedactionRules | undefined,
  pending: Frame[],
): void {
  const cmd = commandOf(rec);
  const printed =
    cmd !== undefined && printsSecret(cmd)
      ? 2
      : f.printed !== undefined && f.printed > 0
        ? f.printed - 1
        : undefined;
  pending.length = 0;
  for (const k of Object.keys(rec)) {
    const v = rec[k];
    KEY_KINDS.length = 0;
    let nk = redactKeyText(k, KEY_KINDS);
    if (nk !== k) {
      // Two keys redacted to the same marker must not overwrite each other.
      let n = 2;
      const base = nk;
      while (Object.hasOwn(obj, nk)) nk = `${base}#${n++}`;
    }
    const child: Frame = { src: v, parent: obj, key: nk, path: childPath(f.path, nk) };
    if (KEY_KINDS.length > 0) child.keyKinds = KEY_KINDS.slice();
    if (printed !== undefined) child.printed = printed;
    const masked = keyedMask(k, v, rules);
    if (masked !== undefined) {
      child.mask = masked.mask;
      child.maskKind = masked.kind;
    }
    // Reserve the slot now so key order survives the depth-first walk.
    setOwn(obj, nk, undefined);
    pending.push(child);
  }
}

export function redactValue<T>(value: T, basePath = "payload", rules?: RedactionRules): RedactResult<T> {
  const redactions: string[] = [];
  const kinds: string[] = [];
  const omitted: string[] = [];
  const root: unknown[] = [undefined];
  // Shared references (and cycles) map to one copy, which also bounds the work.
  const copies = new Map<object, unknown>();
  // An explicit stack instead of recursion: hook payloads are untrusted and may nest arbitrarily
  // deep. Children are pushed in reverse so that paths are reported in document order.
  const stack: Frame[] = [{ src: value, parent: root, key: 0, path: basePath }];
  const pending: Frame[] = [];

  while (stack.length > 0) {
    const f = stack.pop() as Frame;
    if (f.keyKinds !== undefined) {
      redactions.push(f.path);
      for (const k of f.keyKinds) kinds.push(k);
    }
    let src = f.src;
    let out: unknown = src;
    if (f.mask !== undefined) {
      out = f.mask;
      if (f.keyKinds === undefined) redactions.push(f.path);
      kinds.push(f.maskKind as string);
      src = undefined;
    }
    if (
      src !== null &&
      typeof src === "object" &&
      typeof (src as { toJSON?: unknown }).toJSON === "function"
    ) {
      // What the archive serializes is toJSON's result (Date -> string), so redact that.
      src = (src as { toJSON: (k: string) => unknown }).toJSON(String(f.key));
      out = src;
    }
    if (typeof src === "string") {
      const printed = f.printed !== undefined && typeof f.key === "string" && OUTPUT_KEYS.has(f.key);
      const r = redactTextWith(src, printed ? withPrinted(src, f.extra) : f.extra, rules);
      if (r.text !== src) {
        out = r.text;
        if (r.kinds[0]?.startsWith("omitted:")) {
          omitted.push(f.path);
        } else {
          if (f.keyKinds === undefined) redactions.push(f.path);
          for (const k of r.kinds) kinds.push(k);
        }
      }
    } else if (src !== null && typeof src === "object") {
      const seen = copies.get(src);
      if (seen !== undefined) {
        out = seen;
      } else if (Array.isArray(src)) {
        const arr: unknown[] = new Array(src.length);
        copies.set(src, arr);
        out = arr;
        const across = acrossElements(src);
        for (let i = src.length - 1; i >= 0; i--) {
          const child: Frame = { src: src[i], parent: arr, key: i, path: `${f.path}[${i}]` };
          const extra = across?.get(i);
          if (extra !== undefined) child.extra = extra;
          stack.push(child);
        }
      } else {
        const obj: Record<string, unknown> = {};
        copies.set(src, obj);
        out = obj;
        objectChildren(src as Record<string, unknown>, obj, f, rules, pending);
        for (let i = pending.length - 1; i >= 0; i--) stack.push(pending[i] as Frame);
      }
    }
    if (Array.isArray(f.parent)) f.parent[f.key as number] = out;
    else setOwn(f.parent, f.key as string, out);
  }
  return { value: root[0] as T, redactions, kinds, omitted };
}
