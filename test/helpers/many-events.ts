// A long generated session: many prompt and answer events, recorded through the store in batches.
import { expect } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { findSession } from "../../src/core/read/sessions.ts";
import { event, spec } from "./session.ts";

/** A session of `n` prompt and answer events (~600 bytes each), recorded through the store in batches. */
export function recordMany(root: string, n: number) {
  const s = spec(root, {}, { max_session_bytes: 2 * 1024 ** 3 });
  for (let start = 0; start < n; start += 10_000) {
    const batch: NormalizedEvent[] = [];
    for (let i = start; i < Math.min(n, start + 10_000); i += 1) {
      const words = `item ${i} ${"lorem ipsum dolor ".repeat(30)}`;
      batch.push({
        ...(i % 2 === 0
          ? event("user_prompt", `p${i}`, { prompt: words })
          : event("assistant_message", `a${i}`, { text: words })),
        turn_id: `t${i >> 1}`,
      });
    }
    recordEvents(s, batch);
  }
  expect(findSession(root, "last").manifest.event_count).toBe(n);
}
