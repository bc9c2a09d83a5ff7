// A checklist on the terminal: one line per entry with a box, the text of the entry under the cursor below the
// list, space to tick or untick, enter to accept, q or Esc to cancel. What `promote --pick` shows; drawn on the
// alternate screen so that the user's scrollback is left as it was, and read from stdin in raw mode.
import { printable } from "../../../core/base/printable.ts";

export interface ChecklistEntry {
  /** One line: what the entry is. */
  label: string;
  /** Shown under the list while the cursor is on the entry. */
  detail: string;
  checked: boolean;
}

export interface ChecklistOptions {
  heading: string;
  /** The count line under the heading, for the ticked entries. */
  summary?: (ticked: number[]) => string;
  input: NodeJS.ReadStream;
  output: NodeJS.WriteStream;
}

const HELP = "↑/↓ move · space tick · a all · n none · enter store the ticked ones · q cancel";
/** Lines of the current entry's text shown under the list. */
const DETAIL_LINES = 10;

type Key =
  | "up"
  | "down"
  | "pageup"
  | "pagedown"
  | "home"
  | "end"
  | "toggle"
  | "all"
  | "none"
  | "accept"
  | "cancel";

const SEQUENCES: Array<[string, Key]> = [
  ["\x1b[A", "up"],
  ["\x1bOA", "up"],
  ["\x1b[B", "down"],
  ["\x1bOB", "down"],
  ["\x1b[5~", "pageup"],
  ["\x1b[6~", "pagedown"],
  ["\x1b[H", "home"],
  ["\x1b[1~", "home"],
  ["\x1b[F", "end"],
  ["\x1b[4~", "end"],
];

const SINGLE: Record<string, Key> = {
  k: "up",
  j: "down",
  " ": "toggle",
  x: "toggle",
  a: "all",
  n: "none",
  "\r": "accept",
  "\n": "accept",
  q: "cancel",
  "\x03": "cancel",
  "\x1b": "cancel",
};

/** The keys in one chunk of raw input (a paste or a fast typist gives several at once). */
export function keysOf(data: string): Key[] {
  const out: Key[] = [];
  let i = 0;
  while (i < data.length) {
    const seq = SEQUENCES.find(([s]) => data.startsWith(s, i));
    if (seq) {
      out.push(seq[1]);
      i += seq[0].length;
      continue;
    }
    if (data[i] === "\x1b" && data[i + 1] === "[") {
      // Another escape sequence (a function key): skipped whole, never read as Esc.
      const end = data.slice(i + 2).search(/[@-~]/);
      i += end < 0 ? data.length : end + 3;
      continue;
    }
    const key = SINGLE[data[i]!];
    if (key) out.push(key);
    i += 1;
  }
  return out;
}

function clipTo(text: string, width: number): string {
  const flat = printable(text.replace(/[\r\n\t]+/g, " "));
  const chars = [...flat];
  return chars.length <= width ? flat : `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

interface State {
  cursor: number;
  top: number;
  checked: boolean[];
}

function render(entries: readonly ChecklistEntry[], s: State, opts: ChecklistOptions): string {
  const cols = Math.max(20, opts.output.columns ?? 80);
  const rows = Math.max(10, opts.output.rows ?? 24);
  const ticked = s.checked.flatMap((c, i) => (c ? [i] : []));
  const head = [
    clipTo(opts.heading, cols),
    clipTo(opts.summary?.(ticked) ?? `${ticked.length} of ${entries.length} ticked`, cols),
  ];
  const listRows = Math.max(3, rows - head.length - DETAIL_LINES - 4);
  if (s.cursor < s.top) s.top = s.cursor;
  if (s.cursor >= s.top + listRows) s.top = s.cursor - listRows + 1;
  const lines = entries.slice(s.top, s.top + listRows).map((e, k) => {
    const i = s.top + k;
    const mark = `${i === s.cursor ? ">" : " "} [${s.checked[i] ? "x" : " "}] `;
    const line = `${mark}${clipTo(e.label, cols - mark.length)}`;
    return i === s.cursor ? `\x1b[7m${line}\x1b[0m` : line;
  });
  const more = entries.length > listRows ? `  (${s.cursor + 1}/${entries.length})` : "";
  const detail = (entries[s.cursor]?.detail ?? "")
    .split("\n")
    .slice(0, DETAIL_LINES)
    .map((l) => `    ${clipTo(l, cols - 4)}`);
  const body = [...head, "", ...lines, clipTo(`${"─".repeat(Math.min(cols, 40))}${more}`, cols), ...detail];
  while (body.length < rows - 1) body.push("");
  body.length = rows - 1;
  body.push(clipTo(HELP, cols));
  return `\x1b[H\x1b[2J${body.join("\r\n")}`;
}

/** Applies a key; answers true (accept), false (cancel) or undefined (keep going). */
function apply(key: Key, s: State, count: number, page: number): boolean | undefined {
  if (key === "accept") return true;
  if (key === "cancel") return false;
  if (key === "up") s.cursor = Math.max(0, s.cursor - 1);
  else if (key === "down") s.cursor = Math.min(count - 1, s.cursor + 1);
  else if (key === "pageup") s.cursor = Math.max(0, s.cursor - page);
  else if (key === "pagedown") s.cursor = Math.min(count - 1, s.cursor + page);
  else if (key === "home") s.cursor = 0;
  else if (key === "end") s.cursor = count - 1;
  else if (key === "toggle") s.checked[s.cursor] = !s.checked[s.cursor];
  else if (key === "all") s.checked.fill(true);
  else if (key === "none") s.checked.fill(false);
  return undefined;
}

/**
 * Shows the checklist until the user accepts (the indexes of the ticked entries, in order) or cancels
 * (undefined). Needs a terminal on input and output; the screen is restored whatever happens.
 */
export function checklist(
  entries: readonly ChecklistEntry[],
  opts: ChecklistOptions,
): Promise<number[] | undefined> {
  const { input, output } = opts;
  const state: State = { cursor: 0, top: 0, checked: entries.map((e) => e.checked) };
  return new Promise((resolve) => {
    const wasRaw = input.isRaw === true;
    const draw = () => output.write(render(entries, state, opts));
    const done = (accepted: boolean) => {
      input.off("data", onData);
      output.off("resize", draw);
      input.setRawMode?.(wasRaw);
      input.pause();
      // Back to the main screen, cursor shown: the result is printed where the command was typed.
      output.write("\x1b[?25h\x1b[?1049l");
      resolve(accepted ? state.checked.flatMap((c, i) => (c ? [i] : [])) : undefined);
    };
    const onData = (chunk: Buffer | string) => {
      const page = Math.max(1, (output.rows ?? 24) - DETAIL_LINES - 8);
      for (const key of keysOf(chunk.toString())) {
        const end = apply(key, state, entries.length, page);
        if (end !== undefined) {
          done(end);
          return;
        }
      }
      draw();
    };
    output.write("\x1b[?1049h\x1b[?25l");
    input.setRawMode?.(true);
    input.resume();
    input.on("data", onData);
    output.on("resize", draw);
    draw();
  });
}
