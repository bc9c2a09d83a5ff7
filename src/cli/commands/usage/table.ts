// The table `tapedeck usage` prints: one line per row (and per model under it with --breakdown), a total line,
// then what the figures leave out. No colour, numbers in full: it reads the same through `less -S`, grep or a
// file, and `--json` is the form for scripts.
import { join } from "node:path";
import { printable } from "../../../core/base/printable.ts";
import { FIGURE_HEADINGS, figureTexts, totalTexts } from "../../../usage/figure-text.ts";
import type { MachinesReport } from "../../../usage/machines.ts";
import { refusedPriceNotes } from "../../../usage/pricing.ts";
import type { ReportKind, UsageReport, UsageRow } from "../../../usage/report.ts";
import { dropText, shareText } from "../../../usage/version-share.ts";
import { providerName } from "../../providers.ts";

const TITLE_WIDTH = 50;

const HEADINGS: Record<ReportKind, string> = {
  daily: "by day",
  weekly: "by week (from Monday)",
  monthly: "by month",
  session: "by session",
  model: "by model",
  project: "by project",
};

const LEAD: Record<ReportKind, string[]> = {
  daily: ["DATE"],
  weekly: ["WEEK"],
  monthly: ["MONTH"],
  session: ["SESSION", "STARTED (UTC)"],
  model: ["MODEL"],
  project: ["PROJECT"],
};

const FIGURES = FIGURE_HEADINGS.map((h) => h.toUpperCase());

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function lead(kind: ReportKind, r: UsageRow): string[] {
  const s = (v: unknown) => (typeof v === "string" ? v : "—");
  if (kind === "daily") return [s(r.date)];
  if (kind === "weekly") return [s(r.week)];
  if (kind === "monthly") return [s(r.month)];
  if (kind === "model") return [typeof r.model === "string" ? r.model : "unknown model"];
  if (kind === "project") return [s(r.project)];
  return [s(r.provider_session_id ?? r.session_id), s(r.started_at).replace("T", " ").slice(0, 16)];
}

function lines(report: UsageReport, withProject: boolean): string[][] {
  const { kind } = report;
  const out: string[][] = [];
  for (const r of report.rows) {
    const cells = [...lead(kind, r), providerName(r.provider), ...figureTexts(r)];
    if (kind !== "session") cells.push(String(r.sessions));
    if (kind === "session") {
      if (withProject) cells.push(typeof r.project === "string" ? r.project : "");
      cells.push(cut(typeof r.title === "string" ? r.title : "—", TITLE_WIDTH));
    }
    out.push(cells);
    const blank = LEAD[kind].map(() => "");
    for (const m of r.breakdown ?? []) {
      out.push([...blank, `└ ${m.model ?? "unknown model"}`, ...figureTexts(m)]);
    }
    for (const p of r.projects ?? []) {
      out.push([
        ...blank,
        `└ ${p.project || "—"}`,
        ...figureTexts(p),
        ...(kind === "session" ? [] : [String(p.sessions)]),
      ]);
    }
    for (const v of r.versions ?? []) {
      const share =
        v.cache_read_share === null ? "" : `cache reads ${shareText(v.cache_read_share)} of input`;
      const sessions = kind === "session" ? [] : [""];
      out.push([
        ...blank,
        `└ ${v.agent_version ?? "version unknown"}`,
        ...figureTexts(v),
        ...sessions,
        share,
      ]);
    }
  }
  return out;
}

function header(kind: ReportKind, withProject: boolean): string[] {
  const h = [...LEAD[kind], "PROVIDER", ...FIGURES];
  if (kind !== "session") h.push("SESSIONS");
  if (kind === "session") {
    if (withProject) h.push("PROJECT");
    h.push("TITLE");
  }
  return h;
}

function totalLine(report: UsageReport, width: number): string[] {
  const cells = ["TOTAL", ...Array.from({ length: width - 1 }, () => ""), ...totalTexts(report)];
  if (report.kind !== "session") cells.push(String(report.sessions));
  return cells;
}

/** Figures right-aligned, text left-aligned, two spaces between columns. */
function align(table: string[][], numeric: Set<number>): string {
  const widths: number[] = [];
  for (const row of table) {
    for (const [i, c] of row.entries()) widths[i] = Math.max(widths[i] ?? 0, c.length);
  }
  return table
    .map((row) =>
      row
        .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/** What the figures leave out or put differently, each provider named once. */
function notes(report: UsageReport, withProject: boolean): string[] {
  const out: string[] = [];
  const gaps = new Map<string, Set<string>>();
  const unpriced = new Set<string>();
  const own = new Set<string>();
  for (const r of report.rows) {
    for (const g of r.gaps) gaps.set(g, (gaps.get(g) ?? new Set()).add(providerName(r.provider)));
    for (const m of r.unpriced_models) unpriced.add(m);
    for (const m of r.project_priced_models) own.add(m);
  }
  for (const [gap, providers] of gaps) out.push(`${[...providers].join(", ")}: ${gap}`);
  const inInput = report.cache_reads_taken_from_input.map(providerName);
  if (inInput.length > 0) {
    out.push(
      `${inInput.join(", ")}: input as reported includes the cache reads; shown apart here, as in every command (inspect shows the counts as recorded too)`,
    );
  }
  if (unpriced.size > 0) {
    out.push(
      `no price for ${[...unpriced].sort().join(", ")}: cost unknown (≥ is the priced part; add prices under "pricing" in .tapedeck/config.json)`,
    );
  }
  if (own.size > 0) {
    out.push(
      `${[...own].sort().join(", ")} priced by the project's own "pricing" in .tapedeck/config.json, not tapedeck's table`,
    );
  }
  for (const d of report.cache_read_shares?.drops ?? []) {
    out.push(dropText(d, providerName(d.provider), withProject ? d.project : undefined));
  }
  for (const r of report.refused_prices) {
    out.push(
      ...refusedPriceNotes([r], withProject ? join(r.project, ".tapedeck", "config.json") : undefined),
    );
  }
  return out;
}

/** `scope`: what the figures cover, in the title's words (scope.ts). */
export function renderUsage(report: UsageReport, withProject: boolean, scope: string): string {
  const dates = [...new Set(report.rows.flatMap((r) => r.prices_as_of))].sort();
  const title = `Token usage ${HEADINGS[report.kind]} ${scope}, time zone ${report.time_zone}${
    dates.length > 0 ? `; cost estimated at the prices of ${dates.join(", ")}` : ""
  }`;
  const head = header(report.kind, withProject);
  const leadWidth = LEAD[report.kind].length + 1;
  const body = lines(report, withProject);
  const table = [head, ...body, totalLine(report, leadWidth)].map((row) => row.map(printable));
  const numeric = new Set<number>();
  for (let i = leadWidth; i < leadWidth + FIGURES.length; i++) numeric.add(i);
  if (report.kind !== "session") numeric.add(leadWidth + FIGURES.length);
  const n = notes(report, withProject);
  const tail = n.length > 0 ? `\n\nNotes:\n${n.map((x) => `  ${printable(x)}`).join("\n")}` : "";
  return `${printable(title)}\n\n${align(table, numeric)}${tail}\n`;
}

/** How long ago, in the largest whole unit. */
function ago(iso: string | null, now: number): string {
  if (iso === null) return "never published";
  const ms = now - Date.parse(iso);
  const min = Math.round(ms / 60_000);
  const when = iso.replace("T", " ").slice(0, 16);
  if (min < 1) return `published ${when} UTC (just now)`;
  if (min < 120) return `published ${when} UTC (${min} min ago)`;
  const h = Math.round(min / 60);
  return h < 48
    ? `published ${when} UTC (${h} h ago)`
    : `published ${when} UTC (${Math.round(h / 24)} days ago)`;
}

/** A --machines report: the table, then each device's freshness and the files not summed. */
export function renderMachines(report: MachinesReport, dir: string, scope: string, now = Date.now()): string {
  const head =
    report.rows.length > 0
      ? renderUsage(report, false, scope)
      : `No published usage in ${dir}${report.machines.length > 0 ? " in that range" : ""}.\n`;
  const lines = report.machines.map(
    (m) => `  ${m.name} (${m.device_id.slice(0, 8)}): ${ago(m.published_at, now)}, ${m.days} day(s) summed`,
  );
  const problems = report.machines.flatMap((m) =>
    m.problems.map((p) => `  ${m.name}: ${p.file} not summed: ${p.problem}`),
  );
  const machines = lines.length > 0 ? `\nMachines (${dir}):\n${lines.join("\n")}\n` : "";
  const skipped = problems.length > 0 ? `\nNot summed:\n${problems.join("\n")}\n` : "";
  return `${head}${machines}${skipped}`;
}
