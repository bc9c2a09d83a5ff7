// `tapedeck usage blocks`: Claude's 5-hour usage windows (a provider whose facts name `usage_window_hours`), as
// ccusage's `blocks` cuts them. A block starts on the hour of its first response and lasts the window; a
// response past the window from the block's start, or from the response before it, starts the next one, and a
// longer pause is a gap of its own. The active block (its last response within the window, its end still
// ahead) has a burn rate (over its first to its last response) and a projection to its end at that rate.
//
// From the cache's cells: 15-minute slots of UTC, each with when its first and last response came. A block
// starts and ends on an hour, so no slot straddles a block boundary, and a pause of more than 5 hours is always
// between two slots (their last and first response): the cells give ccusage's blocks without a file read.
import { readConfig } from "../core/archive/config.ts";
import type { UsageFacts } from "../core/read/usage-facts.ts";
import { collectProject } from "./cache.ts";
import { cellAt, NCELL, NCELL_WIDTH } from "./normalize.ts";
import { costOf, type PriceTable, priceFor, priceTable } from "./pricing.ts";

const HOUR_MS = 60 * 60 * 1000;

export interface BlocksQuery {
  projects: readonly string[];
  facts: Readonly<Record<string, UsageFacts>>;
  /** which blocks to show, by their last response's time (a gap's end); all when absent */
  keep?: (ms: number) => boolean;
  now?: number;
}

export interface BurnRate {
  /** all four kinds of token per minute, from the block's first response to its last */
  tokens_per_minute: number;
  /** input and output only (what ccusage's indicator shows) */
  tokens_per_minute_for_indicator: number;
  cost_per_hour: number | null;
}

export interface Projection {
  total_tokens: number;
  cost_usd: number | null;
  remaining_minutes: number;
}

export interface Block {
  start: string;
  end: string;
  /** the last response's time; null for a gap */
  actual_end: string | null;
  active: boolean;
  gap: boolean;
  /** responses */
  entries: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  total_tokens: number;
  /** null when a model of the block has no price */
  cost_usd: number | null;
  models: string[];
  burn_rate: BurnRate | null;
  projection: Projection | null;
}

export interface BlocksReport {
  blocks: Block[];
  /** the active block, when there is one */
  active: Block | null;
}

/** One slot of every Claude session summed: its responses, the first and last of them, its tokens and cost. */
interface Slot {
  first: number;
  last: number;
  entries: number;
  input: number;
  output: number;
  read: number;
  write: number;
  cost: number;
  unpriced: boolean;
  models: string[];
}

function slotsOf(q: BlocksQuery, providers: ReadonlySet<string>): Slot[] {
  const slots = new Map<number, Slot>();
  for (const project of q.projects) {
    let table: PriceTable | undefined;
    for (const s of collectProject(project, { facts: q.facts }).sessions) {
      const u = s.usage;
      if (!providers.has(u.provider)) continue;
      table ??= priceTable(readConfig(project)?.pricing);
      const cells = u.cells;
      for (let i = 0; i < cells.length; i += NCELL_WIDTH) {
        const at = cells[i + NCELL.slot]! * u.slot_ms;
        const responses = cells[i + NCELL.responses]!;
        if (responses === 0) continue;
        let slot = slots.get(at);
        if (!slot) {
          slot = {
            first: Number.POSITIVE_INFINITY,
            last: 0,
            entries: 0,
            input: 0,
            output: 0,
            read: 0,
            write: 0,
            cost: 0,
            unpriced: false,
            models: [],
          };
          slots.set(at, slot);
        }
        slot.first = Math.min(slot.first, at + cells[i + NCELL.first]!);
        slot.last = Math.max(slot.last, at + cells[i + NCELL.last]!);
        slot.entries += responses;
        const c = cellAt(cells, i, u.models, u.slot_ms);
        slot.input += c.input_tokens;
        slot.output += c.output_tokens;
        slot.read += c.cache_read_input_tokens;
        slot.write += c.cache_creation_input_tokens;
        const model = c.model;
        if (model && !slot.models.includes(model)) slot.models.push(model);
        const tokens =
          c.input_tokens + c.output_tokens + c.cache_read_input_tokens + c.cache_creation_input_tokens;
        if (tokens === 0) continue;
        const price = priceFor(table, model || undefined);
        if (price) slot.cost += costOf(price, c);
        else slot.unpriced = true;
      }
    }
  }
  return [...slots.entries()].sort(([a], [b]) => a - b).map(([, s]) => s);
}

const iso = (ms: number) => new Date(ms).toISOString();
const usd = (n: number) => Math.round(n * 1e9) / 1e9;

function blockOf(start: number, slots: readonly Slot[], now: number, blockMs: number): Block {
  const b: Block = {
    start: iso(start),
    end: iso(start + blockMs),
    actual_end: iso(slots.at(-1)!.last),
    active: false,
    gap: false,
    entries: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    total_tokens: 0,
    cost_usd: 0,
    models: [],
    burn_rate: null,
    projection: null,
  };
  let cost = 0;
  let unpriced = false;
  for (const s of slots) {
    b.entries += s.entries;
    b.input_tokens += s.input;
    b.output_tokens += s.output;
    b.cache_read_input_tokens += s.read;
    b.cache_creation_input_tokens += s.write;
    cost += s.cost;
    unpriced ||= s.unpriced;
    for (const m of s.models) if (!b.models.includes(m)) b.models.push(m);
  }
  b.total_tokens =
    b.input_tokens + b.output_tokens + b.cache_read_input_tokens + b.cache_creation_input_tokens;
  b.cost_usd = unpriced ? null : usd(cost);
  const last = slots.at(-1)!.last;
  b.active = now - last < blockMs && now < start + blockMs;
  if (b.active) {
    const minutes = (last - slots[0]!.first) / 60_000;
    if (minutes > 0) {
      const rate: BurnRate = {
        tokens_per_minute: b.total_tokens / minutes,
        tokens_per_minute_for_indicator: (b.input_tokens + b.output_tokens) / minutes,
        cost_per_hour: unpriced ? null : (cost / minutes) * 60,
      };
      b.burn_rate = rate;
      const remaining = Math.max(0, (start + blockMs - now) / 60_000);
      b.projection = {
        total_tokens: Math.round(b.total_tokens + rate.tokens_per_minute * remaining),
        cost_usd:
          rate.cost_per_hour === null
            ? null
            : Math.round((cost + (rate.cost_per_hour / 60) * remaining) * 100) / 100,
        remaining_minutes: Math.round(remaining),
      };
    }
  }
  return b;
}

function gapOf(lastActivity: number, next: number, blockMs: number): Block {
  return {
    start: iso(lastActivity + blockMs),
    end: iso(next),
    actual_end: null,
    active: false,
    gap: true,
    entries: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    total_tokens: 0,
    cost_usd: 0,
    models: [],
    burn_rate: null,
    projection: null,
  };
}

/** The providers that meter usage in windows (their facts say so), and the windows' length. */
export function windowedProviders(facts: Readonly<Record<string, UsageFacts>>): {
  providers: string[];
  hours: number;
} {
  const providers = Object.keys(facts).filter((p) => (facts[p]?.usage_window_hours ?? 0) > 0);
  return { providers, hours: providers.length > 0 ? facts[providers[0]!]!.usage_window_hours! : 0 };
}

export function blocksReport(q: BlocksQuery): BlocksReport {
  const now = q.now ?? Date.now();
  const { providers, hours } = windowedProviders(q.facts);
  if (providers.length === 0) return { blocks: [], active: null };
  const blockMs = hours * HOUR_MS;
  const slots = slotsOf(q, new Set(providers));
  const blocks: Block[] = [];
  let start = 0;
  let current: Slot[] = [];
  for (const s of slots) {
    const prev = current.at(-1);
    if (prev && (s.first - start > blockMs || s.first - prev.last > blockMs)) {
      blocks.push(blockOf(start, current, now, blockMs));
      if (s.first - prev.last > blockMs) blocks.push(gapOf(prev.last, s.first, blockMs));
      current = [];
    }
    if (current.length === 0) start = s.first - (s.first % HOUR_MS);
    current.push(s);
  }
  if (current.length > 0) blocks.push(blockOf(start, current, now, blockMs));
  const keep = q.keep;
  const shown = keep ? blocks.filter((b) => keep(Date.parse(b.actual_end ?? b.end))) : blocks;
  return { blocks: shown, active: shown.find((b) => b.active) ?? null };
}
