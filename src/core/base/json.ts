// JSON as data: the value types of a parsed document and the one test for a plain object, for every room that
// walks payloads, transcripts or records (the providers, the mirror, the readers).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** A plain object (not null, not an array): what a JSON object parses to. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sets `obj[key]` as an own entry. JSON.parse makes "__proto__" an own key; an assignment would set the
 * object's prototype instead (and drop the field).
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}

/** `obj[key]` when it is the object's own entry: a key spelled `constructor` or `toString` finds no member of Object. */
export function ownValue<T>(obj: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/**
 * Adds `n` to a count keyed by a name the archive or a payload gives (an event kind, a record type): its own
 * entry only, so `constructor` starts from 0, not from Object's function, and `__proto__` is counted, not lost.
 */
export function addCount(counts: Record<string, number>, key: string, n = 1): void {
  setOwn(counts, key, (ownValue(counts, key) ?? 0) + n);
}
