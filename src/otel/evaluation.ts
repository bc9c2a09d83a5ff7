// Scenario results as `gen_ai.evaluation.result` events, parented to the turn they graded: a scenario grades
// a session's final answer, so each sample becomes one `evaluate {scenario}` span under the root of that
// session's last turn, in the same trace, carrying one event per check and one for the sample as a whole.
// A new span rather than events added to the exported root: the root was sent already and is never resent
// changed. Its id is derived from the session, the scenario's hash and the sample, so sending the same
// result again duplicates nothing. Evidence (an excerpt of the answer or a validator's output) is content:
// only with the opt-in.
import type { Manifest } from "../core/archive/schemas.ts";
import type { ScenarioResult } from "../scenario/schema.ts";
import { mapSession, sessionAttributes } from "./map.ts";
import { type Span, spanIdFor } from "./model.ts";
import { ATTR, EVENT, PROVIDER_NAME } from "./semconv.ts";

export interface EvaluatedSession {
  dir: string;
  manifest: Manifest;
}

const MAX_EVIDENCE_CHARS = 4096;

/** The session a sample graded: its replay run, or for a recorded grading the source session itself. */
export function sampleSessionId(
  result: ScenarioResult,
  sample: ScenarioResult["samples"][number],
): string | null {
  return sample.run_session_id ?? (sample.against === "recorded" ? result.source_session_id : null);
}

export function evaluationSpans(
  result: ScenarioResult,
  find: (sessionId: string) => EvaluatedSession | undefined,
  content: boolean,
): { spans: Array<{ session: EvaluatedSession; span: Span }>; missing: string[] } {
  const spans: Array<{ session: EvaluatedSession; span: Span }> = [];
  const missing: string[] = [];
  const at = Date.parse(result.created_at);
  for (const sample of result.samples) {
    const id = sampleSessionId(result, sample);
    const session = id ? find(id) : undefined;
    const last = session
      ? mapSession(session.dir, session.manifest, { now: Number.POSITIVE_INFINITY })
          .turns.filter((t) => t.spans.length > 0)
          .at(-1)
      : undefined;
    const root = last?.spans[0];
    if (!session || !root) {
      missing.push(id ?? `${sample.against}/${sample.arm}/${sample.repetition}`);
      continue;
    }
    const key = `evaluation\0${result.scenario.sha256}\0${sample.against}\0${sample.arm}\0${sample.repetition}`;
    const time = Number.isFinite(at) ? Math.max(at, root.endMs) : root.endMs;
    const events = sample.checks.map((c) => ({
      name: EVENT.evaluationResult,
      timeMs: time,
      attributes: {
        [ATTR.evaluationName]: `${c.kind}:${c.id}`,
        [ATTR.evaluationScoreLabel]: c.outcome,
        ...(c.outcome === "not_measured"
          ? {}
          : { [ATTR.evaluationScoreValue]: c.outcome === "pass" ? 1 : 0 }),
        ...(content && c.evidence
          ? { [ATTR.evaluationExplanation]: c.evidence.slice(0, MAX_EVIDENCE_CHARS) }
          : {}),
      },
    }));
    events.push({
      name: EVENT.evaluationResult,
      timeMs: time,
      attributes: {
        [ATTR.evaluationName]: result.scenario.id,
        [ATTR.evaluationScoreLabel]: sample.passed ? "pass" : "fail",
        [ATTR.evaluationScoreValue]: sample.passed ? 1 : 0,
      },
    });
    spans.push({
      session,
      span: {
        traceId: root.traceId,
        spanId: spanIdFor(session.manifest.session_id, key),
        parentSpanId: root.spanId,
        name: `evaluate ${result.scenario.id}`,
        kind: "internal",
        startMs: time,
        endMs: time,
        attributes: {
          ...sessionAttributes(session.manifest),
          [ATTR.providerName]: PROVIDER_NAME[session.manifest.provider] ?? session.manifest.provider,
          "tapedeck.scenario.id": result.scenario.id,
          "tapedeck.scenario.sha256": result.scenario.sha256,
          "tapedeck.scenario.against": sample.against,
          "tapedeck.scenario.arm": sample.arm,
          "tapedeck.scenario.repetition": sample.repetition,
          "tapedeck.scenario.passed": sample.passed,
        },
        events,
        status: { code: sample.passed ? "ok" : "error" },
      },
    });
  }
  return { spans, missing };
}
