// `tapedeck usage publish`: this machine's usage as per-device-day aggregate files (published.ts) in a folder
// the user syncs (a git repository, a synced folder, an rsync target): no daemon, no port. A day file whose rows
// changed is rewritten whole through a temp file and a rename, so a reader (or a sync tool) sees the old file or
// the new one, and one whose rows did not is left alone; a day this machine no longer has (its sessions pruned)
// loses its file. The figures are the cache's
// (cache.ts), in the one meaning, priced as `usage` prices them on this machine.
import { chmodSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { readConfig } from "../core/archive/config.ts";
import {
  DIR_MODE,
  ensureDir,
  ensureOwnDirUnder,
  lstatOrUndefined,
  MAX_SMALL_FILE_BYTES,
  ownedByUser,
  pruneStaleFiles,
  readDirEntries,
  readJsonOrUndefined,
  UnsafePathError,
  unlinkQuietly,
  writeFileAtomicSync,
} from "../core/base/fsutil.ts";
import { factsFor, type UsageFacts } from "../core/read/usage-facts.ts";
import { collectProject, type SessionView } from "./cache.ts";
import { type Device, projectLabel, saltedLabel, saltedProjectLabel } from "./device.ts";
import { cellAt, NCELL, NCELL_WIDTH } from "./normalize.ts";
import {
  costOf,
  isProjectPrice,
  type PriceTable,
  priceFor,
  priceTable,
  type TokenCounts,
} from "./pricing.ts";
import {
  AGENT_VERSION,
  checkDay,
  DAY_FILE,
  DAY_FORMAT,
  DEVICE_FORMAT,
  DEVICE_INFO_FILE,
  FORMAT_VERSION,
  isCalendarDay,
  MODEL_ID,
  type PublishedDay,
  type PublishedDevice,
  type PublishedRow,
  publishedName,
  rowsHash,
  rowsProblem,
  SLOT_MINUTES,
} from "./published.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PublishOptions {
  device: Device;
  to: string;
  projects: readonly string[];
  facts: Readonly<Record<string, UsageFacts>>;
  /** labels this publish replaces (a project's name before --name-project renamed it): read, never carried */
  formerLabels?: readonly string[];
  now?: number;
}

export interface PublishResult {
  device_id: string;
  device_name: string;
  /** the device's folder */
  folder: string;
  published_at: string;
  days: number;
  /** day files left as they were: the same rows as this publish's (only device.json records its time) */
  unchanged: number;
  rows: number;
  sessions: number;
  /** day files of an earlier publish this one no longer has (removed) */
  removed: number;
  /** days holding rows of projects this publish did not read (absent), carried over from the previous files */
  kept_absent: number;
  /** model names not of a model id's shape (published.ts MODEL_ID): their usage published with no model */
  models_withheld: number;
  /** days written that --machines will report and not sum (more rows than a day file holds) */
  unsummable: Array<{ day: string; problem: string }>;
}

/** Every day's rows, made as the sessions are added: one row per slot, provider, model, version and project. */
class DayRows {
  readonly days = new Map<string, PublishedRow[]>();
  /** model names not of a model id's shape, published as null */
  readonly withheld = new Set<string>();
  private readonly rows = new Map<string, PublishedRow>();

  /** The row of the slot holding `at`, made empty when new; `kind` keeps a row of empty sessions apart. */
  private row(
    at: number,
    provider: string,
    model: string | null,
    version: string | null,
    project: string,
    kind = "",
  ): PublishedRow {
    const slotStart = at - (at % (SLOT_MINUTES * 60_000));
    // \u0001 for none: no name holds it (MODEL_ID, AGENT_VERSION), and "null" is a name.
    const id = `${slotStart}\0${provider}\0${model ?? "\u0001"}\0${version ?? "\u0001"}\0${project}\0${kind}`;
    let r = this.rows.get(id);
    if (r) return r;
    r = {
      slot: ((slotStart % DAY_MS) / 60_000) | 0,
      provider,
      model,
      agent_version: version,
      project,
      sessions: [],
      sessions_without_usage: [],
      usage_recorded: true,
      sources: [],
      input_tokens: 0,
      output_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      cost_usd: 0,
      prices_as_of: [],
      project_priced: false,
    };
    this.rows.set(id, r);
    const day = new Date(slotStart - (slotStart % DAY_MS)).toISOString().slice(0, 10);
    const list = this.days.get(day);
    if (list) list.push(r);
    else this.days.set(day, [r]);
    return r;
  }

  /** A session without usage: a row of its own, as `usage` counts it in the row of its start, with no model. */
  empty(u: SessionView, project: string, session: string, facts: UsageFacts): void {
    const at = u.started_at ? Date.parse(u.started_at) : Number.NaN;
    if (!Number.isFinite(at) || at < 0) return;
    const r = this.row(at, u.provider, null, null, project, "empty");
    r.usage_recorded = facts.records_usage;
    addOnce(r.sessions_without_usage, session);
    for (const x of u.sources) addOnce(r.sources, x);
  }

  /** A session's cells added to their slots' rows, each priced as `usage` prices it. */
  cells(u: SessionView, project: string, session: string, table: PriceTable): void {
    const cells = u.cells;
    for (let i = 0; i < cells.length; i += NCELL_WIDTH) {
      const model = u.models[cells[i + NCELL.model]!] || undefined;
      const shown = publishedName(model, MODEL_ID);
      if (model !== undefined && shown === null) this.withheld.add(model);
      const version = publishedName(u.versions[cells[i + NCELL.version]!] || undefined, AGENT_VERSION);
      const r = this.row(cells[i + NCELL.slot]! * u.slot_ms, u.provider, shown, version, project);
      const c = cellAt(cells, i, u.models, u.slot_ms);
      r.input_tokens += c.input_tokens;
      r.output_tokens += c.output_tokens;
      r.cache_read_input_tokens += c.cache_read_input_tokens;
      r.cache_creation_input_tokens += c.cache_creation_input_tokens;
      addOnce(r.sessions, session);
      for (const x of u.sources) addOnce(r.sources, x);
      addCost(r, c, table, model);
    }
  }

  /** The days with their rows in order; a slot past the year 9999 has no YYYY-MM-DD, so no file. */
  finish(): Map<string, PublishedRow[]> {
    for (const day of this.days.keys()) if (!isCalendarDay(day)) this.days.delete(day);
    for (const list of this.days.values()) {
      for (const r of list) {
        r.sessions.sort();
        r.sessions_without_usage.sort();
        r.sources.sort();
        r.prices_as_of.sort();
      }
      sortDayRows(list);
    }
    return this.days;
  }
}

function addOnce(list: string[], v: string): void {
  if (!list.includes(v)) list.push(v);
}

/** A cell's cost into its row: unknown (null) for good once a priced cell has no price. */
function addCost(r: PublishedRow, c: TokenCounts, table: PriceTable, model: string | undefined): void {
  const tokens = c.input_tokens + c.output_tokens + c.cache_read_input_tokens + c.cache_creation_input_tokens;
  if (tokens === 0) return;
  const price = priceFor(table, model);
  if (!price) {
    r.cost_usd = null;
    return;
  }
  if (r.cost_usd !== null) r.cost_usd += costOf(price, c);
  addOnce(r.prices_as_of, price.as_of ?? table.as_of);
  if (isProjectPrice(price)) r.project_priced = true;
}

/** Builds every day's rows from the projects' sessions. */
export function aggregateDays(o: Omit<PublishOptions, "to">): {
  days: Map<string, PublishedRow[]>;
  sessions: number;
  /** model names not of a model id's shape, published as null */
  modelsWithheld: number;
  /** the labels of the projects read: each one's label, and its salted one when it is published by name */
  labels: Set<string>;
} {
  const out = new DayRows();
  const labels = new Set<string>();
  let sessions = 0;
  for (const project of o.projects) {
    const table: PriceTable = priceTable(readConfig(project)?.pricing);
    const label = projectLabel(o.device, project);
    labels.add(label).add(saltedProjectLabel(o.device, project));
    for (const s of collectProject(project, { facts: o.facts }).sessions) {
      sessions += 1;
      const session = saltedLabel(o.device, "session", `${project}\0${s.key}`);
      if (s.usage.cells.length === 0) out.empty(s.usage, label, session, factsFor(o.facts, s.usage.provider));
      else out.cells(s.usage, label, session, table);
    }
  }
  return { days: out.finish(), sessions, modelsWithheld: out.withheld.size, labels };
}

function sortDayRows(list: PublishedRow[]): void {
  list.sort((a, b) => a.slot - b.slot || key(a).localeCompare(key(b)));
}

const key = (r: PublishedRow) =>
  `${r.provider}\0${r.model ?? ""}\0${r.agent_version ?? ""}\0${r.project}\0${r.sessions_without_usage.length}`;

/**
 * `<to>/<device id>/`, made as needed. `to` may be a link (a synced folder linked into the home) only when it is
 * the user's own: one another user made could be turned to anywhere between two publishes. Its target, and the
 * device folder (never a link), must be the user's; a device folder left readable by others is made 0700.
 */
function deviceFolder(to: string, id: string): string {
  const link = lstatOrUndefined(to);
  if (link?.isSymbolicLink() && !ownedByUser(link))
    throw new UnsafePathError(
      `${to} is a symlink another user owns; publish writes through your own links only`,
    );
  ensureDir(to);
  const folder = join(to, id);
  ensureOwnDirUnder(to, folder, true);
  if ((lstatSync(folder).mode & 0o077) !== 0) chmodSync(folder, DIR_MODE);
  return folder;
}

/** A temp file of this device's (fsutil's writeTempSibling): `<day>.json.<pid>.<n>.tmp`, `device.json.….tmp`. */
const TEMP_FILE = /^(?:\d{4}-\d{2}-\d{2}|device)\.json\.\d+\.\d+\.tmp$/;
/** A temp file older than this is a killed publish's: a live one is renamed within the publish that made it. */
const STALE_TEMP_MS = 60_000;

/** This device's day files as the last publish wrote them: each that still checks, by day. */
function previousDays(folder: string, device: string): Map<string, PublishedDay> {
  const out = new Map<string, PublishedDay>();
  for (const e of readDirEntries(folder)) {
    const m = DAY_FILE.exec(e.name);
    if (!m || !e.isFile()) continue;
    const checked = checkDay(readJsonOrUndefined(join(folder, e.name), MAX_SMALL_FILE_BYTES), {
      device,
      day: m[1]!,
    });
    if ("day" in checked) out.set(m[1]!, checked.day);
  }
  return out;
}

/**
 * Rows of the previous files whose project this publish did not read (moved away, on a disk not mounted, a
 * registry entry gone) go on as they were: a project out of reach for a publish keeps its published history.
 * Answers how many days hold such rows.
 */
function carryOver(
  days: Map<string, PublishedRow[]>,
  previous: ReadonlyMap<string, PublishedDay>,
  read: ReadonlySet<string>,
): number {
  let kept = 0;
  for (const [day, before] of previous) {
    const absent = before.rows.filter((r) => !read.has(r.project));
    if (absent.length === 0) continue;
    kept += 1;
    const list = days.get(day);
    if (!list) {
      days.set(day, absent);
      continue;
    }
    for (const r of absent) list.push(r);
    sortDayRows(list);
  }
  return kept;
}

/** Writes the day files whose rows changed; answers how many stayed, the rows, and the days --machines refuses. */
function writeDays(
  folder: string,
  device: Device,
  days: ReadonlyMap<string, PublishedRow[]>,
  previous: ReadonlyMap<string, PublishedDay>,
  publishedAt: string,
): Pick<PublishResult, "unchanged" | "rows" | "unsummable"> {
  const out: Pick<PublishResult, "unchanged" | "rows" | "unsummable"> = {
    unchanged: 0,
    rows: 0,
    unsummable: [],
  };
  for (const [day, rows] of [...days].sort(([a], [b]) => a.localeCompare(b))) {
    out.rows += rows.length;
    const problem = rowsProblem(rows);
    if (problem) out.unsummable.push({ day, problem });
    const hash = rowsHash(rows);
    const before = previous.get(day);
    // The same rows under the same name: the file stays, so a synced folder (a git repository) gets no churn.
    if (before && before.rows_sha256 === hash && before.device_name === device.name) {
      out.unchanged += 1;
      continue;
    }
    const file: PublishedDay = {
      format: DAY_FORMAT,
      format_version: FORMAT_VERSION,
      device_id: device.id,
      device_name: device.name,
      day,
      published_at: publishedAt,
      slot_minutes: SLOT_MINUTES,
      rows,
      rows_sha256: hash,
    };
    writeFileAtomicSync(join(folder, `${day}.json`), `${JSON.stringify(file, null, 1)}\n`);
  }
  return out;
}

/** Removes the day files of days this publish has none of; answers how many. */
function removeGone(folder: string, days: ReadonlyMap<string, unknown>): number {
  let removed = 0;
  for (const e of readDirEntries(folder)) {
    const m = DAY_FILE.exec(e.name);
    if (m && e.isFile() && !days.has(m[1]!)) {
      unlinkQuietly(join(folder, e.name));
      removed += 1;
    }
  }
  return removed;
}

/** Writes this device's day files and device.json into `<to>/<device id>/`. */
export function publishUsage(o: PublishOptions): PublishResult {
  const publishedAt = new Date(o.now ?? Date.now()).toISOString();
  const { days, sessions, modelsWithheld, labels } = aggregateDays(o);
  const folder = deviceFolder(o.to, o.device.id);
  pruneStaleFiles(folder, TEMP_FILE, 0, STALE_TEMP_MS);
  const previous = previousDays(folder, o.device.id);
  const kept = carryOver(days, previous, new Set([...labels, ...(o.formerLabels ?? [])]));
  const written = writeDays(folder, o.device, days, previous, publishedAt);
  const removed = removeGone(folder, days);
  const info: PublishedDevice = {
    format: DEVICE_FORMAT,
    format_version: FORMAT_VERSION,
    device_id: o.device.id,
    device_name: o.device.name,
    published_at: publishedAt,
    days: [...days.keys()].sort(),
  };
  writeFileAtomicSync(join(folder, DEVICE_INFO_FILE), `${JSON.stringify(info, null, 1)}\n`);
  return {
    device_id: o.device.id,
    device_name: o.device.name,
    folder,
    published_at: publishedAt,
    days: days.size,
    unchanged: written.unchanged,
    rows: written.rows,
    sessions,
    removed,
    kept_absent: kept,
    models_withheld: modelsWithheld,
    unsummable: written.unsummable,
  };
}
