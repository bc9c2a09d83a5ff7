// A fact an answer must (or must not) state, and how it is found: the one matching rule of scenario checks
// (src/scenario/) and of an experiment's runs graded on a scenario's facts (src/experiment/). A literal is
// matched as text, a pattern as a JavaScript regular expression; both case-insensitively unless asked.

export type Fact =
  | { id: string; text: string; case_sensitive?: boolean }
  | { id: string; pattern: string; flags?: string; case_sensitive?: boolean };

/** A fact's regular expression; literal facts get an escaped one, so every fact matches the same way. */
export function factRegExp(fact: Fact): RegExp {
  const insensitive = fact.case_sensitive !== true;
  if ("text" in fact) {
    return new RegExp(fact.text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), insensitive ? "i" : "");
  }
  const flags = new Set((fact.flags ?? "").split("").filter(Boolean));
  if (insensitive) flags.add("i");
  return new RegExp(fact.pattern, [...flags].join(""));
}

const EXCERPT_CONTEXT = 60;

/** The match with some text either side, on one line. */
function excerpt(text: string, index: number, length: number): string {
  const from = Math.max(0, index - EXCERPT_CONTEXT);
  const to = Math.min(text.length, index + length + EXCERPT_CONTEXT);
  const body = text.slice(from, to).replace(/\s+/g, " ");
  return `${from > 0 ? "…" : ""}${body}${to < text.length ? "…" : ""}`;
}

/** Where the answer states the fact (an excerpt around it), or null. */
export function findFact(fact: Fact, answer: string): string | null {
  const m = factRegExp(fact).exec(answer);
  return m ? excerpt(answer, m.index, m[0].length) : null;
}

export interface FactsCheck {
  passed: boolean;
  /** The ids of the expected facts not found, and of the forbidden ones found. */
  missing: string[];
  forbidden: string[];
}

/** A run without a final answer fails; every expected fact found and no forbidden one passes. */
export function checkFacts(answer: string | undefined, expected: Fact[], forbidden: Fact[]): FactsCheck {
  const text = answer ?? "";
  const missing = expected.filter((f) => findFact(f, text) === null).map((f) => f.id);
  const found = forbidden.filter((f) => findFact(f, text) !== null).map((f) => f.id);
  return {
    passed: answer !== undefined && missing.length === 0 && found.length === 0,
    missing,
    forbidden: found,
  };
}
