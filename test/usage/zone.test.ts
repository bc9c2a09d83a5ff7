import { describe, expect, it } from "vitest";
import { Calendar, mondayOf } from "../../src/usage/zone.ts";

const formats = new Map<string, Intl.DateTimeFormat>();

/**
 * The local date straight from Intl, one call per instant: what Calendar must always answer. format() and not
 * formatToParts(): the same date at 40% of the time (67 vs 162 ms for 70,000 instants), the file's whole cost.
 */
function intlDay(zone: string, ms: number): string {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    formats.set(zone, f);
  }
  // en-US with 2-digit parts: "MM/DD/YYYY".
  const d = f.format(ms);
  return `${d.slice(6)}-${d.slice(0, 2)}-${d.slice(3, 5)}`;
}

describe("Calendar", () => {
  // DST at midnight (Santiago, Havana), at 02:00 (New York), half-hour DST (Lord Howe), +05:45 (Kathmandu),
  // +13 across the date line (Apia), and Paris.
  const zones = [
    "America/New_York",
    "America/Santiago",
    "America/Havana",
    "Australia/Lord_Howe",
    "Asia/Kathmandu",
    "Pacific/Apia",
    "Europe/Paris",
  ];

  it.each(zones)(
    "gives Intl's local date for every instant asked, in %s, DST days and midnights included",
    (zone) => {
      const cal = new Calendar(zone);
      const from = Date.parse("2026-01-01T00:00:00.000Z");
      let seed = 42;
      const random = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const instants: number[] = [];
      for (let i = 0; i < 3000; i += 1) instants.push(from + Math.floor(random() * 366 * 86_400_000));
      // Either side of every quarter hour of the year: every local midnight (and every DST change) is one.
      for (let t = from; t < from + 366 * 86_400_000; t += 15 * 60_000) instants.push(t - 1, t);
      const wrong = instants.filter((ms) => cal.day(ms) !== intlDay(zone, ms));
      expect(wrong.slice(0, 5).map((ms) => new Date(ms).toISOString())).toEqual([]);
    },
  );

  it("names a week by its Monday and a month by its first seven characters", () => {
    expect(mondayOf("2026-12-06")).toBe("2026-11-30");
    expect(mondayOf("2026-12-07")).toBe("2026-12-07");
    expect(mondayOf("2027-01-01")).toBe("2026-12-28");
    const cal = new Calendar("Asia/Tokyo");
    expect(cal.key(Date.parse("2026-11-30T15:00:00.000Z"), "month")).toBe("2026-12");
    expect(cal.key(Date.parse("2026-11-30T14:59:59.999Z"), "week")).toBe("2026-11-30");
  });
});
