// A scenario file (seed "Load a recorded session into a scenario"): the prompts to run, the session it came
// from, and the expectations a run's final answer is checked against. Only expected_facts and
// forbidden_facts are checked here; validators and limits are kept for the scenario runner.
import { readRegularFileSync } from "../core/fsutil.ts";

export interface Scenario {
  id: string;
  path: string;
  sourceSession: string;
  provider: string | null;
  prompts: string[];
  expectedFacts: string[];
  forbiddenFacts: string[];
}

export class ScenarioError extends Error {
  override name = "ScenarioError";
}

const MAX_SCENARIO_BYTES = 4 * 1024 * 1024;

function facts(value: unknown, field: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ScenarioError(`${field} must be a list`);
  return value.map((f) => {
    const text =
      typeof f === "string"
        ? f
        : ((f as { text?: unknown; fact?: unknown })?.text ?? (f as { fact?: unknown })?.fact);
    if (typeof text !== "string" || text === "")
      throw new ScenarioError(`${field}: each fact is a string or {"text"}`);
    return text;
  });
}

export function loadScenario(path: string): Scenario {
  let raw: unknown;
  try {
    raw = JSON.parse(readRegularFileSync(path, MAX_SCENARIO_BYTES, true).toString("utf8"));
  } catch (error) {
    throw new ScenarioError(
      `${path}: not a readable JSON scenario (${error instanceof Error ? error.message : "unreadable"})`,
    );
  }
  const s = raw as Record<string, unknown>;
  if (!s || typeof s !== "object") throw new ScenarioError(`${path}: not a scenario object`);
  const source = s.source_session as { session_id?: unknown; provider?: unknown } | undefined;
  if (typeof source?.session_id !== "string")
    throw new ScenarioError(`${path}: source_session.session_id is missing`);
  const setup = Array.isArray(s.setup_messages) ? s.setup_messages : [];
  const prompts = setup
    .map((m) => (m as { prompt?: unknown })?.prompt)
    .filter((p): p is string => typeof p === "string" && p !== "");
  if (typeof s.continuation_prompt === "string" && s.continuation_prompt !== "")
    prompts.push(s.continuation_prompt);
  if (prompts.length === 0)
    throw new ScenarioError(`${path}: no prompt (setup_messages or continuation_prompt)`);
  return {
    id: typeof s.id === "string" ? s.id : "scenario",
    path,
    sourceSession: source.session_id,
    provider: typeof source.provider === "string" ? source.provider : null,
    prompts,
    expectedFacts: facts(s.expected_facts, "expected_facts"),
    forbiddenFacts: facts(s.forbidden_facts, "forbidden_facts"),
  };
}

export interface CheckResult {
  passed: boolean;
  missing: string[];
  forbidden: string[];
}

/** Facts are matched case-insensitively in the final answer; a run without an answer fails. */
export function checkAnswer(
  answer: string | undefined,
  expected: string[],
  forbidden: string[],
): CheckResult {
  const text = (answer ?? "").toLowerCase();
  const missing = expected.filter((f) => !text.includes(f.toLowerCase()));
  const found = forbidden.filter((f) => text.includes(f.toLowerCase()));
  return {
    passed: answer !== undefined && missing.length === 0 && found.length === 0,
    missing,
    forbidden: found,
  };
}
