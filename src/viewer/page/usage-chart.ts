// The usage page's bar chart: one bar per day (week, month), stacked by provider (or provider and model), drawn
// as SVG in the page itself. Every colour is an SVG attribute, never a style attribute: the CSP allows no inline
// style. Each segment has a <title>, the browser's own tooltip.

const SVG = "http://www.w3.org/2000/svg";
/** Distinct in light and dark pages alike. */
const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#59a14f",
  "#e15759",
  "#76b7b2",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
];
const MAX_BARS = 400;

export interface ChartSegment {
  /** what the legend names: a provider, or a provider and a model */
  series: string;
  value: number;
}

export interface ChartBar {
  label: string;
  segments: ChartSegment[];
}

function el(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** 12.3k, 4.5M: the axis's labels. */
function short(n: number, money: boolean): string {
  const unit = money ? "$" : "";
  if (money && n < 1) return `$${n.toFixed(n < 0.1 ? 3 : 2)}`;
  if (n < 1000) return `${unit}${Math.round(n)}`;
  if (n < 1_000_000) return `${unit}${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${unit}${(n / 1_000_000).toFixed(1)}M`;
}

/** A round step for about five gridlines up to `max`. */
function step(max: number): number {
  const raw = max / 5;
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

export function barChart(bars: ChartBar[], opts: { money: boolean; caption: string }): HTMLElement {
  const wrap = document.createElement("figure");
  wrap.className = "usage-chart";
  const shown = bars.slice(-MAX_BARS);
  const series = [...new Set(shown.flatMap((b) => b.segments.map((s) => s.series)))];
  const colour = (s: string) => PALETTE[series.indexOf(s) % PALETTE.length]!;
  const max = Math.max(0, ...shown.map((b) => b.segments.reduce((n, s) => n + s.value, 0)));
  const [w, h, left, bottom, top] = [Math.max(480, shown.length * 14 + 70), 240, 60, 40, 10];
  const svg = el("svg", {
    viewBox: `0 0 ${w} ${h}`,
    width: w,
    height: h,
    role: "img",
    "aria-label": opts.caption,
  });
  const plotH = h - bottom - top;
  const unit = max > 0 ? step(max) : 1;
  const top_ = max > 0 ? Math.ceil(max / unit) * unit : 1;
  for (let v = 0; v <= top_ + 1e-9; v += unit) {
    const y = top + plotH - (v / top_) * plotH;
    svg.append(el("line", { x1: left, x2: w - 5, y1: y, y2: y, class: "grid" }));
    svg.append(
      el("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "axis" }, short(v, opts.money)),
    );
  }
  const slot = (w - left - 10) / Math.max(1, shown.length);
  const barW = Math.max(2, Math.min(28, slot * 0.75));
  const labelEvery = Math.ceil(shown.length / Math.max(1, Math.floor((w - left) / 70)));
  for (const [i, b] of shown.entries()) {
    const x = left + i * slot + (slot - barW) / 2;
    let y = top + plotH;
    const g = el("g", { "data-bar": b.label });
    for (const s of b.segments) {
      if (s.value <= 0) continue;
      const hh = (s.value / top_) * plotH;
      y -= hh;
      const r = el("rect", {
        x,
        y,
        width: barW,
        height: Math.max(0.5, hh),
        fill: colour(s.series),
        "data-series": s.series,
      });
      r.append(
        el(
          "title",
          {},
          `${b.label} · ${s.series}: ${opts.money ? `$${s.value.toFixed(4)}` : s.value.toLocaleString("en-US")}`,
        ),
      );
      g.append(r);
    }
    svg.append(g);
    if (i % labelEvery === 0) {
      svg.append(
        el("text", { x: x + barW / 2, y: h - bottom + 16, "text-anchor": "middle", class: "axis" }, b.label),
      );
    }
  }
  const legend = document.createElement("figcaption");
  legend.className = "legend";
  for (const s of series) {
    const key = document.createElement("span");
    key.className = "key";
    const swatch = el("svg", { width: 10, height: 10, "aria-hidden": "true" });
    swatch.append(el("rect", { width: 10, height: 10, fill: colour(s) }));
    key.append(swatch, ` ${s}`);
    legend.append(key);
  }
  if (bars.length > shown.length) legend.append(` (the last ${MAX_BARS} of ${bars.length})`);
  wrap.append(svg, legend);
  return wrap;
}
