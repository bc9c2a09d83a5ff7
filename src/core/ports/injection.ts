// A memory injection as the archive records it: a `provider_event` whose payload type is
// `context_injection`, written by the prompt hook when retrieval is on (memory/store/inject.ts writes it). Every
// reader that shows a session (show, the viewer, the Markdown and HTML exports) names it the same way from
// here, so that what tapedeck added to the agent's context is never an unlabelled event.
//
// Pure data, no Node module: the viewer's page bundles it too.

export const CONTEXT_INJECTION = "context_injection";

/**
 * What a prompt got: `injected` (a block), `nothing_relevant` (no item passed the threshold, or there is no
 * memory or no content word in the prompt), `repeats_only` (every relevant item was given to this session
 * already), `failed` (the memory could not be read: the code is in `error`).
 */
export type InjectionOutcome = "injected" | "nothing_relevant" | "repeats_only" | "failed";

/**
 * The port a provider's context injector implements (src/providers/<name>/inject.ts): what its prompt hook
 * prints so that added context reaches the model's next request.
 */
export interface ContextInjector {
  /** The hook event whose stdout may add context: the one that fires on each user prompt. */
  hookEvent: string;
  /** The hook's stdout carrying `context`. */
  output(context: string): string;
}

export interface InjectionView {
  /** "injected": items went into the context; otherwise why nothing did (InjectionOutcome). */
  outcome: string;
  /** Why retrieval failed (an error code), for outcome "failed". */
  error: string | null;
  item_ids: string[];
  bytes: number;
  /** The search the prompt became (null when the prompt had no word to search for). */
  query: string | null;
  /** Items that matched before the gate and the budget (when the recorder counted them). */
  matched: number | null;
  truncated: boolean;
  /** The score an item needed, and what each given item scored (in item_ids' order). */
  threshold: number | null;
  scores: number[];
  /** The best score of any item for the prompt (null when none held a word of it, or not recorded). */
  best_score: number | null;
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** The injection an event records, or undefined when it is not one. */
export function injectionOf(e: {
  kind: string;
  payload: Record<string, unknown>;
}): InjectionView | undefined {
  const p = e.payload;
  if (e.kind !== "provider_event" || p.type !== CONTEXT_INJECTION) return undefined;
  const ids = Array.isArray(p.item_ids) ? p.item_ids.filter((x): x is string => typeof x === "string") : [];
  const bytes = typeof p.bytes === "number" && Number.isFinite(p.bytes) ? p.bytes : 0;
  // Events recorded before the outcome field: items given means injected, none means nothing found.
  const outcome = str(p.outcome) ?? (ids.length > 0 && bytes > 0 ? "injected" : "nothing_relevant");
  return {
    outcome,
    item_ids: ids,
    bytes,
    query: str(p.query),
    error: str(p.error),
    matched: typeof p.matched === "number" ? p.matched : null,
    truncated: p.truncated === true,
    threshold: num(p.threshold),
    scores: Array.isArray(p.scores) ? p.scores.filter((x): x is number => num(x) !== null) : [],
    best_score: num(p.best_score),
  };
}

function num(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

const score = (n: number) => n.toFixed(2);

/** `scores 0.82, 0.64 ≥ threshold 0.50`, `best score 0.31 < threshold 0.50`: why retrieval decided so. */
function scoreText(v: InjectionView): string {
  if (v.threshold === null) return "";
  const t = `threshold ${score(v.threshold)}`;
  if (v.outcome === "injected" && v.scores.length > 0)
    return `scores ${v.scores.map(score).join(", ")} ≥ ${t}`;
  if (v.outcome === "nothing_relevant")
    return v.best_score === null ? `no item shares a word, ${t}` : `best score ${score(v.best_score)} < ${t}`;
  return "";
}

function sizeText(n: number): string {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`;
}

// A Map: the outcome is the archive's text, and a plain object knew one named `constructor`.
const OUTCOME_TEXT = new Map([
  ["nothing_relevant", "nothing relevant"],
  ["repeats_only", "only items already given in this session"],
  ["failed", "retrieval failed"],
]);

/** `memory injected: 2 items, 1.3 KB` / `memory: nothing relevant`: the one-line label every reader shows. */
export function injectionHeadline(v: InjectionView): string {
  if (v.outcome === "injected") {
    const n = v.item_ids.length;
    const scores = scoreText(v);
    return `memory injected: ${n} item${n === 1 ? "" : "s"}, ${sizeText(v.bytes)}${v.truncated ? " (cut to the budget)" : ""}${scores ? ` (${scores})` : ""}`;
  }
  const why = `${OUTCOME_TEXT.get(v.outcome) ?? v.outcome.replace(/_/g, " ")}${v.error ? ` (${v.error})` : ""}`;
  const scores = scoreText(v);
  return `memory: ${why}${scores ? ` (${scores})` : ""}, nothing injected`;
}

/** The headline with the items' ids and the query, for a line that has room for them. */
export function injectionLine(v: InjectionView, maxQuery = 120): string {
  const parts = [injectionHeadline(v)];
  if (v.item_ids.length > 0) parts.push(`items ${v.item_ids.join(", ")}`);
  if (v.query !== null) {
    const q = v.query.length > maxQuery ? `${v.query.slice(0, maxQuery - 1)}…` : v.query;
    parts.push(`query ${q}`);
  }
  return parts.join(" · ");
}
