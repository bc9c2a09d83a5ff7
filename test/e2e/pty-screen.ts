// An agent CLI run interactively under a pseudo-terminal, and what its screen shows.
//
// Claude's TUI repaints by difference: it moves the cursor and rewrites only the cells that changed
// ("running S" + jump + "p hook" turns "running PostToolUse hook" into "running Stop hook"), so the raw
// output, even with its escapes stripped, is not the text a user sees, and a word on screen may appear in no
// single write. `Screen` replays the output on a grid, the way a terminal does, well enough for the sequences
// Claude sends (cursor moves, erases, the alternate screen); colours and modes are ignored.
import { createRequire } from "node:module";
import type { IPty } from "@lydell/node-pty";

/** One token of terminal output: an escape or control sequence, or a run of printable text. */
const TOKEN =
  /\x1b\[([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_X][^\x1b]*\x1b\\|\x1b[()*+#%].|\x1b([^[\]P^_X()*+#%])|([\x00-\x1a\x1c-\x1f\x7f])|([^\x00-\x1f\x7f\x1b]+)/y;

/** East Asian wide and emoji code points take two cells (a rough wcwidth, enough to keep columns aligned). */
function cellWidth(cp: number): number {
  const wide =
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd);
  return wide ? 2 : 1;
}

export class Screen {
  private cells: string[][];
  private row = 0;
  private col = 0;
  private saved = { row: 0, col: 0 };
  /** The tail of the last write when it ended inside an escape sequence. */
  private partial = "";

  constructor(
    readonly cols: number,
    readonly rows: number,
  ) {
    this.cells = this.blank();
  }

  /** The visible text, one line per row, trailing blanks trimmed. */
  text(): string {
    return this.cells
      .map((r) => r.join("").trimEnd())
      .join("\n")
      .trimEnd();
  }

  write(data: string): void {
    const s = this.partial + data;
    this.partial = "";
    TOKEN.lastIndex = 0;
    while (TOKEN.lastIndex < s.length) {
      const at = TOKEN.lastIndex;
      const m = TOKEN.exec(s);
      if (!m || m.index !== at) {
        // An escape cut by the end of this write: finish it with the next one.
        this.partial = s.slice(at);
        return;
      }
      if (m[2] !== undefined) this.csi(m[1]!, m[2]);
      else if (m[3] !== undefined) this.esc(m[3]);
      else if (m[4] !== undefined) this.control(m[4]);
      else if (m[5] !== undefined) this.print(m[5]);
    }
  }

  private blank(): string[][] {
    return Array.from({ length: this.rows }, () => this.blankRow());
  }

  private blankRow(): string[] {
    return Array.from({ length: this.cols }, () => " ");
  }

  private clampCursor(): void {
    this.row = Math.max(0, Math.min(this.rows - 1, this.row));
    this.col = Math.max(0, Math.min(this.cols - 1, this.col));
  }

  private lineFeed(): void {
    if (this.row === this.rows - 1) {
      this.cells.shift();
      this.cells.push(this.blankRow());
    } else {
      this.row++;
    }
  }

  private print(text: string): void {
    for (const ch of text) {
      const width = cellWidth(ch.codePointAt(0)!);
      if (this.col + width > this.cols) {
        this.col = 0;
        this.lineFeed();
      }
      this.cells[this.row]![this.col] = ch;
      if (width === 2 && this.col + 1 < this.cols) this.cells[this.row]![this.col + 1] = "";
      this.col += width;
    }
  }

  private control(c: string): void {
    if (c === "\r") this.col = 0;
    else if (c === "\n") {
      // The pty translates LF to CR LF on output (ONLCR), and Claude's renderer counts on it.
      this.col = 0;
      this.lineFeed();
    } else if (c === "\b") this.col = Math.max(0, this.col - 1);
    else if (c === "\t") this.col = Math.min(this.cols - 1, (Math.floor(this.col / 8) + 1) * 8);
  }

  private esc(c: string): void {
    if (c === "7") this.saved = { row: this.row, col: this.col };
    else if (c === "8") ({ row: this.row, col: this.col } = this.saved);
    else if (c === "M") this.row = Math.max(0, this.row - 1);
    else if (c === "D") this.lineFeed();
    else if (c === "E") {
      this.col = 0;
      this.lineFeed();
    } else if (c === "c") this.reset();
  }

  private reset(): void {
    this.cells = this.blank();
    this.row = 0;
    this.col = 0;
  }

  private csi(params: string, final: string): void {
    const priv = params.startsWith("?") || params.startsWith(">") || params.startsWith("=");
    const nums = params.replace(/^[?>=<]/, "").split(";");
    const n = (i: number, dflt: number) => {
      const v = Number.parseInt(nums[i] ?? "", 10);
      return Number.isNaN(v) ? dflt : v;
    };
    if (priv) {
      // Entering or leaving the alternate screen starts from a blank one.
      if ((final === "h" || final === "l") && nums.some((p) => p === "1049" || p === "47")) this.reset();
      return;
    }
    const line = this.cells[this.row]!;
    switch (final) {
      case "A":
        this.row -= n(0, 1) || 1;
        break;
      case "B":
      case "e":
        this.row += n(0, 1) || 1;
        break;
      case "C":
      case "a":
        this.col += n(0, 1) || 1;
        break;
      case "D":
        this.col -= n(0, 1) || 1;
        break;
      case "E":
        this.row += n(0, 1) || 1;
        this.col = 0;
        break;
      case "F":
        this.row -= n(0, 1) || 1;
        this.col = 0;
        break;
      case "G":
      case "`":
        this.col = n(0, 1) - 1;
        break;
      case "d":
        this.row = n(0, 1) - 1;
        break;
      case "H":
      case "f":
        this.row = n(0, 1) - 1;
        this.col = n(1, 1) - 1;
        break;
      case "K": {
        const mode = n(0, 0);
        const [from, to] =
          mode === 0 ? [this.col, this.cols] : mode === 1 ? [0, this.col + 1] : [0, this.cols];
        for (let i = from; i < to; i++) line[i] = " ";
        break;
      }
      case "J": {
        const mode = n(0, 0);
        if (mode === 2 || mode === 3) this.cells = this.blank();
        else if (mode === 0) {
          for (let i = this.col; i < this.cols; i++) line[i] = " ";
          for (let r = this.row + 1; r < this.rows; r++) this.cells[r] = this.blankRow();
        } else {
          for (let i = 0; i <= this.col; i++) line[i] = " ";
          for (let r = 0; r < this.row; r++) this.cells[r] = this.blankRow();
        }
        break;
      }
      case "X":
        for (let i = this.col; i < Math.min(this.cols, this.col + (n(0, 1) || 1)); i++) line[i] = " ";
        break;
      case "s":
        this.saved = { row: this.row, col: this.col };
        break;
      case "u":
        ({ row: this.row, col: this.col } = this.saved);
        break;
      default:
        // Colours (m), scroll regions (r), queries: nothing on the grid changes.
        return;
    }
    this.clampCursor();
  }
}

export interface PtyOptions {
  cwd: string;
  env: Record<string, string>;
  cols?: number;
  rows?: number;
}

/** A program running under a pty, its screen replayed as it writes. */
export interface Terminal {
  screen(): string;
  /** Every distinct screen it has shown, in order (checked for words that must never appear). */
  frames(): string[];
  /** Types into the program, as a user would. */
  type(text: string): void;
  /** Resolves with the screen once `what` matches it (or holds for it); rejects, with the screen, after `timeoutMs`. */
  waitFor(what: RegExp | ((screen: string) => boolean), timeoutMs: number): Promise<string>;
  /** Resolves with the exit code, or undefined if it is still running after `timeoutMs`. */
  waitExit(timeoutMs: number): Promise<number | undefined>;
  pid: number;
  /** SIGKILL, if it still runs. */
  kill(): void;
}

type NodePty = typeof import("@lydell/node-pty");

function loadPty(): NodePty {
  try {
    // Prebuilt binaries (no native build at install): a dependency of the pinned gemini CLI.
    return createRequire(import.meta.url)("@lydell/node-pty") as NodePty;
  } catch (error) {
    throw new Error(`the pty package @lydell/node-pty does not load here: ${(error as Error).message}`);
  }
}

export function spawnInPty(file: string, args: string[], opts: PtyOptions): Terminal {
  const cols = opts.cols ?? 120;
  const rows = opts.rows ?? 40;
  const screen = new Screen(cols, rows);
  const frames: string[] = [];
  const proc: IPty = loadPty().spawn(file, args, {
    name: "xterm-256color",
    cols,
    rows,
    cwd: opts.cwd,
    env: opts.env,
  });
  let exitCode: number | undefined;
  let exited = false;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of [...listeners]) l();
  };
  proc.onData((data) => {
    screen.write(data);
    const now = screen.text();
    if (frames.at(-1) !== now) frames.push(now);
    notify();
  });
  proc.onExit(({ exitCode: code }) => {
    exited = true;
    exitCode = code;
    notify();
  });

  function until<T>(test: () => T | undefined, timeoutMs: number, onTimeout: () => T | Error): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const v = test();
        if (v === undefined) return;
        done();
        resolve(v);
      };
      const timer = setTimeout(() => {
        done();
        const v = onTimeout();
        if (v instanceof Error) reject(v);
        else resolve(v);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });
  }

  return {
    pid: proc.pid,
    screen: () => screen.text(),
    frames: () => [...frames],
    type: (text) => proc.write(text),
    waitFor: (what, timeoutMs) =>
      until(
        () => {
          const now = screen.text();
          return (typeof what === "function" ? what(now) : what.test(now)) ? now : undefined;
        },
        timeoutMs,
        () => new Error(`the screen never showed ${what} in ${timeoutMs} ms; it shows:\n${screen.text()}`),
      ),
    waitExit: (timeoutMs) =>
      until<number | undefined>(
        () => (exited ? (exitCode ?? -1) : undefined),
        timeoutMs,
        () => undefined,
      ),
    kill: () => {
      if (exited) return;
      try {
        proc.kill("SIGKILL");
      } catch {
        // already gone
      }
    },
  };
}
