// Scenario results as gen_ai.evaluation.result events under the root of the turn they graded.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { evaluationSpans } from "../../src/otel/evaluation.ts";
import { mapSession, readManifest } from "../../src/otel/map.ts";
import { ScenarioResult } from "../../src/scenario/schema.ts";
import { identity, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();
let clock = Date.parse("2026-12-01T10:00:00.000Z");
const tick = () => {
  clock += 100;
  return new Date(clock).toISOString();
};
const ev = (
  kind: NormalizedEvent["kind"],
  id: string,
  payload: Record<string, unknown>,
  turn: string,
): NormalizedEvent => ({
  kind,
  event_id: id,
  payload,
  turn_id: turn,
  timestamp: tick(),
});

function result(sessionId: string) {
  const score = { value: 1, passed: 1, total: 1 };
  /** A sample that measured nothing, but for `over`. */
  const sample = (over: Record<string, unknown>) => ({
    labels: {},
    archive: null,
    scores: { expected_facts: score, forbidden_facts: score, validators: score, limits: score },
    final_answer_excerpt: null,
    model_usage: {
      input_tokens: null,
      output_tokens: null,
      cache_read_input_tokens: null,
      cache_creation_input_tokens: null,
      cost_usd: null,
    },
    turn_count: null,
    injected_bytes: null,
    total_time: null,
    working_time: null,
    limit: null,
    error: null,
    notes: [],
    ...over,
  });
  return ScenarioResult.parse({
    schema_version: 1,
    scenario: { id: "codename", sha256: "a".repeat(64), path: "s.json" },
    source_session_id: sessionId,
    against: "recorded",
    created_at: "2026-12-01T11:00:00.000Z",
    experiment_root: null,
    passed: false,
    samples: [
      sample({
        against: "recorded",
        arm: "recorded",
        repetition: 0,
        run_session_id: null,
        passed: false,
        checks: [
          { kind: "expected_fact", id: "f1", outcome: "pass", evidence: "the codename is BLUE" },
          { kind: "validator", id: "v1", outcome: "fail", evidence: "exit 1", exit_code: 1 },
          { kind: "limit", id: "cost", outcome: "not_measured", evidence: null },
        ],
        turn_count: 2,
      }),
      sample({
        against: "replay",
        arm: "off",
        repetition: 1,
        run_session_id: "claude:gone",
        passed: true,
        checks: [],
      }),
    ],
  });
}

describe("evaluation results", () => {
  it("one evaluate span per sample under the last turn's root, an event per check and for the sample", () => {
    const root = project();
    const dir = recordEvents(
      spec(root, {
        identity: identity("sess-1", "claude"),
        sessionRoot: join(root, ".tapedeck", "claude-sessions"),
      }),
      [
        ev("user_prompt", "p1", { prompt: "first" }, "t1"),
        ev("user_prompt", "p2", { prompt: "what is the codename?" }, "t2"),
        ev("assistant_message", "a2", { text: "BLUE" }, "t2"),
      ],
      tick,
    ).sessionDir;
    const manifest = readManifest(dir)!;
    const find = (id: string) => (id === manifest.session_id ? { dir, manifest } : undefined);
    const { spans, missing } = evaluationSpans(result(manifest.session_id), find, false);
    expect(missing).toEqual(["claude:gone"]);
    expect(spans).toHaveLength(1);
    const last = mapSession(dir, manifest, { now: clock }).turns.at(-1)!.spans[0]!;
    const span = spans[0]!.span;
    expect(span).toMatchObject({
      traceId: last.traceId,
      parentSpanId: last.spanId,
      name: "evaluate codename",
      status: { code: "error" },
    });
    expect(span.attributes).toMatchObject({
      "session.id": "sess-1",
      "tapedeck.scenario.id": "codename",
      "tapedeck.scenario.passed": false,
    });
    expect(span.events.map((e) => e.attributes)).toEqual([
      {
        "gen_ai.evaluation.name": "expected_fact:f1",
        "gen_ai.evaluation.score.label": "pass",
        "gen_ai.evaluation.score.value": 1,
      },
      {
        "gen_ai.evaluation.name": "validator:v1",
        "gen_ai.evaluation.score.label": "fail",
        "gen_ai.evaluation.score.value": 0,
      },
      { "gen_ai.evaluation.name": "limit:cost", "gen_ai.evaluation.score.label": "not_measured" },
      {
        "gen_ai.evaluation.name": "codename",
        "gen_ai.evaluation.score.label": "fail",
        "gen_ai.evaluation.score.value": 0,
      },
    ]);
    expect(span.events.every((e) => e.name === "gen_ai.evaluation.result")).toBe(true);
    // The same result again: the same span id. Evidence only with the content opt-in.
    const again = evaluationSpans(result(manifest.session_id), find, true).spans[0]!.span;
    expect(again.spanId).toBe(span.spanId);
    expect(again.events[0]!.attributes["gen_ai.evaluation.explanation"]).toBe("the codename is BLUE");
  });
});
