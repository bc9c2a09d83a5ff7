// Events stamped by a clock of the test's own, 100 ms apart, so a fixture's times (and "now" just after its
// last event) do not depend on when the test runs.
import type { NormalizedEvent } from "../../src/core/archive/event.ts";

export interface EventClock {
  /** The clock's time in milliseconds: that of the last event stamped. */
  now(): number;
  /** Moves the clock on 100 ms; the new time as an ISO string. */
  tick(): string;
  /** An event stamped at the next tick; a session_end is terminal. */
  ev(
    kind: NormalizedEvent["kind"],
    id: string,
    payload?: Record<string, unknown>,
    extra?: Partial<NormalizedEvent>,
  ): NormalizedEvent;
}

export function eventClock(start = "2026-12-01T10:00:00.000Z"): EventClock {
  let ms = Date.parse(start);
  const tick = () => {
    ms += 100;
    return new Date(ms).toISOString();
  };
  return {
    now: () => ms,
    tick,
    ev: (kind, id, payload = {}, extra = {}) => ({
      kind,
      event_id: id,
      payload,
      timestamp: tick(),
      terminal: kind === "session_end",
      ...extra,
    }),
  };
}
