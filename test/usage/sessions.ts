// Sessions with usage for the usage reports' tests, recorded through the store (real manifests, envelopes
// and ids), each event at the time a test needs.
import { join } from "node:path";
import { DEFAULT_LIMITS } from "../../src/core/archive/bound.ts";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import type { Usage } from "../../src/core/archive/schemas.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { USAGE_FACTS } from "../../src/providers/usage-facts.ts";
import { type UsageQuery, usageReport } from "../../src/usage/report.ts";

export interface UsageAt {
  at: string;
  usage: Usage;
  agent_id?: string;
}

let counter = 0;

/** Records a session of `provider` with a prompt at `start` and one turn_usage per entry; answers its directory. */
export function recordUsage(
  project: string,
  provider: string,
  id: string,
  start: string,
  usages: UsageAt[],
  extra: NormalizedEvent[] = [],
): string {
  const events: NormalizedEvent[] = [
    { kind: "session_start", event_id: `start-${id}`, timestamp: start, payload: { source: "startup" } },
    {
      kind: "user_prompt",
      event_id: `prompt-${id}`,
      timestamp: start,
      payload: { prompt: `the task of ${id}` },
    },
    ...extra,
    ...usages.map((u) => {
      counter += 1;
      const e: NormalizedEvent = {
        kind: "turn_usage",
        event_id: `usage-${id}-${counter}`,
        timestamp: u.at,
        payload: {},
        usage: u.usage,
      };
      if (u.agent_id) e.agent_id = u.agent_id;
      return e;
    }),
  ];
  return recordEvents(
    {
      projectRoot: project,
      sessionRoot: join(project, ".tapedeck", `${provider}-sessions`),
      identity: {
        provider,
        provider_session_id: id,
        session_id: `${provider}:${id}`,
        identity_source: "provider",
      },
      mode: "capture-only",
      capabilities: [],
      agentPid: null,
      limits: DEFAULT_LIMITS,
    },
    events,
  ).sessionDir;
}

/** Anthropic's counts of one response. */
export function claudeUsage(
  model: string,
  input: number,
  output: number,
  cacheRead = 0,
  cacheWrite = 0,
  messageId?: string,
): Usage {
  const u: Usage = {
    source: "claude-transcript",
    model,
    input_tokens: input,
    output_tokens: output,
    cache_read_input_tokens: cacheRead,
    cache_creation_input_tokens: cacheWrite,
  };
  if (messageId) u.message_id = messageId;
  return u;
}

/** OpenAI's counts of one Codex response (its input holds the cache reads); `extra`: the other counts. */
export function codexUsage(
  model: string,
  input: number,
  output: number,
  messageId?: string,
  extra: Partial<Usage> = {},
): Usage {
  const u: Usage = {
    source: "codex-transcript",
    model,
    input_tokens: input,
    output_tokens: output,
    ...extra,
  };
  if (messageId) u.message_id = messageId;
  return u;
}

export function report(projects: string[], q: Partial<UsageQuery> & Pick<UsageQuery, "kind">) {
  return usageReport({ projects, timeZone: "UTC", facts: USAGE_FACTS, ...q });
}
