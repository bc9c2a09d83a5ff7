// A session's cells in the one meaning every command shows (core/read/usage-facts.ts inOneMeaning): input
// without the tokens read from the cache, output with the reasoning tokens. What each provider's counts mean is
// its own (its usage facts).
//
// Where input includes the cache reads, they are subtracted: in the same cell when both are there (Codex: one
// record has both), else from the input of the cells before it, nearest first (Gemini: the cache read of a
// response comes from the chat file at the end of the turn, as its own event, after the hook's input), and what
// is left from the cells after it. Over a session and model the sum is exact, max(0, input - cache read); each
// cell's share goes to the nearest input it can be part of.
import { outputInOneMeaning, type UsageFacts } from "../core/read/usage-facts.ts";
import { CELL, CELL_WIDTH, type SessionUsage } from "./fold.ts";

export interface Cell {
  /** slot start, ms since the epoch */
  slot: number;
  /** "" when the usage named no model */
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export function normalizeCells(u: SessionUsage, facts: UsageFacts): Cell[] {
  // Most sessions: one model, and nothing to take from input.
  const skipAnonymous = facts.response_needs_message_id;
  if (!facts.input_includes_cache_read && u.models.length <= 1) {
    const out: Cell[] = [];
    for (let i = 0; i < u.cells.length; i += CELL_WIDTH) {
      if (skipAnonymous && u.cells[i + CELL.anonymous] === 1) continue;
      out.push(cellOf(u.cells, i, u.models[0] ?? "", facts, u.slot_ms));
    }
    return out;
  }
  const byModel = new Map<number, number[]>();
  for (let i = 0; i < u.cells.length; i += CELL_WIDTH) {
    // A running total (Codex's thread figures), not a response: adding it would count its responses again.
    if (skipAnonymous && u.cells[i + CELL.anonymous] === 1) continue;
    const m = u.cells[i + CELL.model]!;
    const list = byModel.get(m) ?? [];
    list.push(i);
    byModel.set(m, list);
  }
  const out: Cell[] = [];
  for (const [m, starts] of byModel) {
    starts.sort((a, b) => u.cells[a + CELL.slot]! - u.cells[b + CELL.slot]!);
    const model = u.models[m] ?? "";
    const cells = starts.map((i) => cellOf(u.cells, i, model, facts, u.slot_ms));
    if (facts.input_includes_cache_read) subtractCacheReads(cells);
    out.push(...cells);
  }
  return out;
}

function cellOf(raw: number[], i: number, model: string, facts: UsageFacts, slotMs: number): Cell {
  return {
    slot: raw[i + CELL.slot]! * slotMs,
    model,
    input_tokens: raw[i + CELL.input]!,
    output_tokens: outputInOneMeaning(facts, raw[i + CELL.output]!, raw[i + CELL.reasoning]!),
    cache_read_input_tokens: raw[i + CELL.cache_read]!,
    cache_creation_input_tokens: raw[i + CELL.cache_creation]!,
  };
}

/** In time order: each cell's cache reads out of its own input, then the nearest earlier, then later ones. */
function subtractCacheReads(cells: Cell[]): void {
  /** indices of earlier cells with input left, latest last */
  const withInput: number[] = [];
  let owed = 0;
  for (const [i, c] of cells.entries()) {
    const paid = Math.min(owed, c.input_tokens);
    c.input_tokens -= paid;
    owed -= paid;
    let rest = c.cache_read_input_tokens;
    const own = Math.min(rest, c.input_tokens);
    c.input_tokens -= own;
    rest -= own;
    while (rest > 0 && withInput.length > 0) {
      const earlier = cells[withInput.at(-1)!]!;
      const take = Math.min(rest, earlier.input_tokens);
      earlier.input_tokens -= take;
      rest -= take;
      if (earlier.input_tokens === 0) withInput.pop();
    }
    owed += rest;
    if (c.input_tokens > 0) withInput.push(i);
  }
}
