// The table `tapedeck usage blocks` prints: one line per 5-hour block (and per gap), times in the report's zone,
// then the active block's burn rate and projection.
import { printable } from "../../../core/base/printable.ts";
import type { Block, BlocksReport } from "../../../usage/blocks.ts";
import { countText, FIGURE_HEADINGS, money } from "../../../usage/figure-text.ts";

function localTime(zone: string): (iso: string) => string {
  const f = new Intl.DateTimeFormat("en-CA", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
  });
  return (iso) => f.format(new Date(iso)).replace(",", "");
}

function status(b: Block): string {
  if (b.gap) return "gap";
  return b.active ? "ACTIVE" : "done";
}

function figures(b: Block): string[] {
  if (b.gap) return ["", "", "", "", "", ""];
  return [
    countText(b.input_tokens),
    countText(b.output_tokens),
    countText(b.cache_read_input_tokens),
    countText(b.cache_creation_input_tokens),
    countText(b.total_tokens),
    money(b.cost_usd, null),
  ];
}

/** `scope`: what the blocks cover, in a title's words (scope.ts). */
export function renderBlocks(report: BlocksReport, zone: string, scope: string): string {
  const at = localTime(zone);
  if (report.blocks.length === 0) return `No Claude usage recorded ${scope}.\n`;
  const head = [
    "START",
    "END",
    "STATUS",
    "RESPONSES",
    ...FIGURE_HEADINGS.map((h) => h.toUpperCase()),
    "MODELS",
  ];
  const rows = report.blocks.map((b) => [
    at(b.start),
    at(b.end),
    status(b),
    b.gap ? "" : String(b.entries),
    ...figures(b),
    b.models.join(", "),
  ]);
  const table = [head, ...rows].map((r) => r.map(printable));
  const widths = head.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const numeric = (i: number) => i >= 3 && i <= 9;
  const text = table
    .map((r) =>
      r
        .map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
  const a = report.active;
  const lines = [`Claude Code usage in 5-hour blocks ${scope}, time zone ${zone}`, "", text];
  if (a?.burn_rate && a.projection) {
    const perHour = a.burn_rate.cost_per_hour === null ? "unknown" : money(a.burn_rate.cost_per_hour, null);
    lines.push(
      "",
      `Active block (until ${at(a.end)}, ${a.projection.remaining_minutes} min left): ` +
        `${countText(Math.round(a.burn_rate.tokens_per_minute))} tokens/min ` +
        `(${countText(Math.round(a.burn_rate.tokens_per_minute_for_indicator))} input and output), ${perHour}/h`,
      `Projected by its end at this rate: ${countText(a.projection.total_tokens)} tokens, ${money(a.projection.cost_usd, null)}`,
    );
  } else if (a) {
    lines.push("", `Active block (until ${at(a.end)}): one response so far, no burn rate yet`);
  }
  return `${lines.join("\n")}\n`;
}
