// For the scenario tests: a recorded session in a temp project, written by the real store, and the least a
// hand-written scenario file holds.

import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { findSession, type SessionRef } from "../../src/core/read/sessions.ts";
import { event, spec } from "../helpers/session.ts";

/** A scenario file without the defaulted fields, for a test to add what it checks to. */
export const MINIMAL_SCENARIO = {
  schema_version: 1,
  id: "s",
  source_session: { provider: "claude", session_id: "claude:x", archive: null, repository_revision: null },
  setup_messages: [],
  continuation_prompt: "go",
};

export const ANSWER = "The cache lives in IndexStore; flush it with make flush.";

export function recordSession(root: string, answer = ANSWER): SessionRef {
  const usage = (n: number): NormalizedEvent => ({
    ...event("turn_usage", `u${n}`, {}),
    usage: { source: "hook-payload", input_tokens: 100, output_tokens: 40 * n, cache_read_input_tokens: 10 },
  });
  const events: NormalizedEvent[] = [
    event("session_start", "s0", {}),
    event("user_prompt", "p1", { prompt: "Where does the cache live?" }),
    event("assistant_message", "a1", { text: "Let me look." }),
    usage(1),
    { ...event("user_prompt", "sub", { prompt: "a subagent's task" }), agent_id: "agent-1" },
    event("user_prompt", "p2", { prompt: "And how is it flushed?" }),
    event("assistant_message", "a2", { text: answer }),
    usage(2),
  ];
  recordEvents(spec(root), events);
  return findSession(root, "last");
}
