// `tapedeck usage daily|weekly|monthly|model --machines DIR`: every device's published days (published.ts)
// summed into one report, as `usage` sums one machine's sessions. A device-day is one file, rewritten whole by
// each publish, so a re-publish replaces its figures and never adds to them. A file that does not check (torn or
// merged by a sync tool, of another device or day, of a clock ahead of this one) is reported and not summed.
import { type Dirent, readdirSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { TOKEN_FIELDS } from "../core/archive/manifest-counters.ts";
import { readDirEntries, readJsonOrUndefined } from "../core/base/fsutil.ts";
import { UserError } from "../core/base/user-error.ts";
import { factsFor, type UsageFacts } from "../core/read/usage-facts.ts";
import { DEVICE_ID } from "./device.ts";
import type { Cell } from "./normalize.ts";
import {
  checkDay,
  checkDevice,
  DAY_FILE,
  DEVICE_INFO_FILE,
  type PublishedDay,
  type PublishedRow,
} from "./published.ts";
import { UsageQueryError } from "./query-error.ts";
import { inRange, parseRange, type Range } from "./range.ts";
import {
  breakdownOf,
  PERIOD,
  type ReportKind,
  sortRows,
  totalsOf,
  type UsageReport,
  type UsageRow,
} from "./report.ts";
import { type BreakdownBy, RowSum, type SessionPart } from "./rows.ts";
import { Calendar, checkTimeZone } from "./zone.ts";

export const MACHINE_KINDS = ["daily", "weekly", "monthly", "model", "project"] as const;
/** A day file is a few hundred KB at most; past this a planted one is not read. */
const MAX_DAY_BYTES = 64 * 1024 * 1024;
/** A clock this far ahead of the reader's, or usage this far past its own publish time, is skew, not usage. */
export const SKEW_MS = 5 * 60 * 1000;

export interface MachinesQuery {
  kind: ReportKind;
  dir: string;
  provider?: string;
  since?: string;
  until?: string;
  timeZone: string;
  breakdown?: boolean | BreakdownBy;
  facts: Readonly<Record<string, UsageFacts>>;
  now?: number;
}

export interface MachineProblem {
  /** the file, relative to DIR */
  file: string;
  problem: string;
}

export interface Machine {
  device_id: string;
  name: string;
  /** the last publish: device.json's time, else the latest day file's */
  published_at: string | null;
  /** day files summed */
  days: number;
  problems: MachineProblem[];
}

export interface MachinesReport extends UsageReport {
  machines: Machine[];
}

/**
 * `dir`'s entries when it is a folder (a link to one followed: reading through it writes nothing). A missing
 * one, a file, a FIFO or a folder that cannot be listed is the user's mistake (a typo, an unmounted sync folder),
 * not a folder of no usage: an error.
 */
function entriesOf(dir: string): Dirent[] {
  let st: Stats | undefined;
  try {
    st = statSync(dir, { throwIfNoEntry: false });
    if (st?.isDirectory()) return readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    throw new UserError(`--machines ${dir}: cannot be read (${(error as NodeJS.ErrnoException).code})`);
  }
  if (!st) throw new UserError(`--machines ${dir}: no such folder (is it synced or mounted here?)`);
  throw new UserError(`--machines ${dir}: not a folder`);
}

/** Every device folder's days that check, and what did not. */
export function readMachines(dir: string, now = Date.now()): { machines: Machine[]; days: PublishedDay[] } {
  const machines: Machine[] = [];
  const days: PublishedDay[] = [];
  const sums = TOKEN_FIELDS.map(() => 0);
  const entries = entriesOf(dir);
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!e.isDirectory() || !DEVICE_ID.test(e.name)) continue;
    const m: Machine = {
      device_id: e.name,
      name: e.name.slice(0, 8),
      published_at: null,
      days: 0,
      problems: [],
    };
    const folder = join(dir, e.name);
    const info = checkDevice(readJsonOrUndefined(join(folder, DEVICE_INFO_FILE), MAX_DAY_BYTES), e.name);
    if (info) {
      m.name = info.device_name;
      m.published_at = info.published_at;
    }
    for (const f of readDirEntries(folder).sort((a, b) => a.name.localeCompare(b.name))) {
      const match = DAY_FILE.exec(f.name);
      if (!match) continue;
      const file = `${e.name}/${f.name}`;
      if (!f.isFile()) {
        m.problems.push({ file, problem: "not a regular file" });
        continue;
      }
      const value = readJsonOrUndefined(join(folder, f.name), MAX_DAY_BYTES);
      const checked =
        value === undefined
          ? { problem: "torn: not whole JSON (cut in transit, or still being written)" }
          : checkDay(value, { device: e.name, day: match[1]! });
      if ("problem" in checked) {
        m.problems.push({ file, problem: checked.problem });
        continue;
      }
      const problem = skewOf(checked.day, now) ?? overflowOf(checked.day, sums);
      if (problem) {
        m.problems.push({ file, problem });
        continue;
      }
      days.push(checked.day);
      m.days += 1;
      if (!info) {
        m.name = checked.day.device_name;
        if (m.published_at === null || checked.day.published_at > m.published_at)
          m.published_at = checked.day.published_at;
      }
    }
    machines.push(m);
  }
  machines.sort((a, b) => a.name.localeCompare(b.name) || a.device_id.localeCompare(b.device_id));
  return { machines, days };
}

/**
 * Why a day cannot be added to the days before it (`sums`, each count's so far): a count past 2^53 is no longer
 * exact. Every row, period and total of the report is at most these sums. Undefined when it can; `sums` grow.
 */
function overflowOf(d: PublishedDay, sums: number[]): string | undefined {
  const own = TOKEN_FIELDS.map(() => 0);
  for (const r of d.rows) {
    for (let i = 0; i < TOKEN_FIELDS.length; i += 1) own[i]! += r[TOKEN_FIELDS[i]!];
  }
  const over = own.findIndex((n, i) => sums[i]! + n > Number.MAX_SAFE_INTEGER);
  if (over >= 0)
    return `its ${TOKEN_FIELDS[over]} would take the sum past 2^53 tokens, where counts stop being exact`;
  for (let i = 0; i < own.length; i += 1) sums[i]! += own[i]!;
  return undefined;
}

/** Why a day's times cannot be true on one clock; undefined when they can. */
function skewOf(d: PublishedDay, now: number): string | undefined {
  const published = Date.parse(d.published_at);
  if (published > now + SKEW_MS) return `published at ${d.published_at}, ahead of this clock: clock skew`;
  const dayStart = Date.parse(`${d.day}T00:00:00.000Z`);
  let latest = dayStart;
  for (const r of d.rows) latest = Math.max(latest, dayStart + r.slot * 60_000);
  if (d.rows.length > 0 && latest > published + SKEW_MS)
    return `usage at ${new Date(latest).toISOString()}, after its own publish time ${d.published_at}: clock skew`;
  return undefined;
}

/** The published rows summed as `usage` sums sessions: a row per period, model or project, each session once. */
class MachinesSum {
  readonly rows = new Map<string, RowSum>();
  readonly counted = new Set<string>();
  readonly cacheInInput = new Set<string>();
  private readonly parts = new Map<string, SessionPart>();
  private readonly period: (typeof PERIOD)[ReportKind];
  /** A row's figures as a cell, filled in place for each row. */
  private readonly cell: Cell = {
    slot: 0,
    model: "",
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };

  constructor(
    private readonly q: MachinesQuery,
    private readonly cal: Calendar,
    private readonly range: Range,
  ) {
    this.period = PERIOD[q.kind];
  }

  /** A device-day's rows, those of the provider and in the range. */
  day(d: PublishedDay): void {
    const dayStart = Date.parse(`${d.day}T00:00:00.000Z`);
    for (const r of d.rows) {
      if (this.q.provider !== undefined && r.provider !== this.q.provider) continue;
      const at = dayStart + r.slot * 60_000;
      if (inRange(this.range, at, () => this.cal.day(at))) this.add(d.device_id, r, at);
    }
  }

  private add(device: string, r: PublishedRow, at: number): void {
    const facts = factsFor(this.q.facts, r.provider);
    const row = this.rowOf(r, at);
    for (const s of r.sessions_without_usage) {
      const p = this.part(device, s, facts, r);
      row.addEmpty(p, r.usage_recorded);
      this.counted.add(p.key);
    }
    const [first, ...others] = r.sessions;
    if (first === undefined) return;
    if (facts.input_includes_cache_read) this.cacheInInput.add(r.provider);
    const c = this.cell;
    c.slot = at;
    c.model = r.model ?? "";
    c.version = r.agent_version ?? "";
    c.input_tokens = r.input_tokens;
    c.output_tokens = r.output_tokens;
    c.cache_read_input_tokens = r.cache_read_input_tokens;
    c.cache_creation_input_tokens = r.cache_creation_input_tokens;
    const p = this.part(device, first, facts, r);
    row.addCost(c, r.cost_usd ?? undefined, r.prices_as_of, r.project_priced, p);
    this.counted.add(p.key);
    for (const s of others) {
      const o = this.part(device, s, facts, r);
      row.count(o);
      this.counted.add(o.key);
    }
  }

  /** The report row a published row goes into: by period, project or model, and provider. */
  private rowOf(r: PublishedRow, at: number): RowSum {
    const { kind } = this.q;
    const period = this.period;
    const label = period ? this.cal.key(at, period.period) : kind === "project" ? r.project : r.model;
    const id = `${label}\0${r.provider}`;
    let row = this.rows.get(id);
    if (!row) {
      const fields = period
        ? { [period.field]: label, provider: r.provider }
        : kind === "project"
          ? { project: r.project, provider: r.provider }
          : { model: r.model, provider: r.provider };
      row = new RowSum(fields, breakdownOf(this.q.breakdown));
      this.rows.set(id, row);
    }
    return row;
  }

  /** A session of a device, by its salted label: one part however many rows name it. */
  private part(device: string, label: string, facts: UsageFacts, r: PublishedRow): SessionPart {
    const key = `${device}\0${label}`;
    let p = this.parts.get(key);
    if (!p) {
      const gaps = facts.gaps
        .filter((g) => !g.closed_by || !r.sources.includes(g.closed_by))
        .map((g) => g.text);
      p = { key, sources: r.sources, gaps, project: r.project };
      this.parts.set(key, p);
    }
    return p;
  }
}

/** The devices' days summed into one report; rows, totals and notes as `usage` makes them. */
export function machinesReport(q: MachinesQuery): MachinesReport {
  if (!(MACHINE_KINDS as readonly string[]).includes(q.kind)) {
    throw new UsageQueryError(
      `--machines sums ${MACHINE_KINDS.join(", ")}: not "${q.kind}" (no session leaves a machine)`,
    );
  }
  const zone = checkTimeZone(q.timeZone);
  const now = q.now ?? Date.now();
  const sum = new MachinesSum(q, new Calendar(zone), parseRange(q.since, q.until, now));
  const { machines, days } = readMachines(q.dir, now);
  for (const d of days) sum.day(d);
  const out = [...sum.rows.values()].map((r) => r.row() as UsageRow);
  sortRows(q.kind, out, PERIOD[q.kind]?.field, Object.keys(q.facts));
  const { totals, priced } = totalsOf(out);
  const sessions = sum.counted.size;
  return {
    kind: q.kind,
    time_zone: zone,
    rows: out,
    totals,
    priced_cost_usd: priced,
    sessions,
    cache_reads_taken_from_input: [...sum.cacheInInput].sort(),
    refused_prices: [],
    stats: { sessions, unchanged: 0, folded: 0, bytes_read: 0, written: false },
    machines,
  };
}
