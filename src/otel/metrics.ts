// The inference usage counters (the conventions' gen_ai.client.inference.usage.*, per provider and model) of
// a session, for a team's Prometheus, Grafana or ClickHouse without any content. Each export sends the
// session's totals so far as cumulative sums that start at the session's start: the totals are folded
// again from the archive up to the watermark (the same mapping as the spans, so a response counts once,
// as its chat span does), which makes them the same numbers with the same timestamps every time that
// prefix is sent. Sent again, they replace the point a backend has; they never add to it. Each session is
// its own series (`service.instance.id` = its archive id): a dashboard sums over them.
import type { Manifest } from "../core/archive/schemas.ts";
import { mapSession } from "./map.ts";
import type { Attributes, ModelUsage } from "./model.ts";
import type { Counter } from "./otlp.ts";
import { ATTR, METRIC, OPERATION, PROVIDER_NAME } from "./semconv.ts";

export interface SessionUsage {
  startMs: number;
  timeMs: number;
  models: ModelUsage[];
}

/** The session's usage per model over its closed turns up to `upTo` (the watermark), and when it ended. */
export function sessionUsage(sessionDir: string, manifest: Manifest, upTo: number): SessionUsage {
  const byModel = new Map<string, ModelUsage>();
  let timeMs = Date.parse(manifest.started_at);
  let offset = 0;
  let turns = 0;
  while (offset < upTo) {
    const mapping = mapSession(sessionDir, manifest, {
      fromOffset: offset,
      turnsBefore: turns,
      now: Number.POSITIVE_INFINITY,
      maxSpans: 8192,
    });
    const accepted = mapping.turns.filter((t) => t.closed && t.endOffset <= upTo);
    if (accepted.length === 0) break;
    for (const t of accepted) {
      for (const u of t.usage) {
        const m = byModel.get(u.model) ?? {
          ...u,
          input: 0,
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
          reasoning: 0,
        };
        m.input += u.input;
        m.output += u.output;
        m.cacheRead += u.cacheRead;
        m.cacheWrite += u.cacheWrite;
        m.reasoning += u.reasoning;
        byModel.set(u.model, m);
      }
      const end = t.spans[0]?.endMs;
      if (end !== undefined && Number.isFinite(end)) timeMs = Math.max(timeMs, end);
      if (t.spans.length > 0) turns += 1;
    }
    offset = accepted.at(-1)!.endOffset;
    if (!mapping.more) break;
  }
  const startMs = Date.parse(manifest.started_at);
  return {
    startMs: Number.isFinite(startMs) ? startMs : timeMs,
    timeMs: Number.isFinite(timeMs) ? timeMs : Date.now(),
    models: [...byModel.values()],
  };
}

const COUNTERS: Array<{ name: string; description: string; of: keyof Omit<ModelUsage, "model"> }> = [
  { name: METRIC.inputTokens, description: "Input tokens used, cached ones included.", of: "input" },
  { name: METRIC.outputTokens, description: "Output tokens used, reasoning included.", of: "output" },
  { name: METRIC.cacheReadTokens, description: "Input tokens served from the cache.", of: "cacheRead" },
  { name: METRIC.cacheWriteTokens, description: "Input tokens written to the cache.", of: "cacheWrite" },
  { name: METRIC.reasoningTokens, description: "Output tokens used for reasoning.", of: "reasoning" },
];

/** One counter per convention name, one point per model; a model with no usage at all is left out. */
export function usageCounters(manifest: Manifest, usage: SessionUsage): Counter[] {
  const provider = PROVIDER_NAME[manifest.provider] ?? manifest.provider;
  const models = usage.models.filter(
    (m) => m.input + m.output + m.cacheRead + m.cacheWrite + m.reasoning > 0,
  );
  if (models.length === 0) return [];
  return COUNTERS.map((c) => ({
    name: c.name,
    description: c.description,
    unit: "{token}",
    points: models.map((m) => ({
      attributes: {
        [ATTR.operationName]: OPERATION.chat,
        [ATTR.providerName]: provider,
        [ATTR.requestModel]: m.model,
        // The clients report no modality breakdown; the conventions name that case.
        [ATTR.tokenModality]: "unknown",
      } satisfies Attributes,
      value: m[c.of],
    })),
  }));
}
