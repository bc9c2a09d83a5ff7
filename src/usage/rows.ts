// A report's row while it is summed, and what it becomes: the token figures, the estimated cost with the dates
// of the prices used, the sessions it holds, the models, sources and gaps behind it.
import { zeroTokens } from "../core/archive/manifest-counters.ts";
import type { Cell } from "./normalize.ts";
import { costOf, isProjectPrice, type ModelPrice } from "./pricing.ts";

/** The four counts, in the archive's names. */
export interface TokenFigures {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface Figures {
  /** null: no session of the row recorded any usage */
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation_input_tokens: number | null;
  total_tokens: number | null;
  /** USD, estimated from the price table; null when a model has no price or no figure exists, never 0 for it */
  cost_usd: number | null;
  /** the part of the cost that is known: the priced models' (equal to cost_usd when every model is priced) */
  priced_cost_usd: number | null;
  /** models without a price ("unknown model" for usage that named none): their tokens are not in the cost */
  unpriced_models: string[];
  /** models priced by their project's own entries (`pricing` in .tapedeck/config.json), not tapedeck's table */
  project_priced_models: string[];
  /** the dates of the prices used */
  prices_as_of: string[];
}

export interface ModelFigures extends Figures {
  /** null: the usage named no model */
  model: string | null;
}

/** `--breakdown version`: a row's figures of one agent CLI version. */
export interface VersionFigures extends Figures {
  /** null: the records named no version */
  agent_version: string | null;
  /** cache reads over all input (uncached, cache reads, cache writes); null without input */
  cache_read_share: number | null;
}

/** `--breakdown project`: a row's figures of one project (its path; a published label with --machines). */
export interface ProjectFigures extends Figures {
  project: string;
  sessions: number;
}

export type BreakdownBy = "model" | "version" | "project";

/** Cache reads over all the input a model was sent: what a prompt cache saved. */
export function cacheReadShare(
  f: Pick<Figures, "input_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens">,
): number | null {
  const all = (f.input_tokens ?? 0) + (f.cache_read_input_tokens ?? 0) + (f.cache_creation_input_tokens ?? 0);
  return all > 0 ? (f.cache_read_input_tokens ?? 0) / all : null;
}

export interface RowFigures extends Figures {
  sessions: number;
  /** sessions of the row that recorded no usage (unknown figures when their provider records none) */
  sessions_without_usage: number;
  models: string[];
  sources: string[];
  /** model calls of the row's provider that no local record of these sessions shows */
  gaps: string[];
  breakdown?: ModelFigures[];
  /** `--breakdown version`: one entry per agent CLI version, oldest first */
  versions?: VersionFigures[];
  /** `--breakdown project`: one entry per project, most tokens first */
  projects?: ProjectFigures[];
}

/** What a session brings to a row beside its cells. */
export interface SessionPart {
  key: string;
  sources: readonly string[];
  gaps: readonly string[];
  /** the session's project (its path, or the label a device published it under) */
  project?: string;
}

const UNKNOWN_MODEL = "unknown model";

/** A sum of fractions of a cent has float dust (0.017474999999999997): kept to a billionth of a dollar. */
const usd = (n: number) => Math.round(n * 1e9) / 1e9;

export class FigureSum {
  private readonly t: TokenFigures = zeroTokens();
  private counted = false;
  /** a session whose provider records no usage: the row's figures are incomplete */
  private unknownPart = false;
  private usd = 0;
  private priced = false;
  private readonly unpriced = new Set<string>();
  private readonly projectPriced = new Set<string>();
  private readonly dates = new Set<string>();

  add(c: Cell, price: ModelPrice | undefined, asOf: string): void {
    const cost = price ? costOf(price, c) : undefined;
    this.addCost(c, cost, [price?.as_of ?? asOf], isProjectPrice(price));
  }

  /** A cell priced elsewhere (a published day: its cost and price dates as the publishing machine made them). */
  addCost(c: Cell, cost: number | undefined, asOf: readonly string[], projectPriced: boolean): void {
    this.counted = true;
    this.t.input_tokens += c.input_tokens;
    this.t.output_tokens += c.output_tokens;
    this.t.cache_read_input_tokens += c.cache_read_input_tokens;
    this.t.cache_creation_input_tokens += c.cache_creation_input_tokens;
    const tokens =
      c.input_tokens + c.output_tokens + c.cache_read_input_tokens + c.cache_creation_input_tokens;
    if (tokens === 0) return;
    // A sum past what a double holds is unknown, never $Infinity.
    if (cost === undefined || !Number.isFinite(this.usd + cost)) {
      this.unpriced.add(c.model || UNKNOWN_MODEL);
      return;
    }
    this.usd += cost;
    this.priced = true;
    if (projectPriced) this.projectPriced.add(c.model || UNKNOWN_MODEL);
    for (const d of asOf) this.dates.add(d);
  }

  /** A session without usage whose provider records it: it used nothing a local record shows. */
  none(): void {
    this.counted = true;
  }

  /** A session whose provider records no usage: its figures are unknown. */
  unknown(): void {
    this.unknownPart = true;
  }

  figures(): Figures {
    const t = this.counted ? this.t : undefined;
    const known = this.counted && this.unpriced.size === 0 && !this.unknownPart;
    return {
      input_tokens: t?.input_tokens ?? null,
      output_tokens: t?.output_tokens ?? null,
      cache_read_input_tokens: t?.cache_read_input_tokens ?? null,
      cache_creation_input_tokens: t?.cache_creation_input_tokens ?? null,
      total_tokens: t
        ? t.input_tokens + t.output_tokens + t.cache_read_input_tokens + t.cache_creation_input_tokens
        : null,
      cost_usd: known ? usd(this.usd) : null,
      priced_cost_usd: this.counted && (this.priced || this.unpriced.size === 0) ? usd(this.usd) : null,
      unpriced_models: [...this.unpriced].sort(),
      project_priced_models: [...this.projectPriced].sort(),
      prices_as_of: [...this.dates].sort(),
    };
  }
}

export class RowSum {
  private readonly sum = new FigureSum();
  private readonly sessions = new Set<string>();
  private readonly withoutUsage = new Set<string>();
  private readonly models = new Set<string>();
  private readonly sources = new Set<string>();
  private readonly gaps = new Set<string>();
  /** with a breakdown, the sum of each model, agent version or project */
  private readonly parts = new Map<string, FigureSum>();
  /** `--breakdown project`: each project's sessions, for its line's count */
  private readonly projectSessions = new Map<string, Set<string>>();
  private last: SessionPart | undefined;

  /** `breakdown`: sum each model (or agent version) apart too (--breakdown) */
  constructor(
    readonly key: Record<string, unknown>,
    private readonly breakdown: BreakdownBy | false,
  ) {}

  add(c: Cell, price: ModelPrice | undefined, asOf: string, s: SessionPart): void {
    const cost = price ? costOf(price, c) : undefined;
    this.addCost(c, cost, [price?.as_of ?? asOf], isProjectPrice(price), s);
  }

  /** A cell priced elsewhere (FigureSum.addCost), of session `s`. */
  addCost(
    c: Cell,
    cost: number | undefined,
    asOf: readonly string[],
    projectPriced: boolean,
    s: SessionPart,
  ): void {
    this.session(s);
    this.sum.addCost(c, cost, asOf, projectPriced);
    // A record of no tokens (Claude's `<synthetic>` messages, a Gemini chunk without counts) is no model's
    // usage: a line of it under the row read `unknown model … $0.0000`, a price nobody has.
    if (c.input_tokens + c.output_tokens + c.cache_read_input_tokens + c.cache_creation_input_tokens === 0)
      return;
    if (c.model) this.models.add(c.model);
    if (!this.breakdown) return;
    this.part(this.splitKey(c, s)).addCost(c, cost, asOf, projectPriced);
  }

  private part(key: string): FigureSum {
    let m = this.parts.get(key);
    if (!m) {
      m = new FigureSum();
      this.parts.set(key, m);
    }
    return m;
  }

  private splitKey(c: Cell, s: SessionPart): string {
    if (this.breakdown === "version") return c.version ?? "";
    if (this.breakdown === "project") return s.project ?? "";
    return c.model;
  }

  /** A session in the row without a cell of its own here (a published row's other sessions). */
  count(s: SessionPart): void {
    this.session(s);
  }

  /** A session with no usage recorded; `known`: its provider records usage, so it used none we can see. */
  addEmpty(s: SessionPart, known: boolean): void {
    this.session(s);
    this.withoutUsage.add(s.key);
    // Only a project line can hold a session without cells: a model or version line needs a cell to exist.
    const sums = this.breakdown === "project" ? [this.sum, this.part(s.project ?? "")] : [this.sum];
    for (const sum of sums) {
      if (known) sum.none();
      else sum.unknown();
    }
  }

  private session(s: SessionPart): void {
    // The cells of one session come one after another: its sources and gaps are added once.
    if (this.last === s) return;
    this.last = s;
    this.sessions.add(s.key);
    if (this.breakdown === "project") {
      const project = s.project ?? "";
      const set = this.projectSessions.get(project) ?? new Set<string>();
      this.projectSessions.set(project, set.add(s.key));
    }
    for (const x of s.sources) this.sources.add(x);
    for (const g of s.gaps) this.gaps.add(g);
  }

  /** Each project's figures, a project whose sessions recorded no usage included (its figures null). */
  private projectFigures(): ProjectFigures[] {
    return [...this.projectSessions.entries()]
      .map(([project, sessions]) => {
        const f = this.parts.get(project)?.figures() ?? new FigureSum().figures();
        return { project, ...f, sessions: sessions.size };
      })
      .sort((a, b) => (b.total_tokens ?? -1) - (a.total_tokens ?? -1) || a.project.localeCompare(b.project));
  }

  /** The finished row: its key's fields, then the figures; with `breakdown`, one entry per model. */
  row(): Record<string, unknown> & RowFigures {
    const f = this.sum.figures();
    const row: Record<string, unknown> & RowFigures = {
      ...this.key,
      ...f,
      sessions: this.sessions.size,
      sessions_without_usage: this.withoutUsage.size,
      models: [...this.models].sort(),
      sources: [...this.sources].sort(),
      gaps: [...this.gaps].sort(),
    };
    if (this.breakdown === "model") {
      row.breakdown = [...this.parts.entries()]
        .map(([model, sum]) => ({ model: model || null, ...sum.figures() }))
        .sort((a, b) => (b.total_tokens ?? 0) - (a.total_tokens ?? 0));
    } else if (this.breakdown === "version") {
      row.versions = [...this.parts.entries()]
        .map(([version, sum]) => {
          const f = sum.figures();
          return { agent_version: version || null, ...f, cache_read_share: cacheReadShare(f) };
        })
        .sort((a, b) =>
          (a.agent_version ?? "").localeCompare(b.agent_version ?? "", "en", { numeric: true }),
        );
    } else if (this.breakdown === "project") {
      row.projects = this.projectFigures();
    }
    return row;
  }
}
