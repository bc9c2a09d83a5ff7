// Key/value tables that CLIs print: `vault kv get` (Key / Value, a `Data` section), `az ... -o table`
// (a Value column), `doppler secrets` (a box-drawn NAME / VALUE table). The header names the value
// column; a cell there is a secret when its row's name is one, when the section holds only secrets
// (vault's Data), or when the cell looks generated (entropy, but only where the table says "value").
import { keyKind } from "./keys.ts";
import { breakStart, lineEndIn, lineStartIn, pastBreak } from "./lines.ts";
import { isPlaceholder } from "./placeholders.ts";
import type { Span } from "./rule.ts";
import { looksGenerated } from "./split.ts";

const VALUE_HEADER = /^(?:Value|VALUE|Password|PASSWORD|Secret|SECRET|Token|TOKEN)$/;
const NAME_HEADER = /^(?:Key|KEY|Name|NAME|KeyName)$/;
const MAX_ROWS = 200;

// Lines are looked for within a bounded window: one long line of dashes stays linear.
const MAX_LINE = 4096;

// A JSON-escaped table (`kubectl` output quoted in a transcript) has its rows end at `\n`: ./lines.ts.
const lineStart = (text: string, at: number) => lineStartIn(text, at, MAX_LINE);
const lineEnd = (text: string, at: number) => lineEndIn(text, at, MAX_LINE);

// Generated-looking values that a table holds as data: timestamps, versions, hashes, ids.
const NOT_KEY_MATERIAL =
  /^\d{4}-\d{2}-\d{2}|^v?\d+(?:\.\d+)+|^[0-9a-f]{16,}$|^[0-9A-F]{16,}$|^[0-9a-f]{8}-[0-9a-f]{4}-/;

function secretCell(name: string, v: string, allSecret: boolean): boolean {
  if (v.length === 0 || isPlaceholder(v)) return false;
  if (allSecret) return true;
  if (name && keyKind(name) !== null) return true;
  return v.length >= 16 && !/\s/.test(v) && looksGenerated(v) && !NOT_KEY_MATERIAL.test(v);
}

/** Whether the column starting at `col` starts there in `line`: after a blank, or past its end. */
function aligned(line: string, col: number): boolean {
  return col === 0 || col >= line.length || line.charCodeAt(col - 1) === 32 || line.charCodeAt(col - 1) === 9;
}

/** The dash line under a table's header (`---   -----`); `at` is its first dash. Returns where to resume. */
export function dashTable(text: string, at: number, spans: Span[]): number {
  const ls = lineStart(text, at);
  const le = lineEnd(text, at);
  if (ls === 0) return at + 1;
  const cols: number[] = [];
  for (let i = ls; i < le; i++) {
    if (text.charCodeAt(i) === 45 && (i === ls || text.charCodeAt(i - 1) === 32)) cols.push(i - ls);
    else if (text.charCodeAt(i) !== 45 && text.charCodeAt(i) !== 32) return le;
  }
  const hb = breakStart(text, ls);
  const hs = lineStart(text, hb);
  const header = text.slice(hs, hb);
  const cell = (line: string, c: number) => line.slice(cols[c], cols[c + 1] ?? line.length).trim();
  let valueCol = -1;
  let nameCol = -1;
  for (let c = 0; c < cols.length; c++) {
    const h = cell(header, c);
    if (VALUE_HEADER.test(h)) valueCol = c;
    else if (NAME_HEADER.test(h) && nameCol < 0) nameCol = c;
  }
  if (valueCol < 0) return le;
  // vault prints the secret's own fields under `====== Data ======`.
  const allSecret = /=+ (?:Data|Secret) =+(?:\s|\\+[nr])*$/.test(text.slice(Math.max(0, hs - 80), hs));
  let rs = pastBreak(text, le);
  for (let row = 0; row < MAX_ROWS && rs < text.length; row++) {
    const re = lineEnd(text, rs);
    const line = text.slice(rs, re);
    if (line.trim().length === 0 || /^\s*[=-]{3}|^\s*\$ /.test(line)) break;
    // A row's cells are padded to the columns: a line with a word across the value column's start is
    // the text after the table (a file's next line, when the table was its first).
    if (!aligned(line, cols[valueCol] as number)) break;
    const v = cell(line, valueCol);
    const name = nameCol >= 0 ? cell(line, nameCol) : "";
    if (secretCell(name, v, allSecret)) {
      const s = rs + line.indexOf(v, cols[valueCol]);
      spans.push({ s, e: s + v.length, kind: "secret", p: 1 });
    }
    rs = pastBreak(text, re);
  }
  return rs;
}

const BOX = "│";
// The same table in JSON that escapes every non-ASCII character (Python's json.dumps by default).
const ESCAPED_BOX = "\\u2502";
const RULE_LINE = /^[\s\u2500-\u257f]+$/;
const ESCAPED_RULE_LINE = /^(?:\s|\\{1,3}u25[0-7][0-9a-fA-F])+$/;

/** A box-drawn table (`│ NAME │ VALUE │`): gated on the box character, found at memchr speed. */
export function boxTables(text: string, spans: Span[]): void {
  if (text.includes(BOX)) boxTablesBy(text, spans, BOX, RULE_LINE);
  // Its escape's backslash is found at memchr speed, and most texts have none.
  else if (text.includes("\\") && text.includes(ESCAPED_BOX))
    boxTablesBy(text, spans, ESCAPED_BOX, ESCAPED_RULE_LINE);
}

/** The tables whose cells stand between `box` characters, and whose rules between rows match `rule`. */
function boxTablesBy(text: string, spans: Span[], box: string, rule: RegExp): void {
  let from = 0;
  for (;;) {
    const h = text.indexOf(box, from);
    if (h < 0) return;
    const hs = lineStart(text, h);
    const he = lineEnd(text, h);
    from = pastBreak(text, he);
    const headers = text
      .slice(hs, he)
      .split(box)
      .map((c) => c.trim());
    const valueCol = headers.findIndex((c) => VALUE_HEADER.test(c));
    if (valueCol < 0) continue;
    const nameCol = headers.findIndex((c) => NAME_HEADER.test(c));
    let rs = pastBreak(text, he);
    for (let row = 0; row < MAX_ROWS && rs < text.length; row++) {
      const re = lineEnd(text, rs);
      const line = text.slice(rs, re);
      // A rule between rows (`├────┼────┤`) is skipped; anything else without a `│` ends the table.
      if (!line.includes(box)) {
        if (rule.test(line) && line.trim().length > 0) {
          rs = pastBreak(text, re);
          continue;
        }
        break;
      }
      const cells = line.split(box);
      if (cells.length === headers.length) {
        const v = (cells[valueCol] as string).trim();
        const name = nameCol >= 0 ? (cells[nameCol] as string).trim() : "";
        if (secretCell(name, v, false)) {
          let off = 0;
          for (let c = 0; c < valueCol; c++) off += (cells[c] as string).length + box.length;
          const s = rs + off + (cells[valueCol] as string).indexOf(v);
          spans.push({ s, e: s + v.length, kind: "secret", p: 1 });
        }
      }
      rs = pastBreak(text, re);
    }
    from = rs;
  }
}
