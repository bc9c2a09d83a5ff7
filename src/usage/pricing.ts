// Estimated cost from a dated price table shipped with tapedeck. Providers bill
// what their own meters count; these figures are list prices applied to the
// tokens the archive recorded, so every cost shown is labelled an estimate with
// the table's date. A model the table does not know costs "unknown", never 0.
import { printable } from "../core/base/printable.ts";
import { inOneMeaning, type RecordedCounts, type UsageFacts } from "../core/read/usage-facts.ts";

/** USD per million tokens. */
export interface ModelPrice {
  input: number;
  output: number;
  /** reading a cached prefix */
  cache_read?: number;
  /** writing a prefix to the cache (Anthropic's 5-minute write); input price when absent */
  cache_write?: number;
  /** where the figure comes from */
  source?: string;
  /** the day it was taken, when not the table's */
  as_of?: string;
}

export interface PriceTable {
  /** the day the prices were taken */
  as_of: string;
  /** model id or id prefix -> price; the longest matching prefix wins (dated snapshot ids match their family) */
  models: Record<string, ModelPrice>;
  /** the project's entries that were not taken, each with why */
  refused?: RefusedPrice[];
}

/** A project's price entry that was refused: the model it named and why. */
export interface RefusedPrice {
  model: string;
  reason: string;
}

/** What a project's own entry says it is, in `source`: every report that used one says so. */
export const PROJECT_PRICE = "project config";

/**
 * The dearest price a project may give, USD per million tokens. The dearest published list price is OpenAI's
 * o1-pro output at 600; a figure above 1000 is a typo or a per-token price typed as per million, and a planted
 * 1e308 printed a cost of $Infinity.
 */
export const MAX_PROJECT_PRICE = 1000;

const LIST = "published list price";

/**
 * Claude Code 2.1.332 (built 2026-11-24) prices its own sessions from a model catalog baked into the CLI: per
 * model a pricing tier of input, output, 5-minute and 1-hour cache writes and cache reads, its results marking
 * the cost `costBasis: "list"`. Every model that catalog names, and every alias it resolves (`opus` ->
 * claude-opus-5-5, `sonnet` -> claude-sonnet-5-5, `haiku` -> claude-haiku-5-5 on Anthropic's API), is priced
 * here from it, so a session costs what Claude Code itself says. Its print-mode result for claude-opus-5-5,
 * 5,742 input and 38 output tokens for 0.023728 USD, checks the tier (test/usage/pricing.test.ts).
 *
 * Two parts of the catalog a sum of tokens cannot apply, so the estimate is the short-context, 5-minute price:
 * claude-haiku-5-5's dearer rate for a response whose prompt is over 100,000 tokens (0.5 and 2.5 per million),
 * and the 1-hour cache write (1.6x the input price; Claude Code asks for the 5-minute one unless told).
 */
const CLAUDE_CODE_CATALOG = "Claude Code 2.1.332's model catalog (list prices)";
const CLAUDE_CODE_AS_OF = "2026-11-24";

/** A tier of Claude Code's catalog: input, output, 5-minute cache write, cache read (USD per million tokens). */
function claudeCode(input: number, output: number, cacheWrite: number, cacheRead: number): ModelPrice {
  return {
    input,
    output,
    cache_read: cacheRead,
    cache_write: cacheWrite,
    source: CLAUDE_CODE_CATALOG,
    as_of: CLAUDE_CODE_AS_OF,
  };
}

/**
 * Google's published Gemini API list prices (ai.google.dev/gemini-api/docs/pricing, standard tier, a prompt of
 * at most 200,000 tokens), on the day each model's preview was priced.
 */
const GEMINI_LIST = "Google's Gemini API list price (standard, prompts up to 200k tokens)";

export const BUILTIN_PRICES: PriceTable = {
  // The list prices the providers published as of this day (per million tokens, standard tier, short context).
  as_of: "2025-11-01",
  models: {
    // Claude Code's catalog, every id it names (the longest prefix wins: claude-opus-4-6 is not claude-opus-4).
    "claude-mythos-5": claudeCode(10, 50, 12.5, 1),
    "claude-mythos-5-1": claudeCode(10, 50, 12.5, 0.25),
    "claude-mythos-5-2": claudeCode(8, 40, 10, 0.2),
    "claude-fable-5": claudeCode(10, 50, 12.5, 1),
    "claude-fable-5-1": claudeCode(10, 50, 12.5, 0.25),
    "claude-fable-5-2": claudeCode(8, 40, 10, 0.2),
    "claude-opus-5-5": claudeCode(4, 20, 5, 0.2),
    "claude-opus-5": claudeCode(5, 25, 6.25, 0.5),
    "claude-opus-4-8": claudeCode(5, 25, 6.25, 0.5),
    "claude-opus-4-7": claudeCode(5, 25, 6.25, 0.5),
    "claude-opus-4-6": claudeCode(5, 25, 6.25, 0.5),
    "claude-opus-4-5": claudeCode(5, 25, 6.25, 0.5),
    "claude-opus-4-1": claudeCode(15, 75, 18.75, 1.5),
    "claude-opus-4": claudeCode(15, 75, 18.75, 1.5),
    "claude-sonnet-5-5": claudeCode(2, 10, 2.5, 0.1),
    "claude-sonnet-5": claudeCode(2, 10, 2.5, 0.2),
    "claude-sonnet-4": claudeCode(3, 15, 3.75, 0.3),
    "claude-3-7-sonnet": claudeCode(3, 15, 3.75, 0.3),
    "claude-3-5-sonnet": claudeCode(3, 15, 3.75, 0.3),
    "claude-haiku-5-5": claudeCode(0.1, 0.5, 0.125, 0.01),
    "claude-haiku-4-5": claudeCode(1, 5, 1.25, 0.1),
    "claude-3-5-haiku": claudeCode(0.8, 4, 1, 0.08),
    "gpt-5": { input: 1.25, output: 10, cache_read: 0.125, source: LIST },
    "gpt-5-mini": { input: 0.25, output: 2, cache_read: 0.025, source: LIST },
    "gpt-5-nano": { input: 0.05, output: 0.4, cache_read: 0.005, source: LIST },
    "gpt-4.1": { input: 2, output: 8, cache_read: 0.5, source: LIST },
    "gpt-4.1-mini": { input: 0.4, output: 1.6, cache_read: 0.1, source: LIST },
    "gpt-4o": { input: 2.5, output: 10, cache_read: 1.25, source: LIST },
    o3: { input: 2, output: 8, cache_read: 0.5, source: LIST },
    "o4-mini": { input: 1.1, output: 4.4, cache_read: 0.275, source: LIST },
    "gemini-3.1-pro-preview": {
      input: 2,
      output: 12,
      cache_read: 0.2,
      source: GEMINI_LIST,
      as_of: "2026-02-19",
    },
    "gemini-3-pro-preview": {
      input: 2,
      output: 12,
      cache_read: 0.2,
      source: GEMINI_LIST,
      as_of: "2025-11-18",
    },
    "gemini-3-flash-preview": {
      input: 0.5,
      output: 3,
      cache_read: 0.05,
      source: GEMINI_LIST,
      as_of: "2025-12-17",
    },
    "gemini-2.5-pro": { input: 1.25, output: 10, cache_read: 0.31, source: LIST },
    "gemini-2.5-flash": { input: 0.3, output: 2.5, cache_read: 0.075, source: LIST },
    "gemini-2.5-flash-lite": { input: 0.1, output: 0.4, cache_read: 0.025, source: LIST },
  },
};

export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface CostEstimate {
  /** USD, summed over the priced models; null when nothing was priced */
  usd: number | null;
  /** models the table has no price for: their tokens are not in `usd` */
  unpriced_models: string[];
  /** models priced by the project's own entries (`pricing` in .tapedeck/config.json), not tapedeck's table */
  project_priced_models: string[];
  /** the dates of the prices used (the table's when none was) */
  as_of: string;
}

const PRICE_FIELDS = ["input", "output", "cache_read", "cache_write"] as const;

/** Why a project's entry is no price, or undefined when it is one. */
function priceProblem(v: unknown): string | undefined {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return "not an object of prices";
  const p = v as Record<string, unknown>;
  for (const field of PRICE_FIELDS) {
    const n = p[field];
    if (n === undefined && (field === "cache_read" || field === "cache_write")) continue;
    if (typeof n !== "number") return `${field} ${n === undefined ? "is missing" : "is not a number"}`;
    // Zero made a model silently free; a model without a price is "unknown" instead, which is the truth.
    if (!Number.isFinite(n) || n <= 0 || n > MAX_PROJECT_PRICE) {
      return `${field} ${n} is out of range (above 0, at most ${MAX_PROJECT_PRICE} USD per million tokens)`;
    }
  }
  return undefined;
}

function modelProblem(id: string): string | undefined {
  if (id.length === 0 || id.length > 200) return "a model id is 1 to 200 characters";
  // "__proto__" as a key would replace the table's prototype, not add a model.
  if (id === "__proto__") return "not a model id";
  return undefined;
}

/**
 * The built-in table with a project's overrides (`pricing` in .tapedeck/config.json). An entry that is not a
 * price in range is refused and named in `refused` (the reports print it), so a typo costs that model its
 * estimate, never the command, and a planted figure never becomes the project's cost.
 */
export function priceTable(override?: unknown): PriceTable {
  if (override === null || typeof override !== "object") return BUILTIN_PRICES;
  const o = override as { as_of?: unknown; models?: unknown };
  const models: Record<string, ModelPrice> = { ...BUILTIN_PRICES.models };
  const refused: RefusedPrice[] = [];
  const asOf = typeof o.as_of === "string" && o.as_of.length <= 40 ? o.as_of : PROJECT_PRICE;
  let changed = false;
  if (
    o.models !== undefined &&
    (o.models === null || typeof o.models !== "object" || Array.isArray(o.models))
  ) {
    refused.push({ model: "models", reason: "not an object of model ids" });
  } else if (o.models) {
    for (const [id, price] of Object.entries(o.models as Record<string, unknown>)) {
      const problem = modelProblem(id) ?? priceProblem(price);
      if (problem !== undefined) {
        refused.push({ model: id, reason: problem });
        continue;
      }
      const { input, output, cache_read, cache_write } = price as ModelPrice;
      models[id] = { input, output, cache_read, cache_write, source: PROJECT_PRICE, as_of: asOf };
      changed = true;
    }
  }
  if (!changed && refused.length === 0) return BUILTIN_PRICES;
  return { as_of: BUILTIN_PRICES.as_of, models: changed ? models : BUILTIN_PRICES.models, refused };
}

/** Whether a price is the project's own entry. */
export function isProjectPrice(price: ModelPrice | undefined): boolean {
  return price?.source === PROJECT_PRICE;
}

/** `pricing.models.x in .tapedeck/config.json refused: input 0 is out of range (…)`, one line an entry. */
export function refusedPriceNotes(
  refused: readonly RefusedPrice[],
  where = ".tapedeck/config.json",
): string[] {
  return refused.map(
    (r) =>
      `pricing.models.${printable(r.model)} in ${printable(where)} refused: ${r.reason}; the model keeps tapedeck's price or none`,
  );
}

/** The price of a model id: an exact entry, else the longest entry the id starts with (`claude-sonnet-4-5-2025…`). */
export function priceFor(table: PriceTable, model: string | undefined): ModelPrice | undefined {
  if (!model) return undefined;
  // Own entries only: a model named "constructor" must not find Object's.
  if (Object.hasOwn(table.models, model)) return table.models[model];
  let best: string | undefined;
  for (const id of Object.keys(table.models)) {
    if (model.startsWith(id) && /[-@._:]/.test(model.charAt(id.length)) && id.length > (best?.length ?? 0))
      best = id;
  }
  return best ? table.models[best] : undefined;
}

/** USD for one model's tokens; cache reads and writes at their own rates (input rate when the table has none). */
export function costOf(price: ModelPrice, t: TokenCounts): number {
  const perToken = 1 / 1_000_000;
  return (
    (t.input_tokens * price.input +
      t.output_tokens * price.output +
      t.cache_read_input_tokens * (price.cache_read ?? price.input) +
      t.cache_creation_input_tokens * (price.cache_write ?? price.input)) *
    perToken
  );
}

/** What an estimate names in place of a model when its sum would be past what a double holds. */
const TOO_LARGE = "usage too large to price";

/** A count as a usage record holds it: anything but a finite, non-negative number is 0. */
function recordedCount(n: unknown): number {
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : 0;
}

/** Accumulates an estimate over usage records of any models. */
export class CostAccumulator {
  /** Records as recorded, summed per model until the estimate is taken (addRecorded). */
  private readonly pending = new Map<string, { facts: UsageFacts; t: RecordedCounts }>();
  private usd = 0;
  private priced = false;
  private readonly unpriced = new Set<string>();
  private readonly projectPriced = new Set<string>();
  private readonly dates = new Set<string>();

  constructor(private readonly table: PriceTable = BUILTIN_PRICES) {}

  add(model: string | undefined, t: TokenCounts): void {
    const tokens =
      t.input_tokens + t.output_tokens + t.cache_read_input_tokens + t.cache_creation_input_tokens;
    if (tokens === 0) return;
    const price = priceFor(this.table, model);
    const usd = price ? costOf(price, t) : Number.NaN;
    // Counts the archive holds may be any finite number: a sum past what a double holds is unknown, not $Infinity.
    if (!price || !Number.isFinite(this.usd + usd)) {
      this.unpriced.add(model ?? "unknown model");
      return;
    }
    this.usd += usd;
    this.priced = true;
    if (isProjectPrice(price)) this.projectPriced.add(model ?? "unknown model");
    this.dates.add(price.as_of ?? this.table.as_of);
  }

  /**
   * A usage record as the archive holds it: summed with the others of its model, and priced in the one meaning
   * (core/read/usage-facts.ts) when the estimate is taken. A provider may report a response's cache reads in a
   * record of their own after its input (Gemini): each record alone would be priced wrong.
   */
  addRecorded(model: string | undefined, u: Record<string, unknown>, facts: UsageFacts): void {
    const key = model ?? "";
    let p = this.pending.get(key);
    if (!p) {
      p = {
        facts,
        t: {
          input_tokens: 0,
          output_tokens: 0,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
          reasoning_output_tokens: 0,
        },
      };
      this.pending.set(key, p);
    }
    p.t.input_tokens += recordedCount(u.input_tokens);
    p.t.output_tokens += recordedCount(u.output_tokens);
    p.t.cache_read_input_tokens += recordedCount(u.cache_read_input_tokens);
    p.t.cache_creation_input_tokens += recordedCount(u.cache_creation_input_tokens);
    p.t.reasoning_output_tokens =
      (p.t.reasoning_output_tokens ?? 0) + recordedCount(u.reasoning_output_tokens);
  }

  /** Prices what addRecorded summed. */
  private flush(): void {
    for (const [model, p] of this.pending) this.add(model || undefined, inOneMeaning(p.facts, p.t));
    this.pending.clear();
  }

  merge(other: CostEstimate): void {
    if (other.usd !== null && Number.isFinite(this.usd + other.usd)) {
      this.usd += other.usd;
      this.priced = true;
      for (const d of other.as_of.split(", ")) this.dates.add(d);
    } else if (other.usd !== null) {
      this.unpriced.add(TOO_LARGE);
    }
    for (const m of other.unpriced_models) this.unpriced.add(m);
    for (const m of other.project_priced_models) this.projectPriced.add(m);
  }

  result(): CostEstimate {
    this.flush();
    return {
      usd: this.priced ? this.usd : null,
      unpriced_models: [...this.unpriced].sort(),
      project_priced_models: [...this.projectPriced].sort(),
      as_of: this.dates.size > 0 ? [...this.dates].sort().join(", ") : this.table.as_of,
    };
  }
}

/** `$0.0123`, `$12.34`; undefined for what is no amount (never `$Infinity` or `$NaN`). */
export function usdText(usd: number): string | undefined {
  if (!Number.isFinite(usd) || usd < 0) return undefined;
  return `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;
}

/**
 * `~$0.0123 est. (prices of 2026-12-01)`, with the models left out and the project's own prices named. The
 * model ids are the archive's and the dates the project file's: each shown on one line (core/base/printable.ts).
 */
export function formatCost(c: CostEstimate): string {
  if (c.usd === null && c.unpriced_models.length === 0) return "";
  const list = (models: readonly string[]) => models.map(printable).join(", ");
  const left = c.unpriced_models.length > 0 ? `no price for ${list(c.unpriced_models)}` : "";
  const own = c.project_priced_models ?? [];
  const project = own.length > 0 ? `the project's own price for ${list(own)}` : "";
  const amount = c.usd === null ? undefined : usdText(c.usd);
  const asOf = printable(c.as_of);
  if (amount === undefined) return `cost unknown (${left || "no amount"} in the price table of ${asOf})`;
  const notes = [left, project].filter((x) => x !== "");
  return `~${amount} est. (prices of ${asOf}${notes.length > 0 ? `; ${notes.join("; ")}` : ""})`;
}
