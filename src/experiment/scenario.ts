// `experiment run --scenario FILE`: the prompts, source session and facts of a scenario file in the one
// format tapedeck has (src/scenario/, schemas/scenario.v1), and the facts checked on each run's final answer.
// Validators and limits belong to `tapedeck scenario run`.

import { findFact } from "../scenario/checks.ts";
import { loadScenarioFile, ScenarioFileError } from "../scenario/load.ts";
import type { Fact } from "../scenario/schema.ts";

export type { Fact };

export interface Scenario {
  id: string;
  path: string;
  sourceSession: string;
  provider: string | null;
  prompts: string[];
  expectedFacts: Fact[];
  forbiddenFacts: Fact[];
}

export class ScenarioError extends Error {
  override name = "ScenarioError";
}

export function loadScenario(path: string): Scenario {
  try {
    const { scenario } = loadScenarioFile(path);
    return {
      id: scenario.id,
      path,
      sourceSession: scenario.source_session.session_id,
      provider: scenario.source_session.provider,
      prompts: [...scenario.setup_messages.map((m) => m.prompt), scenario.continuation_prompt],
      expectedFacts: scenario.expected_facts,
      forbiddenFacts: scenario.forbidden_facts,
    };
  } catch (error) {
    if (error instanceof ScenarioFileError) throw new ScenarioError(error.message);
    throw error;
  }
}

export interface CheckResult {
  passed: boolean;
  /** The ids of the expected facts not found, and of the forbidden ones found. */
  missing: string[];
  forbidden: string[];
}

/** A run without a final answer fails; facts match as the scenario runner matches them. */
export function checkAnswer(answer: string | undefined, expected: Fact[], forbidden: Fact[]): CheckResult {
  const text = answer ?? "";
  const missing = expected.filter((f) => findFact(f, text) === null).map((f) => f.id);
  const found = forbidden.filter((f) => findFact(f, text) !== null).map((f) => f.id);
  return {
    passed: answer !== undefined && missing.length === 0 && found.length === 0,
    missing,
    forbidden: found,
  };
}
