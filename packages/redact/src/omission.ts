// Whole-string omission: environment dumps and process tables
import { DECIMAL } from "./placeholders.ts";

const ENV_LINE = /(?:export |declare -[a-zA-Z]+ |set )?[A-Z_][A-Za-z0-9_]*=/y;
// Variables every process environment has and a .env file does not: `env`, `printenv`, `declare -x`
// and `set` print them, and a project's .env(.example) is only `KEY=value` lines of its own, which the
// key rules read line by line (omitting one whole hid its placeholders too).
const PROCESS_VAR =
  /(?:^|\n)(?:export |declare -[a-zA-Z]+ |set )?(?:PATH|HOME|SHELL|USER|LOGNAME|PWD|OLDPWD|TERM|LANG|HOSTNAME|SHLVL|TMPDIR|_)=/g;

function hasProcessVariables(text: string): boolean {
  PROCESS_VAR.lastIndex = 0;
  return PROCESS_VAR.test(text) && PROCESS_VAR.test(text);
}
const PS_COLUMN = /^[A-Z%][A-Z0-9%_+:-]*$/;
const PS_COMMAND = new Set(["COMMAND", "CMD", "COMM", "ARGS"]);

function isEnvironmentDump(text: string): boolean {
  // Cheap reject first: a dump shows its NAME=value lines from the start (after a header or two).
  let seen = 0;
  let good = 0;
  for (let from = 0; from < text.length && seen < 10; ) {
    let nl = text.indexOf("\n", from);
    if (nl < 0) nl = text.length;
    if (nl - from > 1 || (nl - from === 1 && text.charCodeAt(from) !== 13)) {
      seen++;
      ENV_LINE.lastIndex = from;
      if (ENV_LINE.test(text)) good++;
    }
    from = nl + 1;
  }
  if (good < seen - 3 || good < 3 || !hasProcessVariables(text)) return false;
  const total = nonEmptyLines(text);
  if (total < 5) return false;
  const n = text.length;
  let from = 0;
  const allowedBad = total * 0.2;
  let bad = 0;
  good = 0;
  while (from <= n) {
    let nl = text.indexOf("\n", from);
    if (nl < 0) nl = n;
    if (nl - from > 1 || (nl - from === 1 && text.charCodeAt(from) !== 13)) {
      ENV_LINE.lastIndex = from;
      if (ENV_LINE.test(text)) good++;
      else if (++bad > allowedBad) return false;
    }
    from = nl + 1;
  }
  return good >= 5;
}

function nonEmptyLines(text: string): number {
  let total = 0;
  let from = 0;
  const n = text.length;
  while (from <= n) {
    let nl = text.indexOf("\n", from);
    if (nl < 0) nl = n;
    if (nl - from > 1 || (nl - from === 1 && text.charCodeAt(from) !== 13)) total++;
    from = nl + 1;
  }
  return total;
}

/**
 * A `ps`/`top` header followed by process rows that make up at least half of
 * the text. Two rows quoted inside a long document are an example, not a dump.
 */
function isProcessTable(text: string): boolean {
  let from = 0;
  for (;;) {
    const i = text.indexOf("PID", from);
    if (i < 0) return false;
    const ls = text.lastIndexOf("\n", i) + 1;
    let le = text.indexOf("\n", i);
    if (le < 0) le = text.length;
    from = le;
    if (le - ls > 400) continue;
    const cols = text.slice(ls, le).trim().split(/\s+/);
    const pidAt = cols.indexOf("PID");
    if (pidAt < 0 || cols.length < 2 || !cols.some((c) => PS_COMMAND.has(c))) continue;
    if (!cols.every((c) => PS_COLUMN.test(c))) continue;
    let rows = 0;
    let pos = le + 1;
    while (pos < text.length) {
      let end = text.indexOf("\n", pos);
      if (end < 0) end = text.length;
      const fields = text
        .slice(pos, Math.min(end, pos + 4096))
        .trim()
        .split(/\s+/);
      if (fields.length < cols.length - 1 || !DECIMAL.test(fields[pidAt] ?? "")) break;
      rows++;
      pos = end + 1;
    }
    if (rows > 0 && (rows + 1) * 2 >= nonEmptyLines(text)) return true;
  }
}

export function omission(text: string): string | null {
  const nl = text.indexOf("\n");
  if (nl < 0) return null;
  if (text.includes("PID") && isProcessTable(text)) return "process-table";
  if (text.indexOf("=") >= 0 && isEnvironmentDump(text)) return "environment";
  return null;
}
