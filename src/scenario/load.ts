// Reading a scenario file: bounded, never through a symlink swap, every problem named by field and line
// (a hand-edited file is the normal case), regular expressions compiled up front so a bad one is a bad
// file (exit 2), not a failed check.

import { createHash } from "node:crypto";
import { readRegularFileSync, UnsafePathError } from "../core/base/fsutil.ts";
import { jsonErrorOffset, positionOf } from "../core/base/json-position.ts";
import { factRegExp } from "../core/ports/facts.ts";
import { lineOf, pathKey, valueOffsets } from "./locate.ts";
import { Scenario } from "./schema.ts";

const MAX_SCENARIO_BYTES = 8 * 1024 * 1024;

export interface ScenarioProblem {
  field: string;
  line: number;
  message: string;
}

export class ScenarioFileError extends Error {
  override name = "ScenarioFileError";
  constructor(
    readonly path: string,
    readonly problems: ScenarioProblem[],
  ) {
    super(
      `${path}: ${problems.length} problem(s)\n${problems
        .map((p) => `  line ${p.line}: ${p.field || "(file)"}: ${p.message}`)
        .join("\n")}`,
    );
  }
}

export interface LoadedScenario {
  scenario: Scenario;
  path: string;
  /** sha256 of the file's bytes: the result names the exact scenario it graded. */
  sha256: string;
}

function semanticProblems(s: Scenario): Array<{ path: PropertyKey[]; message: string }> {
  const out: Array<{ path: PropertyKey[]; message: string }> = [];
  const ids = new Set<string>();
  for (const list of ["expected_facts", "forbidden_facts"] as const) {
    s[list].forEach((fact, i) => {
      if (ids.has(fact.id))
        out.push({ path: [list, i, "id"], message: `fact id "${fact.id}" is used twice` });
      ids.add(fact.id);
      try {
        factRegExp(fact);
      } catch (error) {
        const why = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : "";
        out.push({ path: [list, i, "pattern"], message: `not a valid regular expression (${why})` });
      }
    });
  }
  s.setup_messages.forEach((m, i) => {
    m.establishes_fact_ids.forEach((f, k) => {
      if (!ids.has(f))
        out.push({
          path: ["setup_messages", i, "establishes_fact_ids", k],
          message: `no fact has id "${f}"`,
        });
    });
  });
  const names = new Set<string>();
  s.validators.forEach((v, i) => {
    if (names.has(v.name))
      out.push({ path: ["validators", i, "name"], message: `validator "${v.name}" is named twice` });
    names.add(v.name);
  });
  return out;
}

/** Parses and checks a scenario's text; throws ScenarioFileError listing every problem. */
export function parseScenario(text: string, path: string): Scenario {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // Node's message quotes the text; the position alone is enough and leaks nothing.
    const at = positionOf(text, Math.max(0, jsonErrorOffset(text)));
    throw new ScenarioFileError(path, [
      { field: "", line: at.line, message: `not valid JSON (column ${at.column})` },
    ]);
  }
  const offsets = valueOffsets(text);
  const parsed = Scenario.safeParse(raw);
  if (!parsed.success) {
    throw new ScenarioFileError(
      path,
      parsed.error.issues.map((issue) => {
        const where = [...issue.path];
        // An unknown key is reported at the key itself, not at its object.
        if (issue.code === "unrecognized_keys" && issue.keys[0]) where.push(issue.keys[0]);
        return { field: pathKey(where), line: lineOf(text, offsets, where), message: issue.message };
      }),
    );
  }
  const problems = semanticProblems(parsed.data);
  if (problems.length > 0) {
    throw new ScenarioFileError(
      path,
      problems.map((p) => ({
        field: pathKey(p.path),
        line: lineOf(text, offsets, p.path),
        message: p.message,
      })),
    );
  }
  return parsed.data;
}

export function loadScenarioFile(path: string): LoadedScenario {
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(path, MAX_SCENARIO_BYTES, true);
  } catch (error) {
    const why =
      error instanceof UnsafePathError
        ? error.reason
        : error instanceof Error && "code" in error
          ? String(error.code)
          : "unreadable";
    throw new ScenarioFileError(path, [{ field: "", line: 1, message: `cannot read the file: ${why}` }]);
  }
  const scenario = parseScenario(bytes.toString("utf8"), path);
  return { scenario, path, sha256: createHash("sha256").update(bytes).digest("hex") };
}

export { factRegExp };
