// Turns as terminal lines (`tapedeck show`): every line starts with its absolute
// time (UTC) and its offset from the session's start; subagents are indented
// under the call that spawned them. Everything from the archive is made
// printable here, before any colour is added, so a recorded escape sequence
// can neither steer the terminal nor pass for tapedeck's own colours.
import { printable, printableText } from "../core/base/printable.ts";
import { formatCost } from "../usage/pricing.ts";
import type { Agent, Excerpt, ToolCall, Turn, TurnItem, Usage } from "./timeline.ts";

export interface Style {
  dim(s: string): string;
  bold(s: string): string;
  red(s: string): string;
  green(s: string): string;
  cyan(s: string): string;
  yellow(s: string): string;
}

const plain = (s: string) => s;
export const PLAIN: Style = { dim: plain, bold: plain, red: plain, green: plain, cyan: plain, yellow: plain };

function sgr(code: string): (s: string) => string {
  return (s) => (s ? `\x1b[${code}m${s}\x1b[0m` : s);
}
export const COLOUR: Style = {
  dim: sgr("2"),
  bold: sgr("1"),
  red: sgr("31"),
  green: sgr("32"),
  cyan: sgr("36"),
  yellow: sgr("33"),
};

/** Colour only on a terminal, and never when NO_COLOR is set to anything (https://no-color.org). */
export function styleFor(stream: { isTTY?: boolean }, env: Record<string, string | undefined>): Style {
  return stream.isTTY === true && !env.NO_COLOR ? COLOUR : PLAIN;
}

export interface RenderOptions {
  style: Style;
  /** the session's first event: offsets are measured from it */
  origin: string | null;
  /** event kinds to show; all when undefined */
  kinds?: ReadonlySet<string>;
  /** lines of a prompt, answer or output kept (undefined: all of the excerpt) */
  maxLines?: number;
}

const TIME_WIDTH = 12;
const OFFSET_WIDTH = 10;

/** `11:08:16.430` (UTC), or blanks when the event has no time. */
export function clock(at: string | null): string {
  if (!at || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/.test(at)) return " ".repeat(TIME_WIDTH);
  return printable(at.slice(11, 23)).padEnd(TIME_WIDTH);
}

/** `+1.085s`, `+2m03.4s`, `+1h02m`, from the session's start. */
export function offset(origin: string | null, at: string | null): string {
  const d = origin && at ? Date.parse(at) - Date.parse(origin) : Number.NaN;
  if (!Number.isFinite(d)) return "".padEnd(OFFSET_WIDTH);
  const sign = d < 0 ? "-" : "+";
  const a = Math.abs(d);
  let text: string;
  if (a < 60_000) text = `${(a / 1000).toFixed(3)}s`;
  else if (a < 3_600_000)
    text = `${Math.floor(a / 60_000)}m${((a % 60_000) / 1000).toFixed(1).padStart(4, "0")}s`;
  else
    text = `${Math.floor(a / 3_600_000)}h${String(Math.floor((a % 3_600_000) / 60_000)).padStart(2, "0")}m`;
  return `${sign}${text}`.padEnd(OFFSET_WIDTH);
}

export function formatMs(n: number | null): string {
  if (n === null) return "";
  if (n < 1000) return `${Math.round(n)} ms`;
  return `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)} s`;
}

/** `1160 in · 196 out · 11600 cache read · 540 cache write (claude-transcript)`. */
export function usageLine(u: Usage): string {
  const parts = [
    `${u.input_tokens} in`,
    `${u.output_tokens} out`,
    `${u.cache_read_input_tokens} cache read`,
    `${u.cache_creation_input_tokens} cache write`,
  ];
  return `${parts.join(" · ")}${u.sources.length > 0 ? ` (${u.sources.map(printable).join(", ")})` : ""}`;
}

function hasUsage(u: Usage): boolean {
  return u.sources.length > 0;
}

export class Lines {
  readonly out: string[] = [];
  constructor(private readonly o: RenderOptions) {}

  shows(kind: string): boolean {
    return !this.o.kinds || this.o.kinds.has(kind);
  }

  line(at: string | null, depth: number, text: string): void {
    const s = this.o.style;
    this.out.push(`${s.dim(clock(at))} ${s.dim(offset(this.o.origin, at))} ${"  ".repeat(depth)}${text}`);
  }

  /** A multi-line text under a line, each line behind a gutter, cut to maxLines. */
  block(depth: number, e: Excerpt, label = ""): void {
    const s = this.o.style;
    const pad = " ".repeat(TIME_WIDTH + OFFSET_WIDTH + 2) + "  ".repeat(depth);
    const all = printableText(e.text).replace(/\t/g, "  ").split("\n");
    while (all.length > 0 && all.at(-1)!.trim() === "") all.pop();
    const max = this.o.maxLines;
    const shown = max === undefined ? all : all.slice(0, max);
    for (const l of shown) this.out.push(`${pad}${s.dim("│")} ${l}`);
    const moreLines = all.length - shown.length;
    const notes: string[] = [];
    if (moreLines > 0) notes.push(`${moreLines} more line${moreLines === 1 ? "" : "s"}`);
    if (e.omitted_chars > 0) notes.push(`${e.omitted_chars} more characters`);
    if (notes.length > 0) this.out.push(`${pad}${s.dim(`… ${notes.join(", ")}${label} (--full shows all)`)}`);
  }
}

function renderCall(l: Lines, call: ToolCall, depth: number, o: RenderOptions): void {
  const s = o.style;
  const resultShown = call.result !== null && l.shows(call.result.ok ? "tool_result" : "tool_error");
  if (l.shows("tool_call") && call.sequence !== null) {
    l.line(call.at, depth, `${s.cyan(printable(call.name))}  ${printable(call.input)}`);
  } else if (resultShown) {
    // A result alone says nothing of what failed (`--kinds tool_error`): its call goes beside it.
    const note = call.sequence === null ? ` ${s.dim("(call not in view)")}` : "";
    l.line(
      call.at ?? call.result?.at ?? null,
      depth,
      `${s.cyan(printable(call.name))}  ${printable(call.input)}${note}`,
    );
  }
  for (const agent of call.agents) renderAgent(l, agent, depth + 1, o);
  const r = call.result;
  if (!r) {
    if (l.shows("tool_call")) l.line(null, depth + 1, s.yellow("no result recorded"));
    return;
  }
  if (!l.shows(r.ok ? "tool_result" : "tool_error")) return;
  const facts = [r.exit_code !== null ? `exit ${r.exit_code}` : "", formatMs(r.duration_ms)].filter(Boolean);
  const status = r.ok ? s.green("ok") : s.red("error");
  l.line(r.at, depth + 1, `${status}${facts.length > 0 ? `  ${facts.join(" · ")}` : ""}`);
  if (r.excerpt.text || r.excerpt.omitted_chars > 0) l.block(depth + 1, r.excerpt);
}

function renderAgent(l: Lines, a: Agent, depth: number, o: RenderOptions): void {
  const s = o.style;
  if (l.shows("subagent_start")) {
    l.line(
      a.at,
      depth,
      s.bold(
        `subagent ${printable(a.agent_type ?? "")} ${printable(a.agent_id.slice(0, 64))}`.replace("  ", " "),
      ),
    );
  }
  if (a.prompt && l.shows("user_prompt")) {
    l.line(a.at, depth + 1, s.bold("task"));
    l.block(depth + 1, a.prompt);
  }
  renderItems(l, a.items, depth + 1, o);
  if (a.answer && l.shows("subagent_stop")) {
    l.line(a.stopped_at, depth + 1, s.bold("answer"));
    l.block(depth + 1, a.answer);
  }
  if (hasUsage(a.usage) && l.shows("turn_usage")) {
    const cost = formatCost(a.cost);
    l.line(null, depth + 1, s.dim(`tokens ${usageLine(a.usage)}${cost ? ` · ${cost}` : ""}`));
  }
}

function renderItems(l: Lines, items: TurnItem[], depth: number, o: RenderOptions): void {
  const s = o.style;
  for (const item of items) {
    if (item.type === "tool") renderCall(l, item, depth, o);
    else if (item.type === "agent") renderAgent(l, item, depth, o);
    else if (item.type === "text") {
      if (!l.shows("assistant_message")) continue;
      l.line(item.at, depth, s.bold("said"));
      l.block(depth, item.text);
    } else if (l.shows(item.kind)) {
      const text = printable(item.text);
      l.line(item.at, depth, item.failure ? s.red(text) : s.dim(`· ${text}`));
    }
  }
}

/** A turn's header and lines. */
export function renderTurn(turn: Turn, o: RenderOptions): string[] {
  const s = o.style;
  const l = new Lines(o);
  const facts = [
    `${turn.tool_calls} tool call${turn.tool_calls === 1 ? "" : "s"}`,
    turn.tool_errors > 0 ? s.red(`${turn.tool_errors} error${turn.tool_errors === 1 ? "" : "s"}`) : "",
    turn.failure ? s.red("failed") : "",
    turn.continued ? "continued from the previous page" : "",
  ].filter(Boolean);
  l.out.push(s.bold(`── Turn ${turn.index}`) + s.dim(` · ${facts.join(" · ")}`));
  // In recorded order: a resumed session's start comes before its prompt, its end after the answer.
  const promptAt = turn.prompt?.sequence ?? Number.NEGATIVE_INFINITY;
  const answerAt = turn.answer?.sequence ?? Number.POSITIVE_INFINITY;
  const seq = (i: TurnItem) => (i.type === "tool" ? (i.sequence ?? i.result?.sequence ?? 0) : i.sequence);
  renderItems(
    l,
    turn.items.filter((i) => seq(i) < promptAt),
    0,
    o,
  );
  if (turn.prompt && l.shows("user_prompt")) {
    l.line(turn.prompt.at, 0, s.bold("prompt"));
    l.block(0, turn.prompt.text);
  }
  renderItems(
    l,
    turn.items.filter((i) => seq(i) > promptAt && seq(i) < answerAt),
    0,
    o,
  );
  if (turn.answer && l.shows("assistant_message")) {
    l.line(turn.answer.at, 0, s.bold("answer"));
    l.block(0, turn.answer.text);
  }
  renderItems(
    l,
    turn.items.filter((i) => seq(i) > answerAt),
    0,
    o,
  );
  if (hasUsage(turn.total_usage) && l.shows("turn_usage")) {
    const cost = formatCost(turn.cost);
    const withAgents = usageTokensDiffer(turn) ? " (subagents included)" : "";
    l.line(null, 0, s.dim(`tokens ${usageLine(turn.total_usage)}${withAgents}${cost ? ` · ${cost}` : ""}`));
  }
  // Only the header: nothing of this turn is among the kinds asked for.
  return l.out.length === 1 && o.kinds ? [] : l.out;
}

function usageTokensDiffer(t: Turn): boolean {
  return (
    t.total_usage.input_tokens !== t.usage.input_tokens ||
    t.total_usage.output_tokens !== t.usage.output_tokens
  );
}
