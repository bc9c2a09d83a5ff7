// The price table a command prices a project's sessions with: tapedeck's, with the project's own entries
// (`pricing` in .tapedeck/config.json). Each refused entry is named on stderr, so a planted or mistyped price
// is never silently the project's cost, nor silently dropped.
import { readConfig } from "../core/archive/config.ts";
import { type PriceTable, priceTable, refusedPriceNotes } from "../usage/pricing.ts";
import { note } from "./common.ts";

export function projectPrices(project: string): PriceTable {
  const table = priceTable(readConfig(project)?.pricing);
  for (const line of refusedPriceNotes(table.refused ?? [])) note(`tapedeck: ${line}\n`);
  return table;
}
