// `--since 7d|12h|30m|2w` or a date, one reading for list, otel export and import.
import { parseAge } from "../core/base/age.ts";
import { printable } from "../core/base/printable.ts";
import { CliError, EXIT } from "./cli-error.ts";

/** `--since 7d|12h|30m|2w` or a date (`2026-11-30`, ISO time): the earliest time meant, in ms. */
export function parseSince(value: string, now = Date.now()): number {
  const age = parseAge(value);
  if (age !== undefined) return now - age;
  const at = /^\d{4}-\d\d-\d\d/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isFinite(at)) return at;
  throw new CliError(
    `--since: "${printable(value)}" is not a date or a duration like 7d, 12h, 30m`,
    EXIT.usage,
  );
}
