// The usage sources tapedeck knows, each with what it is: its own (core/archive/schemas.ts) and every provider's, as
// its usage facts name them, in catalog order. The archive takes any source of the documented shape, so that
// a provider added later needs no change in the core; this list is what `npm run schemas` publishes as
// schemas/usage-source.v1.schema.json, for a reader who wants to know what a source name means.
import { CORE_USAGE_SOURCES, USAGE_SOURCE_MAX, USAGE_SOURCE_SHAPE } from "../core/archive/schemas.ts";
import { CATALOG } from "./catalog.ts";

const FILE = "usage-source.v1.schema.json";

/** Every known source and its one line; a source two providers name keeps the first one's. */
export function knownUsageSources(): Record<string, string> {
  const known: Record<string, string> = { ...CORE_USAGE_SOURCES };
  for (const entry of Object.values(CATALOG)) {
    for (const [source, text] of Object.entries(entry.usage.sources)) {
      if (!Object.hasOwn(known, source)) known[source] = text;
    }
  }
  return known;
}

/** The published file: the shape every source has, and the known ones, each with its meaning. */
export function renderUsageSourceSchema(): Record<string, string> {
  const schema = {
    $id: `https://tapedeck.dev/schemas/${FILE}`,
    $schema: "https://json-schema.org/draft/2020-12/schema",
    description:
      "The usage sources this version of tapedeck knows. An envelope's usage.source takes any name of this pattern (envelope.v1.schema.json), so an archive may name a source added since.",
    type: "string",
    maxLength: USAGE_SOURCE_MAX,
    pattern: USAGE_SOURCE_SHAPE.source,
    anyOf: Object.entries(knownUsageSources()).map(([source, text]) => ({
      const: source,
      description: text,
    })),
  };
  return { [FILE]: `${JSON.stringify(schema, null, 2)}\n` };
}
