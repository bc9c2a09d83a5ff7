// What the CLI prints must not steer the terminal. Session ids, titles and
// paths come from agents' payloads and from files anyone could plant in a
// project: an escape sequence there can retitle the window, rewrite what is on
// screen or hide a line; BEL rings; bidi controls make `abc` display as `cba`
// (the "Trojan Source" trick), so a listed id or path would not be what it is.
// Every formatter sends untrusted text through here; a removed character shows
// as U+FFFD, so two ids that differ only by a control still look different.

/** ESC-introduced sequences: CSI (`ESC [ ... final`), OSC/DCS/PM/APC strings (to BEL or ST), and 2-byte escapes. */
const ESCAPE_SEQUENCE = /\x1b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~]?)/g;
/** C0 controls (but tab and newline), DEL, C1 controls, and the Unicode bidi and line/paragraph separators. */
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const REPLACEMENT = "\ufffd";

/** Text for the terminal, one line: every control (newline and tab too) and escape sequence shown as U+FFFD. */
export function printable(text: string): string {
  return printableText(text).replace(/[\t\n]/g, REPLACEMENT);
}

/** Text for the terminal that may span lines: newlines and tabs are kept, every other control is replaced. */
export function printableText(text: string): string {
  return text.replace(ESCAPE_SEQUENCE, REPLACEMENT).replace(CONTROL, REPLACEMENT);
}

/**
 * JSON for the terminal: the data stays exact (JSON.stringify already escapes C0), and the characters it would
 * print raw (DEL, C1, bidi and separators) are written as \\u escapes, which parse back to the same string.
 */
export function printableJson(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? "null").replace(
    /[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * A template whose interpolated values are each shown on one line (`printable`), the literal text as written:
 * `fields\`  kept: ${id} (${reason})\n\`` keeps its own newline, while a newline, a carriage return or an escape
 * sequence in a recorded id, path or reason shows as U+FFFD, so no recorded value can start a line of its own.
 */
export function fields(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += printable(String(values[i])) + (strings[i + 1] ?? "");
  return out;
}
