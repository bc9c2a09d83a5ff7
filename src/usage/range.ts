// `--since` and `--until` of a usage report: a local date of the report's time zone (the whole day, inclusive),
// an instant (an ISO time), or a duration back from now (7d, 12h, 30m, 2w).
import { parseAge } from "../core/base/age.ts";
import { UsageQueryError } from "./query-error.ts";

export interface Range {
  /** local dates, inclusive */
  sinceDay?: string;
  untilDay?: string;
  /** instants in ms, inclusive */
  sinceMs?: number;
  untilMs?: number;
}

const DATE = /^(\d{4})-?(\d\d)-?(\d\d)$/;

function validDate(y: number, m: number, d: number): boolean {
  const at = new Date(Date.UTC(y, m - 1, d));
  return at.getUTCFullYear() === y && at.getUTCMonth() === m - 1 && at.getUTCDate() === d;
}

function parseBound(
  option: "--since" | "--until",
  text: string,
  now: number,
): { day: string } | { ms: number } {
  const age = parseAge(text);
  if (age !== undefined) return { ms: now - age };
  const date = DATE.exec(text.trim());
  if (date) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])];
    if (validDate(y, m, d)) return { day: `${date[1]}-${date[2]}-${date[3]}` };
  } else if (/^\d{4}-\d\d-\d\dT/.test(text)) {
    const at = Date.parse(text);
    if (Number.isFinite(at)) return { ms: at };
  }
  throw new UsageQueryError(
    `${option}: "${text}" is not a date (2026-11-30, 20261130), a time (2026-11-30T09:00Z) or a duration (7d, 12h, 30m, 2w)`,
  );
}

export function parseRange(since: string | undefined, until: string | undefined, now = Date.now()): Range {
  const r: Range = {};
  if (since !== undefined) {
    const b = parseBound("--since", since, now);
    if ("day" in b) r.sinceDay = b.day;
    else r.sinceMs = b.ms;
  }
  if (until !== undefined) {
    const b = parseBound("--until", until, now);
    if ("day" in b) r.untilDay = b.day;
    else r.untilMs = b.ms;
  }
  return r;
}

export function hasDays(r: Range): boolean {
  return r.sinceDay !== undefined || r.untilDay !== undefined;
}

export function hasInstants(r: Range): boolean {
  return r.sinceMs !== undefined || r.untilMs !== undefined;
}

/** Whether an instant and its local day are in the range. */
export function inRange(r: Range, ms: number, day: () => string): boolean {
  if (r.sinceMs !== undefined && ms < r.sinceMs) return false;
  if (r.untilMs !== undefined && ms > r.untilMs) return false;
  if (r.sinceDay !== undefined && day() < r.sinceDay) return false;
  if (r.untilDay !== undefined && day() > r.untilDay) return false;
  return true;
}

/** Whether an instant bound of the range falls inside [start, end] without being its start. */
export function cutsThrough(r: Range, start: number, end: number): boolean {
  const inside = (t: number | undefined) => t !== undefined && t > start && t <= end;
  // `until` is inclusive: a slot cut after its last millisecond is whole, one cut before it is not.
  return inside(r.sinceMs) || (r.untilMs !== undefined && r.untilMs >= start && r.untilMs < end);
}
