// The shapes a usage reader checks in JSON it did not write or cannot trust (the usage cache, a published day
// file): one definition, so the cache and --machines refuse the same things.

/** A count: a non-negative integer a sum of counts keeps exact. */
export const isCount = (n: unknown): n is number =>
  typeof n === "number" && Number.isSafeInteger(n) && n >= 0;

export const isText = (v: unknown): v is string => typeof v === "string";

/** A string of at most `max` UTF-16 units (no default: `list.every(isText)` passes an index). */
export const isTextUpTo = (v: unknown, max: number): v is string => typeof v === "string" && v.length <= max;

export const isTextOrNull = (v: unknown): v is string | null => v === null || typeof v === "string";
