// A session's cells in the one meaning every command shows (core/read/usage-facts.ts inOneMeaning): input
// without the tokens read from the cache, output with the reasoning tokens. What each provider's counts mean is
// its own (its usage facts).
//
// Where input includes the cache reads, they are subtracted: in the same cell when both are there (Codex: one
// record has both), else from the input of the cells before it, nearest first (Gemini: the cache read of a
// response comes from the chat file at the end of the turn, as its own event, after the hook's input), and what
// is left from the cells after it. Over a session and model the sum is exact, max(0, input - cache read); each
// cell's share goes to the nearest input it can be part of.
//
// The result is flat, NCELL_WIDTH numbers a cell, as the cache keeps it: a warm report over 10,000 sessions adds
// these up without building an object per cell.
import { outputInOneMeaning, type UsageFacts } from "../core/read/usage-facts.ts";
import { CELL, CELL_WIDTH, type SessionUsage } from "./fold.ts";

/** Numbers per normalized cell. */
export const NCELL_WIDTH = 10;
/** Offsets within a normalized cell. */
export const NCELL = {
  /** the slot's index: its start is slot * slot_ms */
  slot: 0,
  model: 1,
  version: 2,
  input: 3,
  output: 4,
  cache_read: 5,
  cache_creation: 6,
  responses: 7,
  /** ms into the slot of the first and the last record */
  first: 8,
  last: 9,
} as const;

/** One cell in the report's terms (what a caller outside the hot loop reads). */
export interface Cell {
  /** slot start, ms since the epoch */
  slot: number;
  /** the agent CLI's version ("" none named); absent where no breakdown asks for it */
  version?: string;
  /** "" when the usage named no model */
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** The session's cells in the one meaning, flat; a running total (a provider says so) is no response and left out. */
export function normalizeCells(u: SessionUsage, facts: UsageFacts): number[] {
  const raw = u.cells;
  const skipAnonymous = facts.response_needs_message_id;
  const out: number[] = [];
  // Most sessions: nothing to take from input, each cell as it is.
  if (!facts.input_includes_cache_read) {
    for (let i = 0; i < raw.length; i += CELL_WIDTH) {
      if (skipAnonymous && raw[i + CELL.anonymous] === 1) continue;
      push(out, raw, i, facts, raw[i + CELL.input]!);
    }
    return out;
  }
  const byModel = new Map<number, number[]>();
  for (let i = 0; i < raw.length; i += CELL_WIDTH) {
    if (skipAnonymous && raw[i + CELL.anonymous] === 1) continue;
    const m = raw[i + CELL.model]!;
    let list = byModel.get(m);
    if (!list) {
      list = [];
      byModel.set(m, list);
    }
    list.push(i);
  }
  for (const starts of byModel.values()) {
    starts.sort((a, b) => raw[a + CELL.slot]! - raw[b + CELL.slot]!);
    const inputs = subtractCacheReads(
      starts.map((i) => raw[i + CELL.input]!),
      starts.map((i) => raw[i + CELL.cache_read]!),
    );
    for (const [k, i] of starts.entries()) push(out, raw, i, facts, inputs[k]!);
  }
  return out;
}

function push(out: number[], raw: readonly number[], i: number, facts: UsageFacts, input: number): void {
  out.push(
    raw[i + CELL.slot]!,
    raw[i + CELL.model]!,
    raw[i + CELL.version]!,
    input,
    outputInOneMeaning(facts, raw[i + CELL.output]!, raw[i + CELL.reasoning]!),
    raw[i + CELL.cache_read]!,
    raw[i + CELL.cache_creation]!,
    raw[i + CELL.responses]!,
    raw[i + CELL.first]!,
    raw[i + CELL.last]!,
  );
}

/**
 * In time order: each cell's cache reads out of its own input, then the nearest earlier, then later ones.
 * Answers the inputs left.
 */
function subtractCacheReads(inputs: number[], reads: readonly number[]): number[] {
  /** indices of earlier cells with input left, latest last */
  const withInput: number[] = [];
  let owed = 0;
  for (let i = 0; i < inputs.length; i += 1) {
    const paid = Math.min(owed, inputs[i]!);
    inputs[i]! -= paid;
    owed -= paid;
    let rest = reads[i]!;
    const own = Math.min(rest, inputs[i]!);
    inputs[i]! -= own;
    rest -= own;
    while (rest > 0 && withInput.length > 0) {
      const earlier = withInput.at(-1)!;
      const take = Math.min(rest, inputs[earlier]!);
      inputs[earlier]! -= take;
      rest -= take;
      if (inputs[earlier] === 0) withInput.pop();
    }
    owed += rest;
    if (inputs[i]! > 0) withInput.push(i);
  }
  return inputs;
}

/** The normalized cell at `i` as a Cell (models named), for readers outside the report's loop. */
export function cellAt(n: ArrayLike<number>, i: number, models: readonly string[], slotMs: number): Cell {
  return {
    slot: n[i + NCELL.slot]! * slotMs,
    model: models[n[i + NCELL.model]!] ?? "",
    input_tokens: n[i + NCELL.input]!,
    output_tokens: n[i + NCELL.output]!,
    cache_read_input_tokens: n[i + NCELL.cache_read]!,
    cache_creation_input_tokens: n[i + NCELL.cache_creation]!,
  };
}
