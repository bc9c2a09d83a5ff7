// Options several commands share, worded once.
import type { Command } from "commander";
import { PROVIDERS } from "./providers.ts";

export const PROJECT_HELP =
  "project directory (default: the nearest one with .tapedeck above the current directory, else the git root)";

/** --project and --provider, for the commands that act on recorded sessions. */
export function withSessionScope(c: Command): Command {
  return c
    .option("--project <dir>", PROJECT_HELP)
    .option("--provider <name>", `only sessions of this provider (${PROVIDERS.join(", ")})`);
}

/** The session scope and --json. */
export function withSessionOptions(c: Command): Command {
  return withSessionScope(c).option("--json", "machine-readable output");
}

/** Where an option's completion words are kept: on the Option itself, read by `tapedeck completion`. */
export const VALUE_WORDS = Symbol.for("tapedeck.valueWords");

export interface ValueWords {
  words: readonly string[];
  /** A comma-separated list of them (`--kinds a,b`): TAB completes the word after the last comma. */
  list?: boolean;
}

/**
 * The words TAB offers for an option's value when its placeholder cannot list them (`--kinds <list>`: twelve
 * kinds). A placeholder like `<jsonl|md|html>` needs none: completion reads the choices from it. Parsing is
 * unchanged: each command still checks the value with its own message.
 */
export function offerWords(c: Command, flag: string, words: readonly string[], list = false): Command {
  const option = c.options.find((o) => o.long === flag);
  if (!option) throw new Error(`offerWords: ${c.name()} has no ${flag}`);
  (option as unknown as Record<symbol, ValueWords>)[VALUE_WORDS] = { words, list };
  return c;
}
