// Days, weeks and months of a time zone for the usage reports: an instant's local date through Intl (the only
// source of a zone's rules in Node). A report asks for tens of thousands of instants and Intl takes microseconds
// per call, so each local day is learnt once as an interval of UTC and the instants in it are looked up.
import { UsageQueryError } from "./query-error.ts";

/** The zone's canonical name; throws UsageQueryError for a name Intl does not know. */
export function checkTimeZone(zone: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    throw new UsageQueryError(
      `unknown time zone "${zone}" (an IANA name such as UTC, Europe/Paris, Asia/Tokyo)`,
    );
  }
}

/** The zone this process runs in (TZ, else the system's). */
export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

export type Period = "day" | "week" | "month";

const DAY_MS = 86_400_000;

/** A local day as an interval of UTC: [start, end). */
interface DaySpan {
  start: number;
  end: number;
  day: string;
}

export class Calendar {
  private readonly format: Intl.DateTimeFormat;
  /** Whole local days found so far, sorted: most instants fall in one and need no Intl call. */
  private readonly spans: DaySpan[] = [];
  private last: DaySpan | undefined;
  /** Instants of days whose offset changes within them (DST), asked one by one. */
  private readonly odd = new Map<number, string>();
  private readonly mondays = new Map<string, string>();

  constructor(readonly zone: string) {
    this.format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  }

  /** `2026-12-01`: the local date of an instant (ms since the epoch). */
  day(ms: number): string {
    const last = this.last;
    if (last && ms >= last.start && ms < last.end) return last.day;
    const span = this.find(ms);
    if (span) {
      this.last = span;
      return span.day;
    }
    return this.odd.get(ms) ?? this.learn(ms);
  }

  private find(ms: number): DaySpan | undefined {
    let lo = 0;
    let hi = this.spans.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const s = this.spans[mid]!;
      if (ms < s.start) hi = mid - 1;
      else if (ms >= s.end) lo = mid + 1;
      else return s;
    }
    return undefined;
  }

  /** Asks Intl for an instant, and keeps its whole local day when the offset holds from midnight to midnight. */
  private learn(ms: number): string {
    const w = this.wall(ms);
    const offset = w.wallMs - ms;
    const start = Date.UTC(w.y, w.m - 1, w.d) - offset;
    const end = Date.UTC(w.y, w.m - 1, w.d + 1) - offset;
    const whole =
      this.wall(start).day === w.day &&
      this.wall(start - 1).day !== w.day &&
      this.wall(end - 1).day === w.day &&
      this.wall(end).day !== w.day &&
      this.wall(start).wallMs - start === offset &&
      this.wall(end - 1).wallMs - (end - 1) === offset;
    if (whole) {
      const span = { start, end, day: w.day };
      const at = this.spans.findIndex((s) => s.start > start);
      this.spans.splice(at < 0 ? this.spans.length : at, 0, span);
      this.last = span;
    } else this.odd.set(ms, w.day);
    return w.day;
  }

  private wall(ms: number): { y: number; m: number; d: number; day: string; wallMs: number } {
    const p: Record<string, string> = {};
    for (const part of this.format.formatToParts(ms)) p[part.type] = part.value;
    const [y, m, d] = [Number(p.year), Number(p.month), Number(p.day)];
    const wallMs =
      Date.UTC(y, m - 1, d, Number(p.hour), Number(p.minute), Number(p.second)) +
      (((ms % 1000) + 1000) % 1000);
    return { y, m, d, day: `${p.year!.padStart(4, "0")}-${p.month}-${p.day}`, wallMs };
  }

  /** Whether two instants are on one local day: one lookup when the first's day is a whole span. */
  sameDay(a: number, b: number): boolean {
    const day = this.day(a);
    const last = this.last;
    if (last && last.day === day && a >= last.start && b >= last.start && b < last.end) return true;
    return this.day(b) === day;
  }

  /** The report's key of an instant: its date, its week's Monday (ISO weeks), or its month. */
  key(ms: number, period: Period): string {
    const day = this.day(ms);
    if (period === "day") return day;
    if (period === "month") return day.slice(0, 7);
    let monday = this.mondays.get(day);
    if (monday === undefined) {
      monday = mondayOf(day);
      this.mondays.set(day, monday);
    }
    return monday;
  }
}

/** The Monday of a date's ISO week, as a date. */
export function mondayOf(day: string): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const at = Date.UTC(y, m - 1, d);
  const weekday = (new Date(at).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return new Date(at - weekday * DAY_MS).toISOString().slice(0, 10);
}
