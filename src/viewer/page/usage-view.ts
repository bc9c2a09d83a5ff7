// The usage page (#u=daily): what `tapedeck usage` prints, from the same report (api/usage), as a bar chart by
// day, week or month stacked by provider (or by model), and the table under it with its totals and notes.
import { FIGURE_HEADINGS, figureTexts, totalTexts } from "../../usage/figure-text.ts";
import { refusedPriceNotes } from "../../usage/pricing.ts";
import type { UsageRow } from "../../usage/report.ts";
import { projectScope, scopeText } from "../../usage/scope.ts";
import type { UsagePageReport } from "../usage-api.ts";
import { clear, h } from "./dom.ts";
import { barChart, type ChartBar } from "./usage-chart.ts";

const REPORTS = ["daily", "weekly", "monthly", "session", "model", "project"] as const;
const PERIOD_FIELD: Record<string, string> = { daily: "date", weekly: "week", monthly: "month" };
const DAY = 86_400_000;

/** Every period from the first row's to the last's, so a day without usage is a gap, not missing. */
function periods(kind: string, keys: string[]): string[] {
  const sorted = [...new Set(keys)].sort();
  if (sorted.length < 2 || kind === "monthly") return kind === "monthly" ? monthsBetween(sorted) : sorted;
  const out: string[] = [];
  const stride = kind === "weekly" ? 7 * DAY : DAY;
  const end = Date.parse(`${sorted.at(-1)}T00:00:00Z`);
  for (let t = Date.parse(`${sorted[0]}T00:00:00Z`); t <= end && out.length <= 5000; t += stride)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

function monthsBetween(sorted: string[]): string[] {
  if (sorted.length < 2) return sorted;
  const out: string[] = [];
  let [y, m] = sorted[0]!.split("-").map(Number) as [number, number];
  const last = sorted.at(-1)!;
  for (let guard = 0; guard < 1200; guard += 1) {
    const key = `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}`;
    out.push(key);
    if (key >= last) break;
    m += 1;
    if (m > 12) [y, m] = [y + 1, 1];
  }
  return out;
}

function bars(report: UsagePageReport, byModel: boolean, metric: "tokens" | "cost"): ChartBar[] {
  const field = PERIOD_FIELD[report.kind]!;
  const value = (f: { total_tokens: number | null; priced_cost_usd: number | null }) =>
    (metric === "tokens" ? f.total_tokens : f.priced_cost_usd) ?? 0;
  const byPeriod = new Map<string, ChartBar>();
  for (const p of periods(
    report.kind,
    report.rows.map((r) => String(r[field])),
  ))
    byPeriod.set(p, { label: p, segments: [] });
  for (const r of report.rows) {
    const bar = byPeriod.get(String(r[field]));
    if (!bar) continue;
    if (byModel && r.breakdown) {
      for (const m of r.breakdown)
        bar.segments.push({ series: `${r.provider} · ${m.model ?? "unknown model"}`, value: value(m) });
    } else bar.segments.push({ series: r.provider, value: value(r) });
  }
  return [...byPeriod.values()];
}

function figureCells(texts: string[]): HTMLElement[] {
  return texts.map((t) => h("td", { class: "n" }, t));
}

function lead(kind: string, r: UsageRow): string {
  const field = PERIOD_FIELD[kind];
  if (field) return String(r[field]);
  if (kind === "model") return typeof r.model === "string" ? r.model : "unknown model";
  if (kind === "project") return String(r.project);
  const title = typeof r.title === "string" ? r.title : "";
  return `${String(r.provider_session_id ?? r.session_id)}${title ? ` · ${title}` : ""}`;
}

function table(report: UsagePageReport): HTMLElement {
  const first =
    PERIOD_FIELD[report.kind] ??
    (report.kind === "session" || report.kind === "project" ? report.kind : "model");
  const heads = [first, "provider"];
  heads.push(...FIGURE_HEADINGS, "sessions");
  const body = h("tbody", {});
  for (const r of report.rows) {
    body.append(
      h(
        "tr",
        { "data-row": lead(report.kind, r), "data-provider": r.provider },
        h("td", { class: "lead" }, lead(report.kind, r)),
        h("td", {}, r.provider),
        ...figureCells(figureTexts(r)),
        h("td", { class: "n" }, String(r.sessions)),
      ),
    );
    for (const m of r.breakdown ?? []) {
      body.append(
        h(
          "tr",
          { class: "model-row" },
          h("td", {}, ""),
          h("td", {}, `└ ${m.model ?? "unknown model"}`),
          ...figureCells(figureTexts(m)),
          h("td", {}, ""),
        ),
      );
    }
  }
  body.append(
    h(
      "tr",
      { class: "total", id: "usage-total" },
      h("td", {}, "total"),
      h("td", {}, ""),
      ...figureCells(totalTexts(report)),
      h("td", { class: "n" }, String(report.sessions)),
    ),
  );
  return h(
    "table",
    { class: "ab usage-table" },
    h("thead", {}, h("tr", {}, ...heads.map((x) => h("th", {}, x)))),
    body,
  );
}

function notes(report: UsagePageReport): HTMLElement {
  const items: string[] = [];
  const gaps = new Map<string, Set<string>>();
  const unpriced = new Set<string>();
  const own = new Set<string>();
  for (const r of report.rows) {
    for (const g of r.gaps) gaps.set(g, (gaps.get(g) ?? new Set()).add(r.provider));
    for (const m of r.unpriced_models) unpriced.add(m);
    for (const m of r.project_priced_models) own.add(m);
  }
  for (const [g, providers] of gaps) items.push(`${[...providers].join(", ")}: ${g}`);
  if (report.cache_reads_taken_from_input.length > 0)
    items.push(
      `${report.cache_reads_taken_from_input.join(", ")}: input as reported includes the cache reads; shown apart here`,
    );
  if (unpriced.size > 0)
    items.push(`no price for ${[...unpriced].sort().join(", ")}: cost unknown (≥ is the priced part)`);
  if (own.size > 0)
    items.push(`${[...own].sort().join(", ")} priced by the project's own "pricing", not tapedeck's table`);
  for (const r of report.refused_prices)
    items.push(...refusedPriceNotes([r], `${r.project}/.tapedeck/config.json`));
  const dates = [...new Set(report.rows.flatMap((r) => r.prices_as_of))].sort();
  if (dates.length > 0) items.push(`costs are estimates at the prices of ${dates.join(", ")}`);
  return h("ul", { class: "usage-notes dim", id: "usage-notes" }, ...items.map((i) => h("li", {}, i)));
}

/** The page: its controls, then the chart and table of the report they ask for. */
export function usageView(initial: string): HTMLElement {
  const select = (id: string, values: readonly string[], chosen: string) => {
    const s = h("select", { id, "aria-label": id }) as HTMLSelectElement;
    for (const v of values) s.append(h("option", { value: v }, v));
    s.value = values.includes(chosen) ? chosen : values[0]!;
    return s;
  };
  const kind = select("u-report", REPORTS, initial);
  const metric = select("u-metric", ["tokens", "cost"], "tokens");
  // Filled from the first report's rows: the page knows no provider list of its own.
  const provider = select("u-provider", [""], "");
  provider.options[0]!.textContent = "every provider";
  const byModel = h("input", { type: "checkbox", id: "u-models" }) as HTMLInputElement;
  const since = h("input", { type: "date", id: "u-since", "aria-label": "since" }) as HTMLInputElement;
  const until = h("input", { type: "date", id: "u-until", "aria-label": "until" }) as HTMLInputElement;
  const tz = h("input", { id: "u-tz", "aria-label": "time zone", size: "18" }) as HTMLInputElement;
  tz.value = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  const out = h("div", { id: "usage-out" });
  const controls = h(
    "div",
    { class: "filters usage-controls" },
    kind,
    metric,
    provider,
    h("label", {}, byModel, " by model"),
    h("label", {}, "from ", since),
    h("label", {}, "to ", until),
    tz,
  );
  const el = h("section", { class: "usage-page", id: "usage" }, h("h2", {}, "Token usage"), controls, out);
  let asked = 0;
  const load = async () => {
    const n = ++asked;
    const q = new URLSearchParams({ report: kind.value, tz: tz.value.trim() });
    if (provider.value) q.set("provider", provider.value);
    if (since.value) q.set("since", since.value);
    if (until.value) q.set("until", until.value);
    if (byModel.checked) q.set("breakdown", "1");
    clear(out);
    out.append(h("p", { class: "dim" }, "Reading usage…"));
    const res = await fetch(`api/usage?${q}`, { credentials: "same-origin" });
    if (n !== asked) return;
    clear(out);
    if (!res.ok) {
      out.append(h("p", { class: "bad", id: "usage-error" }, await res.text()));
      return;
    }
    const report = (await res.json()) as UsagePageReport;
    if (n !== asked) return;
    if (!provider.value) {
      const known = new Set([...provider.options].map((o) => o.value));
      for (const p of new Set(report.rows.map((r) => r.provider)))
        if (!known.has(p)) provider.append(h("option", { value: p }, p));
    }
    if (history.replaceState) history.replaceState(null, "", `#u=${kind.value}`);
    out.append(
      h(
        "p",
        { class: "dim", id: "usage-scope" },
        `${scopeText(projectScope(report.projects, report.projects.length > 1))} · time zone ${report.time_zone} · ${report.sessions} session${report.sessions === 1 ? "" : "s"}`,
      ),
    );
    if (report.rows.length === 0) {
      out.append(h("p", { class: "dim" }, "No usage recorded in that range."));
      return;
    }
    if (PERIOD_FIELD[report.kind]) {
      const caption = `${metric.value === "cost" ? "estimated cost" : "tokens"} ${kind.value}`;
      out.append(
        barChart(bars(report, byModel.checked, metric.value as "tokens" | "cost"), {
          money: metric.value === "cost",
          caption,
        }),
      );
    }
    out.append(table(report), notes(report));
  };
  for (const c of [kind, metric, provider, byModel, since, until])
    c.addEventListener("change", () => void load());
  tz.addEventListener("change", () => void load());
  void load();
  return el;
}
