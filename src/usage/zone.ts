// Days, weeks and months of a time zone for the usage reports: an instant's local date through Intl (the only
// source of a zone's rules in Node), memoised per instant asked, because a report asks for the same slots over
// and over and Intl takes microseconds per call.
import { UsageQueryError } from "./errors.ts";

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

export class Calendar {
  private readonly format: Intl.DateTimeFormat;
  private readonly days = new Map<number, string>();

  constructor(readonly zone: string) {
    this.format = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
  }

  /** `2026-12-01`: the local date of an instant (ms since the epoch). */
  day(ms: number): string {
    let d = this.days.get(ms);
    if (d === undefined) {
      const parts: Record<string, string> = {};
      for (const p of this.format.formatToParts(ms)) parts[p.type] = p.value;
      d = `${parts.year!.padStart(4, "0")}-${parts.month}-${parts.day}`;
      this.days.set(ms, d);
    }
    return d;
  }

  /** The report's key of an instant: its date, its week's Monday (ISO weeks), or its month. */
  key(ms: number, period: Period): string {
    const day = this.day(ms);
    if (period === "day") return day;
    if (period === "month") return day.slice(0, 7);
    return mondayOf(day);
  }
}

/** The Monday of a date's ISO week, as a date. */
export function mondayOf(day: string): string {
  const [y, m, d] = day.split("-").map(Number) as [number, number, number];
  const at = Date.UTC(y, m - 1, d);
  const weekday = (new Date(at).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return new Date(at - weekday * DAY_MS).toISOString().slice(0, 10);
}
