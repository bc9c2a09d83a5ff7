// Size limits for recorded values.
//
// Bounding runs in two passes around redaction. `precut` first shrinks huge
// inputs cheaply so redaction never scans 50 MB for a 16 KiB result; it keeps a
// margin around every cut so that a secret straddling the final cut is still
// whole (and so still recognised) when redaction runs. `bound` then applies the
// exact limits to the redacted value. Both walk with explicit stacks: a
// 10,000-deep payload must not overflow the call stack.
import type { Truncation } from "./schemas.ts";

export interface Limits {
  max_string_bytes: number;
  max_array_items: number;
  max_object_keys: number;
  max_depth: number;
  max_event_bytes: number;
  max_session_bytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  max_string_bytes: 16 * 1024,
  max_array_items: 500,
  max_object_keys: 500,
  max_depth: 24,
  max_event_bytes: 256 * 1024,
  max_session_bytes: 512 * 1024 * 1024,
};

/** Longer than the longest secret the redactor recognises (a 4096-bit PEM key is ~3.3 KB). */
const REDACTION_MARGIN = 16 * 1024;
const CUT_OPEN = "\u0000\u0001tapedeck-cut:";
const CUT_CLOSE = "\u0001\u0000";

export interface BoundResult<T> {
  value: T;
  truncations: Truncation[];
}

type Container = Record<string, unknown> | unknown[];

interface Frame {
  source: unknown;
  target: Container;
  key: string | number;
  path: string;
  depth: number;
}

function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function depthMarker(depth: number): string {
  return `…[truncated: nested deeper than ${depth}]…`;
}

/**
 * Copies a JSON-like value, applying structural limits (depth, array items,
 * object keys) and shrinking very long strings to head and tail windows with
 * a margin. The result is still to be redacted, then passed to `bound`.
 */
export function precut<T>(value: T, limits: Limits, basePath = "payload"): BoundResult<T> {
  const truncations: Truncation[] = [];
  const stringWindow = Math.floor(limits.max_string_bytes / 2) + REDACTION_MARGIN;

  const leaf = (v: unknown, path: string): unknown => {
    if (typeof v === "string") {
      if (v.length <= stringWindow * 2 + CUT_OPEN.length + 32) return v;
      const originalBytes = Buffer.byteLength(v);
      return `${v.slice(0, stringWindow)}${CUT_OPEN}${originalBytes}${CUT_CLOSE}${v.slice(v.length - stringWindow)}`;
    }
    if (typeof v === "bigint") return v.toString();
    if (typeof v === "number" && !Number.isFinite(v)) return String(v);
    if (v === undefined || typeof v === "function" || typeof v === "symbol") return null;
    void path;
    return v;
  };

  const root: { v: unknown } = { v: undefined };
  const stack: Frame[] = [
    { source: value, target: root as unknown as Container, key: "v", path: basePath, depth: 0 },
  ];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { source, path, depth } = frame;
    let out: unknown;
    if (source !== null && typeof source === "object") {
      if (depth >= limits.max_depth) {
        truncations.push({ path, reason: "depth", original: depth });
        out = depthMarker(limits.max_depth);
      } else if (Array.isArray(source)) {
        const keep = Math.min(source.length, limits.max_array_items);
        if (keep < source.length) truncations.push({ path, reason: "array", original: source.length });
        const arr: unknown[] = new Array(keep);
        for (let i = keep - 1; i >= 0; i -= 1) {
          stack.push({ source: source[i], target: arr, key: i, path: childPath(path, i), depth: depth + 1 });
        }
        out = arr;
      } else if (Buffer.isBuffer(source) || ArrayBuffer.isView(source)) {
        out = `[binary: ${(source as ArrayBufferView).byteLength} bytes]`;
      } else {
        const keys = Object.keys(source);
        const keep = Math.min(keys.length, limits.max_object_keys);
        if (keep < keys.length) truncations.push({ path, reason: "keys", original: keys.length });
        const obj: Record<string, unknown> = {};
        for (let i = 0; i < keep; i += 1) {
          const k = keys[i]!;
          obj[k] = null; // reserve insertion order
          stack.push({
            source: (source as Record<string, unknown>)[k],
            target: obj,
            key: k,
            path: childPath(path, k),
            depth: depth + 1,
          });
        }
        out = obj;
      }
    } else {
      out = leaf(source, path);
    }
    (frame.target as Record<string | number, unknown>)[frame.key] = out;
  }
  return { value: root.v as T, truncations };
}

/** The longest prefix of `buf` that is at most `max` bytes and ends on a character boundary. */
function headBytes(buf: Buffer, max: number): Buffer {
  if (buf.length <= max) return buf;
  let end = max;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end -= 1;
  return buf.subarray(0, end);
}

function tailBytes(buf: Buffer, max: number): Buffer {
  if (buf.length <= max) return buf;
  let start = buf.length - max;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start += 1;
  return buf.subarray(start);
}

export function truncationMarker(bytes: number): string {
  return `…[truncated ${bytes} bytes]…`;
}

/** Cuts a string to at most `max` bytes of content, keeping its head and tail. */
export function cutString(s: string, maxBytes: number): { text: string; originalBytes: number } | undefined {
  const cut = s.indexOf(CUT_OPEN);
  let head: string;
  let tail: string;
  let originalBytes: number;
  if (cut >= 0) {
    const close = s.indexOf(CUT_CLOSE, cut + CUT_OPEN.length);
    originalBytes = Number.parseInt(s.slice(cut + CUT_OPEN.length, close), 10);
    head = s.slice(0, cut);
    tail = s.slice(close + CUT_CLOSE.length);
  } else {
    if (s.length * 3 <= maxBytes) return undefined;
    originalBytes = Buffer.byteLength(s);
    if (originalBytes <= maxBytes) return undefined;
    head = s;
    tail = s;
  }
  const half = Math.floor(maxBytes / 2);
  const h = headBytes(Buffer.from(head), half);
  const t = tailBytes(Buffer.from(tail), maxBytes - half);
  const removed = Math.max(0, originalBytes - h.length - t.length);
  return { text: `${h.toString()}${truncationMarker(removed)}${t.toString()}`, originalBytes };
}

/** Applies the exact string limit (and any structural limit precut missed) to a redacted value. */
export function bound<T>(value: T, limits: Limits, basePath = "payload"): BoundResult<T> {
  const pre = precut(value, { ...limits, max_string_bytes: Number.MAX_SAFE_INTEGER / 4 }, basePath);
  const truncations = pre.truncations;
  const root: { v: unknown } = { v: pre.value };
  const stack: Array<{ holder: Record<string | number, unknown>; key: string | number; path: string }> = [
    { holder: root as unknown as Record<string, unknown>, key: "v", path: basePath },
  ];
  while (stack.length > 0) {
    const { holder, key, path } = stack.pop()!;
    const v = holder[key];
    if (typeof v === "string") {
      const cut = cutString(v, limits.max_string_bytes);
      if (cut) {
        holder[key] = cut.text;
        truncations.push({ path, reason: "string", original: cut.originalBytes });
      }
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i += 1)
        stack.push({ holder: v as never, key: i, path: childPath(path, i) });
    } else if (v !== null && typeof v === "object") {
      for (const k of Object.keys(v)) stack.push({ holder: v as never, key: k, path: childPath(path, k) });
    }
  }
  return { value: root.v as T, truncations };
}
