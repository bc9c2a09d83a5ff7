// `experiment run --scenario FILE`: the prompts, source session and facts of a scenario file in the one
// format tapedeck has (schemas/scenario.v1); the experiment grades each run's final answer on the facts
// (core/ports/facts.ts). Validators and limits belong to `tapedeck scenario run`.

import type { Fact } from "../core/ports/facts.ts";
import { loadScenarioFile, ScenarioFileError } from "./load.ts";

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
