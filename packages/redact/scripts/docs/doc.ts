// One document of the documented-formats corpus: a name for the format it follows and a function that
// writes it with fresh values (every secret through `v.s()`), or a look-alike that must survive as is.
import type { Values } from "./values.ts";

export interface Doc {
  kind: string;
  make: (v: Values) => string;
}
export interface Look {
  category: string;
  make: (v: Values) => string;
  /** A fixed text: one copy is enough. */
  once?: boolean;
}

export const doc = (kind: string, make: Doc["make"]): Doc => ({ kind, make });
export const look = (category: string, make: Look["make"]): Look => ({ category, make });
export const fixed = (category: string, text: string): Look => ({ category, make: () => text, once: true });

/** Splits a literal so the source holds no whole token prefix a scanner would flag. */
export const J = (...parts: string[]): string => parts.join("");
