// What `tapedeck usage publish` writes and `usage --machines` reads: one file per device and UTC day,
// `<DIR>/<device id>/<YYYY-MM-DD>.json`, and the device's `device.json`. Aggregates only: per 15-minute UTC slot
// (any time zone's days are sums of them, as in the cache), provider, model, agent version and project label,
// the token counts in the one meaning, the cost with its price dates, and the sessions as salted labels (so a
// local day that spans two UTC files counts a session once). No prompt, path, session id or hostname.
import { createHash } from "node:crypto";
import { TOKEN_FIELDS } from "../core/archive/manifest-counters.ts";
import { DEVICE_ID, LABEL } from "./device.ts";
import { isCount, isTextUpTo } from "./json-shape.ts";

export const DAY_FORMAT = "tapedeck-usage-day";
export const DEVICE_FORMAT = "tapedeck-usage-device";
export const FORMAT_VERSION = 1;
export const SLOT_MINUTES = 15;
export const DAY_FILE = /^(\d{4}-\d{2}-\d{2})\.json$/;
export const DEVICE_INFO_FILE = "device.json";

export interface PublishedRow {
  /** minutes from the day's UTC midnight to the slot's start */
  slot: number;
  provider: string;
  model: string | null;
  agent_version: string | null;
  project: string;
  /** salted labels of the sessions with usage in the slot */
  sessions: string[];
  /** salted labels of sessions that started in the slot and recorded no usage */
  sessions_without_usage: string[];
  /** false: the provider records no usage, so a session without any is of unknown figures */
  usage_recorded: boolean;
  sources: string[];
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  /** null: the model has no price on the publishing machine */
  cost_usd: number | null;
  prices_as_of: string[];
  /** priced by the project's own `pricing`, not tapedeck's table */
  project_priced: boolean;
}

export interface PublishedDay {
  format: typeof DAY_FORMAT;
  format_version: typeof FORMAT_VERSION;
  device_id: string;
  device_name: string;
  day: string;
  published_at: string;
  slot_minutes: typeof SLOT_MINUTES;
  rows: PublishedRow[];
  /** sha256 of JSON.stringify(rows): a file cut or merged by a sync tool does not pass */
  rows_sha256: string;
}

export interface PublishedDevice {
  format: typeof DEVICE_FORMAT;
  format_version: typeof FORMAT_VERSION;
  device_id: string;
  device_name: string;
  published_at: string;
  days: string[];
}

/**
 * A model id as providers name them (claude-sonnet-4-5-20250929, gpt-5-codex, gemini-2.5-pro, a Bedrock id with
 * `:`, a Vertex one with `@`). A name of any other shape (spaces, a path, a redaction mark, an ARN holding an
 * account number, a terminal escape) is published as null: its usage counted, its name never leaving the machine.
 */
export const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,79}$/;
/** An agent CLI's version, as Claude Code's transcript reader takes one. */
export const AGENT_VERSION = /^[\w.+-]{1,64}$/;

/** The name as published: itself when of the shape, else null. */
export function publishedName(name: string | undefined, shape: RegExp): string | null {
  return name !== undefined && shape.test(name) ? name : null;
}

/** A YYYY-MM-DD that names a real day of the calendar (not 2024-02-30, which Date.parse takes as March 1st). */
export function isCalendarDay(day: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return false;
  const ms = Date.parse(`${day}T00:00:00.000Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === day;
}

export function rowsHash(rows: readonly PublishedRow[]): string {
  return createHash("sha256").update(JSON.stringify(rows)).digest("hex");
}

/** A name in a day file: publish writes none longer. */
const MAX_NAME = 200;
const isName = (v: unknown): v is string => isTextUpTo(v, MAX_NAME);
const isTexts = (v: unknown): v is string[] => Array.isArray(v) && v.length <= 10_000 && v.every(isName);
const isIso = (v: unknown): v is string => typeof v === "string" && Number.isFinite(Date.parse(v));

/**
 * The most rows a day file holds. One row per 15-minute slot, provider, model, agent version and project with
 * usage in it: 96 slots times a thousand such combinations in every slot of the day is past any machine's use,
 * and the file stays under the reader's 64 MiB. Publish writes a day of more (it says so), and --machines reports
 * it and does not sum it.
 */
export const MAX_ROWS_PER_DAY = 96_000;

/**
 * A row's most tokens of each count: a trillion in one 15-minute slot of one model is no machine's usage (a busy
 * day is a few hundred million), and a thousand such rows still sum exactly. Its dearest cost: a billion USD.
 */
export const MAX_ROW_TOKENS = 1e12;
export const MAX_ROW_COST_USD = 1e9;

/** What makes a row one: two rows of one key in a file are no publish's (it adds them into one). */
function rowKey(r: PublishedRow): string {
  const empty = r.sessions_without_usage.length > 0 ? "empty" : "";
  return JSON.stringify([r.slot, r.provider, r.model, r.agent_version, r.project, empty]);
}

/** A row's fields, as publish writes them: a row with any other is not one (and is never hashed). */
const ROW_KEYS: ReadonlySet<string> = new Set<keyof PublishedRow>([
  "slot",
  "provider",
  "model",
  "agent_version",
  "project",
  "sessions",
  "sessions_without_usage",
  "usage_recorded",
  "sources",
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
  "cost_usd",
  "prices_as_of",
  "project_priced",
]);

/** Why a row is not one publish would write; undefined when it is. */
function rowProblem(r: unknown): string | undefined {
  if (!r || typeof r !== "object" || Array.isArray(r)) return "a row is not an object";
  const x = r as Record<string, unknown>;
  for (const k in x) if (!ROW_KEYS.has(k)) return "a row has a field publish never writes";
  if (!isCount(x.slot) || x.slot % SLOT_MINUTES !== 0 || x.slot >= 24 * 60) return "a row's slot is not one";
  if (!isName(x.provider) || !isName(x.project)) return "a row names no provider or project";
  if (!(x.model === null || (isName(x.model) && MODEL_ID.test(x.model))))
    return "a row's model is not a model id";
  if (!(x.agent_version === null || (isName(x.agent_version) && AGENT_VERSION.test(x.agent_version))))
    return "a row's agent version is not a version";
  if (!isTexts(x.sessions) || !isTexts(x.sessions_without_usage) || !isTexts(x.sources))
    return "a row's sessions or sources are not a list of text";
  if (typeof x.usage_recorded !== "boolean" || typeof x.project_priced !== "boolean")
    return "a row's flags are not booleans";
  for (const k of TOKEN_FIELDS) {
    if (!isCount(x[k]) || x[k] > MAX_ROW_TOKENS) return `a row's ${k} is not a count up to 10^12`;
  }
  if (
    !(
      x.cost_usd === null ||
      (typeof x.cost_usd === "number" && x.cost_usd >= 0 && x.cost_usd <= MAX_ROW_COST_USD)
    )
  )
    return "a row's cost is not a number of USD up to 10^9";
  if (!isTexts(x.prices_as_of)) return "a row's price dates are not text";
  return undefined;
}

/** Why a day's rows are not ones publish would write (too many, a row of another shape); undefined when they are. */
export function rowsProblem(rows: readonly unknown[]): string | undefined {
  if (rows.length > MAX_ROWS_PER_DAY)
    return `${rows.length} rows, more than a day file holds (${MAX_ROWS_PER_DAY})`;
  const keys = new Set<string>();
  for (const r of rows) {
    const p = rowProblem(r);
    if (p) return p;
    const key = rowKey(r as PublishedRow);
    if (keys.has(key)) return "two rows of one slot, provider, model, version and project";
    keys.add(key);
  }
  return undefined;
}

/** A day file's content checked: the day, or why it is not summed. */
export function checkDay(
  value: unknown,
  expected: { device: string; day: string },
): { day: PublishedDay } | { problem: string } {
  if (!isCalendarDay(expected.day)) return { problem: "named for no day of the calendar" };
  if (!value || typeof value !== "object") return { problem: "not a usage day file" };
  const d = value as Partial<PublishedDay>;
  if (d.format !== DAY_FORMAT || d.format_version !== FORMAT_VERSION || d.slot_minutes !== SLOT_MINUTES)
    return { problem: "not a usage day file of this format" };
  if (d.device_id !== expected.device) return { problem: "another device's file in this device's folder" };
  if (d.day !== expected.day) return { problem: "a day file named for another day" };
  if (!isIso(d.published_at) || !isName(d.device_name) || !LABEL.test(d.device_name))
    return { problem: "no publish time or device name" };
  if (!Array.isArray(d.rows) || typeof d.rows_sha256 !== "string") return { problem: "no rows" };
  const problem = rowsProblem(d.rows);
  if (problem) return { problem };
  // Only rows of the shape are hashed: they are flat, so JSON.stringify cannot overflow the stack.
  if (rowsHash(d.rows) !== d.rows_sha256)
    return { problem: "torn: its rows are not the ones published (cut or merged in transit)" };
  return { day: d as PublishedDay };
}

export function checkDevice(value: unknown, device: string): PublishedDevice | undefined {
  if (!value || typeof value !== "object") return undefined;
  const d = value as Partial<PublishedDevice>;
  if (d.format !== DEVICE_FORMAT || d.device_id !== device || !DEVICE_ID.test(device)) return undefined;
  if (!isIso(d.published_at) || !isName(d.device_name) || !LABEL.test(d.device_name)) return undefined;
  if (!isTexts(d.days)) return undefined;
  return d as PublishedDevice;
}
