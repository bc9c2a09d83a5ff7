// The review contract applied to one observation (a recorded session's or a replay run's final answer and
// figures): each expected fact present, each forbidden fact absent, each validator's exit code, each limit,
// one check each with its evidence. The same function grades every arm, so arms differ only by what they did.
import { findFact } from "../core/ports/facts.ts";
import { type Check, type Fact, LIMIT_NAMES, type Limits, type Sample, type Scenario } from "./schema.ts";
import { runValidator } from "./validator.ts";

export interface Observation {
  finalAnswer: string | null;
  durationSeconds: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  turns: number | null;
  injectedBytes: number | null;
  costUsd: number | null;
}

export function factChecks(scenario: Scenario, answer: string | null): Check[] {
  const out: Check[] = [];
  for (const fact of scenario.expected_facts) {
    const found = answer === null ? null : findFact(fact, answer);
    out.push({
      kind: "expected_fact",
      id: fact.id,
      outcome: found !== null ? "pass" : "fail",
      evidence: found ?? (answer === null ? "no final answer" : "not in the final answer"),
    });
  }
  for (const fact of scenario.forbidden_facts) {
    const found = answer === null ? null : findFact(fact, answer);
    out.push({
      kind: "forbidden_fact",
      id: fact.id,
      // No answer states nothing forbidden; the expected facts fail it already.
      outcome: found === null ? "pass" : "fail",
      evidence: found ?? (answer === null ? "no final answer" : "not in the final answer"),
    });
  }
  return out;
}

/** The figure of an observation each limit bounds. */
const MEASURED: Record<(typeof LIMIT_NAMES)[number], Exclude<keyof Observation, "finalAnswer">> = {
  max_duration_seconds: "durationSeconds",
  max_output_tokens: "outputTokens",
  max_input_tokens: "inputTokens",
  max_turns: "turns",
  max_injected_bytes: "injectedBytes",
  max_cost_usd: "costUsd",
};

export function limitChecks(limits: Limits, o: Observation): Check[] {
  const out: Check[] = [];
  for (const name of LIMIT_NAMES) {
    const limit = limits[name];
    if (limit === null || limit === undefined) continue;
    const measured = o[MEASURED[name]];
    out.push({
      kind: "limit",
      id: name,
      outcome: measured === null ? "not_measured" : measured <= limit ? "pass" : "fail",
      evidence: measured === null ? "not measured for this run" : `${round(measured)} of at most ${limit}`,
      measured: measured === null ? null : round(measured),
      limit,
    });
  }
  return out;
}

const round = (n: number) => Math.round(n * 1000) / 1000;

export async function validatorChecks(
  scenario: Scenario,
  cwd: string | null,
  env: NodeJS.ProcessEnv,
  progress: (line: string) => void,
): Promise<Check[]> {
  const out: Check[] = [];
  for (const v of scenario.validators) {
    if (cwd === null) {
      out.push({ kind: "validator", id: v.name, outcome: "fail", evidence: "no work tree to run it in" });
      continue;
    }
    progress(`validator ${v.name} (timeout ${v.timeout_s}s)`);
    const r = await runValidator(v, cwd, env);
    const ok = !r.timedOut && r.exitCode === v.expect_exit;
    const why = r.timedOut
      ? `killed at its timeout of ${v.timeout_s}s (with its process group)`
      : r.exitCode === null
        ? `ended by ${r.signal}`
        : `exit ${r.exitCode}, expected ${v.expect_exit}`;
    out.push({
      kind: "validator",
      id: v.name,
      outcome: ok ? "pass" : "fail",
      evidence: `${why}\n${r.output}`,
      exit_code: r.exitCode,
      timed_out: r.timedOut,
      output_bytes: r.outputBytes,
    });
  }
  return out;
}

function score(checks: Check[], kind: Check["kind"]) {
  const mine = checks.filter((c) => c.kind === kind);
  const passed = mine.filter((c) => c.outcome !== "fail").length;
  return { value: mine.length === 0 ? 1 : passed / mine.length, passed, total: mine.length };
}

export function scoresOf(checks: Check[]): Sample["scores"] {
  return {
    expected_facts: score(checks, "expected_fact"),
    forbidden_facts: score(checks, "forbidden_fact"),
    validators: score(checks, "validator"),
    limits: score(checks, "limit"),
  };
}

/** The first limit exceeded, in Inspect's terms. */
export function limitHit(checks: Check[]): Sample["limit"] {
  const c = checks.find((k) => k.kind === "limit" && k.outcome === "fail");
  return c ? { type: c.id, limit: c.limit ?? 0, measured: c.measured ?? 0 } : null;
}

/**
 * The answer quality an experiment's report can use: the facts only (no validator, no limit), so a pass
 * rate over runs of several arms compares what the agents said. A bare string is a text fact named by
 * itself (what experiment.json held before facts had ids). No answer fails.
 */
export function answerCheck(
  expected: ReadonlyArray<Fact | string>,
  forbidden: ReadonlyArray<Fact | string>,
  answer: string | null | undefined,
): { passed: boolean; missing: string[]; forbidden: string[] } {
  const fact = (f: Fact | string): Fact => (typeof f === "string" ? { id: f, text: f } : f);
  const text = answer ?? "";
  const missing = expected.map(fact).filter((f) => findFact(f, text) === null);
  const found = forbidden.map(fact).filter((f) => findFact(f, text) !== null);
  return {
    passed: answer !== null && answer !== undefined && missing.length === 0 && found.length === 0,
    missing: missing.map((f) => f.id),
    forbidden: found.map((f) => f.id),
  };
}

export function answerPasses(scenario: Scenario, answer: string | null): boolean {
  return answerCheck(scenario.expected_facts, scenario.forbidden_facts, answer).passed;
}

export { findFact };
