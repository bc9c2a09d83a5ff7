// `tapedeck usage` and the viewer's usage page: token usage and its estimated cost over every recorded (and
// imported) session of the chosen projects, all providers in one table, by day, week or month of a time zone,
// by session or by model. Each session's usage comes from the usage cache (cache.ts), its counts are put in one
// meaning (normalize.ts, with the provider's facts), priced with its project's table (pricing.ts), and summed
// into rows (rows.ts). The same figures for the CLI and the page: both call usageReport.
import { readConfig } from "../core/archive/config.ts";
import { TOKEN_FIELDS, zeroTokens } from "../core/archive/manifest-counters.ts";
import { factsFor, type UsageFacts } from "../core/read/usage-facts.ts";
import {
  type CollectOptions,
  type CollectStats,
  collectProject,
  foldExactly,
  type ProjectSession,
  type SessionView,
} from "./cache.ts";
import { type Cell, NCELL, NCELL_WIDTH } from "./normalize.ts";
import { type ModelPrice, type PriceTable, priceFor, priceTable, type RefusedPrice } from "./pricing.ts";
import { UsageQueryError } from "./query-error.ts";
import { cutsThrough, hasDays, hasInstants, inRange, parseRange, type Range } from "./range.ts";
import { type BreakdownBy, type RowFigures, RowSum, type SessionPart } from "./rows.ts";
import { type VersionShares, versionShares } from "./version-share.ts";
import { Calendar, checkTimeZone, type Period } from "./zone.ts";

export const REPORT_KINDS = ["daily", "weekly", "monthly", "session", "model", "project"] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];

export const PERIOD: Partial<Record<ReportKind, { period: Period; field: string }>> = {
  daily: { period: "day", field: "date" },
  weekly: { period: "week", field: "week" },
  monthly: { period: "month", field: "month" },
};

export interface UsageQuery {
  kind: ReportKind;
  projects: readonly string[];
  provider?: string;
  since?: string;
  until?: string;
  /** an IANA name; checked */
  timeZone: string;
  /** split each row by model (true: by model) or by agent CLI version */
  breakdown?: boolean | BreakdownBy;
  /** each provider's facts by name (providers/usage-facts.ts); a provider missing here is read as Anthropic's */
  facts: Readonly<Record<string, UsageFacts>>;
  now?: number;
  onProgress?: CollectOptions["onProgress"];
}

export type UsageRow = Record<string, unknown> & RowFigures & { provider: string };

export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** null when a row's cost is unknown */
  cost_usd: number | null;
}

export interface UsageReport {
  kind: ReportKind;
  time_zone: string;
  rows: UsageRow[];
  totals: UsageTotals;
  /** the part of the total cost that is known (equal to totals.cost_usd when nothing is unknown) */
  priced_cost_usd: number;
  /** distinct sessions in the rows (a session over two days is in two rows) */
  sessions: number;
  /** providers in the rows whose input counts included the cache reads: shown apart here */
  cache_reads_taken_from_input: string[];
  /** the entries of a project's own `pricing` that were refused (out of range, not a price), by project */
  refused_prices: ProjectRefusedPrice[];
  /** what was read: sessions, from the cache, folded, bytes */
  stats: CollectStats;
  /** `--breakdown version`: the cache-read share of input per provider, project and version, and its drops */
  cache_read_shares?: VersionShares;
}

export interface ProjectRefusedPrice extends RefusedPrice {
  project: string;
}

/** Sessions per project and what their collection cost. */
function collect(q: UsageQuery): { sessions: ProjectSession[]; stats: CollectStats } {
  const stats: CollectStats = { sessions: 0, unchanged: 0, folded: 0, bytes_read: 0, written: false };
  const sessions: ProjectSession[] = [];
  for (const project of q.projects) {
    const got = collectProject(project, { onProgress: q.onProgress, facts: q.facts });
    sessions.push(...got.sessions);
    stats.sessions += got.stats.sessions;
    stats.unchanged += got.stats.unchanged;
    stats.folded += got.stats.folded;
    stats.bytes_read += got.stats.bytes_read;
    stats.written ||= got.stats.written;
  }
  return { sessions, stats };
}

export function usageReport(q: UsageQuery): UsageReport {
  if (!(REPORT_KINDS as readonly string[]).includes(q.kind)) {
    throw new UsageQueryError(`unknown report "${q.kind}" (use ${REPORT_KINDS.join(", ")})`);
  }
  const zone = checkTimeZone(q.timeZone);
  const range = parseRange(q.since, q.until, q.now);
  const builder = new ReportBuilder(q, new Calendar(zone), range);
  const { sessions, stats } = collect(q);
  const counted: ProjectSession[] = [];
  for (const s of sessions) {
    if (q.provider !== undefined && s.usage.provider !== q.provider) continue;
    builder.session(s);
    counted.push(s);
  }
  const report: UsageReport = { kind: q.kind, time_zone: zone, ...builder.finish(), stats };
  // Over each version's whole use on a project, not the range: a version is compared with the one before it.
  if (breakdownOf(q.breakdown) === "version") report.cache_read_shares = versionShares(counted);
  return report;
}

class ReportBuilder {
  private readonly rows = new Map<string, RowSum>();
  private readonly tables = new Map<string, PriceTable>();
  private readonly prices = new Map<string, Map<string, ModelPrice | undefined>>();
  private readonly cacheInInput = new Set<string>();
  private readonly counted = new Set<string>();
  private readonly gapLists = new Map<string, string[]>();
  private readonly period: { period: Period; field: string } | undefined;
  /** whether a slot straddling a local midnight or an instant bound would put usage in the wrong place */
  private readonly daysMatter: boolean;
  /** whether --since or --until was given */
  private readonly filtered: boolean;
  /** whether a slot can straddle something that matters (a local midnight, a bound) */
  private readonly checkSlots: boolean;

  constructor(
    private readonly q: UsageQuery,
    private readonly cal: Calendar,
    private readonly range: Range,
  ) {
    this.period = PERIOD[q.kind];
    this.daysMatter = this.period !== undefined || hasDays(range);
    this.filtered = hasDays(range) || hasInstants(range);
    this.checkSlots = this.daysMatter || this.filtered;
  }

  /** A cell's figures, filled in place for each cell: a warm report adds up 30,000 cells without an object each. */
  private readonly scratch: Cell = {
    slot: 0,
    model: "",
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };

  session(s: ProjectSession): void {
    const facts = factsFor(this.q.facts, s.usage.provider);
    let usage = s.usage;
    if (this.checkSlots && this.anyStraddles(usage)) usage = foldExactly(s, 1, facts);
    const part: SessionPart = {
      key: s.dir,
      sources: usage.sources,
      gaps: this.openGaps(usage.provider, facts, usage.sources),
      project: s.project,
    };
    const cells = usage.cells;
    if (cells.length === 0) {
      this.empty(s, usage, part, facts);
      return;
    }
    if (facts.input_includes_cache_read) this.cacheInInput.add(usage.provider);
    const table = this.table(s.project);
    const prices = this.pricesOf(s.project);
    const filtered = this.filtered;
    const slotMs = usage.slot_ms;
    const c = this.scratch;
    let counted = false;
    for (let i = 0; i < cells.length; i += NCELL_WIDTH) {
      const at = cells[i + NCELL.slot]! * slotMs;
      if (filtered && !inRange(this.range, at, () => this.cal.day(at))) continue;
      const model = usage.models[cells[i + NCELL.model]!] ?? "";
      let price = prices.get(model);
      if (price === undefined && !prices.has(model)) {
        price = priceFor(table, model || undefined);
        prices.set(model, price);
      }
      c.slot = at;
      c.model = model;
      c.version = usage.versions[cells[i + NCELL.version]!] ?? "";
      c.input_tokens = cells[i + NCELL.input]!;
      c.output_tokens = cells[i + NCELL.output]!;
      c.cache_read_input_tokens = cells[i + NCELL.cache_read]!;
      c.cache_creation_input_tokens = cells[i + NCELL.cache_creation]!;
      this.rowOf(s, usage, at, model || null).add(c, price, table.as_of, part);
      counted = true;
    }
    if (counted) this.counted.add(part.key);
  }

  /** Whether a cell of the session straddles a boundary that matters (a local midnight, a bound). */
  private anyStraddles(u: SessionView): boolean {
    if (u.slot_ms <= 1) return false;
    const cells = u.cells;
    for (let i = 0; i < cells.length; i += NCELL_WIDTH) {
      if (this.straddles(cells[i + NCELL.slot]! * u.slot_ms, u.slot_ms)) return true;
    }
    return false;
  }

  /** A session without usage: in the row of its start, figures unknown when its provider records none. */
  private empty(s: ProjectSession, usage: SessionView, part: SessionPart, facts: UsageFacts): void {
    const at = usage.started_at ? Date.parse(usage.started_at) : Number.NaN;
    if (!Number.isFinite(at) || !inRange(this.range, at, () => this.cal.day(at))) return;
    this.rowOf(s, usage, at, null).addEmpty(part, facts.records_usage);
    this.counted.add(part.key);
  }

  /** The provider's gaps that no source of the session closes (the same few lists over and over: kept). */
  private openGaps(provider: string, facts: UsageFacts, sources: readonly string[]): readonly string[] {
    if (facts.gaps.length === 0) return [];
    const id = `${provider}\0${sources.join("\0")}`;
    let open = this.gapLists.get(id);
    if (!open) {
      open = facts.gaps.filter((g) => !g.closed_by || !sources.includes(g.closed_by)).map((g) => g.text);
      this.gapLists.set(id, open);
    }
    return open;
  }

  private straddles(start: number, slotMs: number): boolean {
    const end = start + slotMs - 1;
    if (hasInstants(this.range) && cutsThrough(this.range, start, end)) return true;
    return this.daysMatter && !this.cal.sameDay(start, end);
  }

  /** The row of a cell: by its period (or session, or model) and provider; made with its naming fields when new. */
  private rowOf(s: ProjectSession, u: SessionView, at: number, model: string | null): RowSum {
    const p = this.period;
    const label = p ? this.cal.key(at, p.period) : this.unitOf(s, model);
    const id = `${label}\0${u.provider}`;
    let r = this.rows.get(id);
    if (!r) {
      const fields = p ? { [p.field]: label, provider: u.provider } : this.fields(s, u, model);
      r = new RowSum(fields, breakdownOf(this.q.breakdown));
      this.rows.set(id, r);
    }
    return r;
  }

  /** A row's own unit when it is not a period: its model, project or session. */
  private unitOf(s: ProjectSession, model: string | null): string | null {
    if (this.q.kind === "model") return model;
    return this.q.kind === "project" ? s.project : s.dir;
  }

  private fields(s: ProjectSession, u: SessionView, model: string | null): Record<string, unknown> {
    if (this.q.kind === "model") return { model, provider: u.provider };
    if (this.q.kind === "project") return { project: s.project, provider: u.provider };
    const d = u.detail();
    return {
      session_id: d.session_id,
      provider_session_id: d.provider_session_id,
      provider: u.provider,
      project: s.project,
      title: d.title,
      started_at: u.started_at,
      run_type: d.run_type,
    };
  }

  private table(project: string): PriceTable {
    let t = this.tables.get(project);
    if (!t) {
      // A project's own price overrides (config `pricing`), as `show` uses them.
      t = priceTable(readConfig(project)?.pricing);
      this.tables.set(project, t);
    }
    return t;
  }

  /** A model's price in a project's table, by model id: asked once per project and model. */
  private pricesOf(project: string): Map<string, ModelPrice | undefined> {
    let m = this.prices.get(project);
    if (!m) {
      m = new Map();
      this.prices.set(project, m);
    }
    return m;
  }

  finish(): Omit<UsageReport, "kind" | "time_zone" | "stats"> {
    const rows = [...this.rows.values()].map((r) => r.row() as UsageRow);
    sortRows(this.q.kind, rows, this.period?.field, Object.keys(this.q.facts));
    const { totals, priced } = totalsOf(rows);
    return {
      rows,
      totals,
      priced_cost_usd: priced,
      sessions: this.counted.size,
      cache_reads_taken_from_input: [...this.cacheInInput].sort(),
      refused_prices: [...this.tables].flatMap(([project, t]) =>
        (t.refused ?? []).map((r) => ({ project, ...r })),
      ),
    };
  }
}

export function breakdownOf(b: boolean | BreakdownBy | undefined): BreakdownBy | false {
  if (b === true) return "model";
  return b === "model" || b === "version" || b === "project" ? b : false;
}

/** The rows' totals, and the part of their cost that is known. */
export function totalsOf(rows: readonly UsageRow[]): { totals: UsageTotals; priced: number } {
  const totals: UsageTotals = { ...zeroTokens(), cost_usd: 0 };
  let priced = 0;
  for (const r of rows) {
    for (const f of TOKEN_FIELDS) totals[f] += r[f] ?? 0;
    priced += r.priced_cost_usd ?? 0;
    totals.cost_usd = r.cost_usd === null || totals.cost_usd === null ? null : totals.cost_usd + r.cost_usd;
  }
  if (totals.cost_usd !== null) totals.cost_usd = Math.round(totals.cost_usd * 1e9) / 1e9;
  return { totals, priced: Math.round(priced * 1e9) / 1e9 };
}

/** Periods and sessions oldest first, models and projects by tokens; providers in the facts' (the catalog's) order. */
export function sortRows(
  kind: ReportKind,
  rows: UsageRow[],
  field: string | undefined,
  order: string[],
): void {
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  const rank = (p: string) => {
    const i = order.indexOf(p);
    return i < 0 ? order.length : i;
  };
  const byProvider = (a: UsageRow, b: UsageRow) =>
    rank(a.provider) - rank(b.provider) || a.provider.localeCompare(b.provider);
  if (field) {
    rows.sort((a, b) => text(a[field]).localeCompare(text(b[field])) || byProvider(a, b));
  } else if (kind === "session") {
    // The latest session sits just above the total.
    rows.sort((a, b) => text(a.started_at).localeCompare(text(b.started_at)) || byProvider(a, b));
  } else {
    rows.sort((a, b) => (b.total_tokens ?? -1) - (a.total_tokens ?? -1) || byProvider(a, b));
  }
}
