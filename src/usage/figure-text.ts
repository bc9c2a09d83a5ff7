// A usage row's figures as text, in the columns `tapedeck usage` prints and the viewer's usage page shows: the
// four token counts, their total, the estimated cost. Imports only pricing.ts (which imports nothing) at run
// time: the page's browser bundle takes it as the CLI does, so both say a figure the same way.
import { usdText } from "./pricing.ts";
import type { UsageReport } from "./report.ts";
import type { Figures } from "./rows.ts";

/** One formatter: toLocaleString builds one per call (47 ms over a 270-row table). */
const COUNT = new Intl.NumberFormat("en-US");

/** A count in full with thousands separators; `—` when unknown. */
export function countText(n: number | null | undefined): string {
  return n === null || n === undefined ? "—" : COUNT.format(n);
}

/** `$0.0123`, `$12.34`; `unknown`; `≥$1.23` when a part is unknown (the notes say which). Never `$Infinity`. */
export function money(cost: number | null, priced: number | null): string {
  const whole = cost === null ? undefined : usdText(cost);
  if (whole !== undefined) return whole;
  const part = priced !== null && priced > 0 ? usdText(priced) : undefined;
  return part !== undefined ? `≥${part}` : "unknown";
}

/** The figure columns' headings, in order (the CLI prints them in capitals). */
export const FIGURE_HEADINGS = ["input", "output", "cache read", "cache write", "total", "cost"] as const;

const TOKEN_COLUMNS = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
  "total_tokens",
] as const;

/** The figures a column shows: a row's, a model's under it, or the totals'. */
export type ColumnFigures = Pick<Figures, (typeof TOKEN_COLUMNS)[number] | "cost_usd" | "priced_cost_usd">;

/** The figures, column by column: the token counts, then the cost. */
export function figureTexts(f: ColumnFigures): string[] {
  return [...TOKEN_COLUMNS.map((k) => countText(f[k])), money(f.cost_usd, f.priced_cost_usd)];
}

/** The totals' figures in the same columns (the report's totals hold the four counts; the total is their sum). */
export function totalTexts(report: Pick<UsageReport, "totals" | "priced_cost_usd">): string[] {
  const t = report.totals;
  const total = t.input_tokens + t.output_tokens + t.cache_read_input_tokens + t.cache_creation_input_tokens;
  return figureTexts({ ...t, total_tokens: total, priced_cost_usd: report.priced_cost_usd });
}
