// Scenario result artifacts (scenario-result.v1, written by `tapedeck scenario run --out`) for the viewer:
// they live wherever the user wrote them, so `tapedeck view --scenario-result FILE` names them. Each is
// read once, bounded, and checked against its schema; one that is not says why instead of showing garbage.
import { readRegularFileSync } from "../core/base/fsutil.ts";
import { type ScenarioResult, ScenarioResult as ScenarioResultSchema } from "../scenario/schema.ts";

/** A result artifact is a few KB per sample; the bound only keeps a wrong file from being read whole. */
const MAX_RESULT_BYTES = 8 * 1024 * 1024;

export class ScenarioResultError extends Error {
  override name = "ScenarioResultError";
}

export function readScenarioResult(path: string): ScenarioResult {
  let text: string;
  try {
    text = readRegularFileSync(path, MAX_RESULT_BYTES).toString("utf8");
  } catch (error) {
    throw new ScenarioResultError(`${path}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ScenarioResultError(`${path}: not JSON`);
  }
  const parsed = ScenarioResultSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ScenarioResultError(
      `${path}: not a scenario result (${issue ? `${issue.path.join(".") || "top level"}: ${issue.message}` : "invalid"})`,
    );
  }
  return parsed.data;
}
