// JSON as data: the value types of a parsed document and the one test for a plain object, for every room that
// walks payloads, transcripts or records (the providers, the mirror, the readers).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A plain object (not null, not an array): what a JSON object parses to. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
