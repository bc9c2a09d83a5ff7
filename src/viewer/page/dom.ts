// A tiny element builder: text always goes in as text (archive content is untrusted; never innerHTML).
type Child = Node | string | null | undefined | false;

export function h(
  tag: string,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

export function clear(el: Element): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/** 12:34:56.789 UTC from an ISO timestamp. */
export function clock(at: string | null | undefined): string {
  if (!at) return "--:--:--";
  return at.length >= 23 ? at.slice(11, 23) : at;
}

/** +1m02.3s: the offset of `at` from `origin`. */
export function offsetFrom(origin: string | null, at: string | null | undefined): string {
  if (!origin || !at) return "";
  const d = Date.parse(at) - Date.parse(origin);
  if (!Number.isFinite(d)) return "";
  // An event stamped before the turn's first (an imported record, a clock step) reads −1.0s, not +-1000ms.
  return d < 0 ? `−${duration(-d)}` : `+${duration(d)}`;
}

export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return "";
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(Math.floor(s % 60)).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

export function compact(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
