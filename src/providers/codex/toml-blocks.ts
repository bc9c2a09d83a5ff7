// tapedeck's own blocks in a Codex config.toml, added and removed as text so
// that every other byte of the user's file (comments, order, formatting) is
// kept. A block is delimited by marker comments naming it:
//
//   # >>> tapedeck <name>: written by `tapedeck install`, removed by `tapedeck uninstall`
//   ...
//   # <<< tapedeck <name>
//
// Top-level keys (Codex's `notify`) must come before the first table, so such a
// block goes at the top of the file; a table block goes at the end.
import { isErrno } from "../../core/base/fsutil.ts";
import { readAgentFileText } from "../agent-file.ts";
import { removeAgentFile, writeAgentFile } from "../settings-file.ts";
import { parseTomlTables, tableKey } from "./toml.ts";

/** A config file's text; "" when it does not exist yet. */
export function readConfigText(path: string): string {
  try {
    return readAgentFileText(path);
  } catch (error) {
    if (isErrno(error, "ENOENT")) return "";
    throw new Error(`cannot read ${path}`);
  }
}

const open = (name: string) => `# >>> tapedeck ${name}`;
const close = (name: string) => `# <<< tapedeck ${name}`;
const BOM = "\uFEFF";

/**
 * A file's text split for editing: its byte-order mark kept aside, each line with its own ending (a trailing
 * "\r" stays on its line), and the ending tapedeck's own lines should use (the file's, CRLF if it has any).
 */
function splitText(text: string): { bom: string; eol: string; lines: string[] } {
  const bom = text.startsWith(BOM) ? BOM : "";
  const body = text.slice(bom.length);
  return { bom, eol: body.includes("\r\n") ? "\r\n" : "\n", lines: body.split("\n") };
}

function joinText(bom: string, lines: string[]): string {
  return bom + lines.join("\n");
}

const bare = (line: string) => line.replace(/\r$/, "");

/** Where a block of `name` sits: [first line, last line], or undefined. */
function findBlock(lines: string[], name: string): [number, number] | undefined {
  const start = lines.findIndex((l) => bare(l).startsWith(`${open(name)}:`) || bare(l) === open(name));
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && bare(l) === close(name));
  return end < 0 ? undefined : [start, end];
}

/**
 * Which lines of a block are tapedeck's: lines starting with one of `prefixes`, or, for a table block, every
 * line up to the first other table header (another program's table inserted before the closing comment).
 */
export type Owned = readonly string[] | { table: string };

function foreignLines(body: string[], owned: Owned | undefined): string[] {
  if (!owned) return [];
  if ("table" in owned) {
    const at = body.findIndex((l) => bare(l).trimStart().startsWith("[") && !bare(l).startsWith(owned.table));
    return at < 0 ? [] : body.slice(at);
  }
  return body.filter((l) => bare(l).trim() !== "" && !owned.some((p) => bare(l).startsWith(p)));
}

export function hasBlock(text: string, name: string): boolean {
  return findBlock(splitText(text).lines, name) !== undefined;
}

/**
 * The text without tapedeck's block `name` and the blank line that separated it (unchanged when there is
 * none). With `owned`, only the block's lines that start with one of those prefixes are tapedeck's: any other
 * line found between the markers (another program's edit) is kept where it was.
 */
export function removeBlock(text: string, name: string, owned?: Owned): string {
  const { bom, lines } = splitText(text);
  const at = findBlock(lines, name);
  if (!at) return text;
  const foreign = foreignLines(lines.slice(at[0] + 1, at[1]), owned);
  lines.splice(at[0], at[1] - at[0] + 1, ...foreign);
  if (foreign.length === 0) {
    if (at[0] === 0 && bare(lines[0] ?? "x") === "" && lines.length > 1) lines.splice(0, 1);
    else if (at[0] > 0 && bare(lines[at[0] - 1]!) === "") lines.splice(at[0] - 1, 1);
  }
  return joinText(bom, lines);
}

/** Replaces (or adds) tapedeck's block `name`: at the top for top-level keys, at the end for a table. */
export function setBlock(
  text: string,
  name: string,
  body: string[],
  where: "top" | "end",
  owned?: Owned,
): string {
  const stripped = removeBlock(text, name, owned);
  const { bom, eol } = splitText(text);
  const rest = stripped.slice(bom.length);
  const block = [
    `${open(name)}: written by \`tapedeck install\`, removed by \`tapedeck uninstall\``,
    ...body,
    close(name),
  ].join(eol);
  if (rest === "") return `${bom}${block}${eol}`;
  if (where === "top") return `${bom}${block}${eol}${eol}${rest}`;
  return `${bom}${rest}${rest.endsWith("\n") ? "" : eol}${eol}${block}${eol}`;
}

/** Whether nothing but white space (and a byte-order mark) is left: the file can go. */
export function isBlank(text: string): boolean {
  return text.replace(BOM, "").trim() === "";
}

/** Whether the file sets `key` in `table` ([] for top level) outside tapedeck's block `name`. */
export function setsOutsideBlock(text: string, name: string, table: string[], key: string): boolean {
  return parseTomlTables(removeBlock(text, name)).get(tableKey(table))?.has(key) ?? false;
}

/** Whether the file has the table `[a.b]` (or keys under it) outside tapedeck's block `name`. */
export function hasTableOutsideBlock(text: string, name: string, table: string[]): boolean {
  const tables = parseTomlTables(removeBlock(text, name));
  if (tables.has(tableKey(table))) return true;
  const prefix = tableKey(table).slice(0, -1);
  return [...tables.keys()].some((k) => k.startsWith(`${prefix},`));
}

/** The lines inside tapedeck's block `name`, or undefined when there is none. */
export function blockBody(text: string, name: string): string[] | undefined {
  const { lines } = splitText(text);
  const at = findBlock(lines, name);
  return at ? lines.slice(at[0] + 1, at[1]).map(bare) : undefined;
}

/** A `key = <value>` line of a block tapedeck wrote, whose value is JSON (as tapedeck writes it). */
export function blockValue(body: string[] | undefined, key: string): unknown {
  const line = body?.find((l) => l.startsWith(`${key} = `));
  if (line === undefined) return undefined;
  try {
    return JSON.parse(line.slice(key.length + 3)) as unknown;
  } catch {
    return undefined;
  }
}

/** A TOML array of strings, as tapedeck writes it (JSON strings are TOML basic strings). */
export function tomlStringArray(items: readonly string[]): string {
  return `[${items.map((i) => JSON.stringify(i)).join(", ")}]`;
}

/** Writes a config file after a block edit; a file the removal left blank goes. */
export function writeConfigText(path: string, text: string, within?: string): void {
  if (isBlank(text)) removeAgentFile(path, within);
  else writeAgentFile(path, text, within);
}
