// `tapedeck show SESSION`: a session turn by turn (prompt, tool calls and their results, subagents, answer,
// tokens and estimated cost), read from the archive a line at a time; --follow tails a live session.

import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { EVENT_KINDS } from "../../core/archive/kinds.ts";
import { printable, printableJson } from "../../core/base/printable.ts";
import type { ScopedSession } from "../../core/read/session-scope.ts";
import { statusWord } from "../../core/read/session-status.ts";
import { emptyUsage } from "../../core/read/timeline/usage.ts";
import { subagentToolsOf } from "../../providers/catalog.ts";
import { usageFactsOf } from "../../providers/usage-facts.ts";
import { CostAccumulator, formatCost, type PriceTable } from "../../usage/pricing.ts";
import { LiveRenderer } from "../../viewer/live-text.ts";
import {
  type BadLine,
  readEventLines,
  TimelineBuilder,
  type TimelineEvent,
  type Turn,
  type Usage,
} from "../../viewer/timeline.ts";
import { type RenderOptions, renderTurn, styleFor, usageLine } from "../../viewer/turn-text.ts";
import { CliError, EXIT, note } from "../common.ts";
import { readableOrExplain } from "../events-file.ts";
import { io, setExitCode } from "../io.ts";
import { offerWords, withSessionOptions } from "../options.ts";
import { projectPrices } from "../project-prices.ts";
import { providerName } from "../providers.ts";
import { resolveSessionArg, type SessionOpts, withAllProjects } from "../session-arg.ts";

interface ShowOpts extends SessionOpts {
  kinds?: string;
  full?: boolean;
  follow?: boolean;
}

const FOLLOW_POLL_MS = 250;
/** Lines of an excerpt a turn shows without --full. */
const MAX_LINES = 12;

function parseKinds(value: string | undefined): Set<string> | undefined {
  if (value === undefined) return undefined;
  const kinds = value
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = kinds.filter((k) => !(EVENT_KINDS as readonly string[]).includes(k));
  if (kinds.length === 0 || unknown.length > 0) {
    throw new CliError(
      `unknown event kind "${printable(unknown[0] ?? value)}" (use ${EVENT_KINDS.join(", ")})`,
      EXIT.usage,
    );
  }
  return new Set(kinds);
}

interface Totals {
  turns: number;
  tool_calls: number;
  tool_errors: number;
  failures: string[];
  usage: Usage;
  cost: CostAccumulator;
}

function addTotals(t: Totals, turn: Turn): void {
  t.turns += 1;
  t.tool_calls += turn.tool_calls;
  t.tool_errors += turn.tool_errors;
  if (turn.failure) t.failures.push(turn.failure);
  const u = turn.total_usage;
  t.usage.input_tokens += u.input_tokens;
  t.usage.output_tokens += u.output_tokens;
  t.usage.cache_read_input_tokens += u.cache_read_input_tokens;
  t.usage.cache_creation_input_tokens += u.cache_creation_input_tokens;
  for (const s of u.sources) if (!t.usage.sources.includes(s)) t.usage.sources.push(s);
  t.cost.merge(turn.cost);
}

/** Filters a turn's parts to the kinds asked for (the JSON form of --kinds). */
function filterTurn(turn: Turn, kinds: Set<string> | undefined): Turn {
  if (!kinds) return turn;
  const keepItem = (i: Turn["items"][number]): boolean =>
    i.type === "tool"
      ? kinds.has("tool_call") || kinds.has(i.result?.ok === false ? "tool_error" : "tool_result")
      : i.type === "agent"
        ? kinds.has("subagent_start")
        : kinds.has(i.type === "text" ? "assistant_message" : i.kind);
  return {
    ...turn,
    prompt: kinds.has("user_prompt") ? turn.prompt : null,
    answer: kinds.has("assistant_message") ? turn.answer : null,
    items: turn.items.filter(keepItem),
  };
}

function emptyTotals(prices: PriceTable): Totals {
  return {
    turns: 0,
    tool_calls: 0,
    tool_errors: 0,
    failures: [],
    usage: emptyUsage(),
    cost: new CostAccumulator(prices),
  };
}

type ReadResult = ReturnType<typeof readEventLines>;

/**
 * One `show` of a session: the header, the turns as the timeline model builds them, the totals. Text
 * --follow prints the history as turns, then each new event as a line (a turn in progress has no tree yet);
 * the totals then come from a second model fed every event.
 */
class ShowRun {
  private readonly out = (text: string) => io().stdout.write(text);
  private readonly style = styleFor(io().stdout, process.env);
  private readonly totals: Totals;
  private readonly renderOptions: RenderOptions;
  private readonly live: boolean;
  private readonly printer: TimelineBuilder;
  private readonly counter: TimelineBuilder | undefined;
  private liveLines: LiveRenderer | undefined;
  private readonly bad: BadLine[] = [];
  /** the session's last lifecycle event is its end */
  ended = false;
  private readonly record: RecordCounts = { events: 0, redactions: 0, truncations: 0, omitted: 0 };
  private firstJson = true;
  private printed = 0;
  read: ReadResult | undefined;

  constructor(
    private readonly ref: ScopedSession,
    private readonly opts: ShowOpts,
    private readonly kinds: Set<string> | undefined,
  ) {
    const prices = projectPrices(ref.project);
    this.totals = emptyTotals(prices);
    this.renderOptions = {
      style: this.style,
      origin: ref.manifest.started_at ?? null,
      kinds,
      maxLines: opts.full ? undefined : MAX_LINES,
    };
    const builderOptions = {
      full: opts.full === true,
      prices,
      subagentTools: subagentToolsOf(ref.manifest.provider),
      facts: usageFactsOf(ref.manifest.provider),
    };
    this.live = opts.follow === true && !opts.json;
    this.printer = new TimelineBuilder(
      this.live
        ? (t) => this.printTurn(t)
        : (t) => {
            addTotals(this.totals, t);
            this.printTurn(t);
          },
      builderOptions,
    );
    this.counter = this.live
      ? new TimelineBuilder((t) => addTotals(this.totals, t), builderOptions)
      : undefined;
  }

  header(): void {
    const m = this.ref.manifest;
    if (this.opts.json) {
      const header = {
        session_id: m.session_id,
        provider: m.provider,
        status: m.status,
        started_at: m.started_at,
        ended_at: m.ended_at,
        path: this.ref.dir,
      };
      this.out(`{"session":${printableJson(header)},"turns":[\n`);
      return;
    }
    const id = printable(m.provider_session_id ?? m.session_id);
    const started = printable(String(m.started_at)).replace("T", " ").slice(0, 23);
    this.out(
      `${this.style.bold(`Session ${id}`)}${this.style.dim(` · ${printable(providerName(m.provider))} · ${printable(statusWord(m))} · started ${started} UTC`)}\n`,
    );
    this.out(
      this.style.dim(
        `Each line: time (UTC), offset from the start. Recorded content is redacted and bounded.\n\n`,
      ),
    );
  }

  /** Reads the complete lines from where the last read stopped. */
  readMore(): void {
    this.read = readEventLines(this.ref.dir, this.read?.endOffset ?? 0, Number.POSITIVE_INFINITY, {
      onEvent: (e) => this.onEvent(e),
      onBadLine: (b) => this.bad.push(b),
    });
  }

  private onEvent(e: TimelineEvent): void {
    this.record.events += 1;
    this.record.redactions += e.redactions;
    this.record.truncations += e.truncations;
    this.record.omitted += e.omitted;
    if (this.liveLines) {
      const lines = this.liveLines.lines(e);
      if (lines.length > 0) this.out(`${lines.join("\n")}\n`);
    } else this.printer.add(e);
    this.counter?.add(e);
    // A resumed session starts again after its end: only the last lifecycle event counts.
    if (e.kind === "session_end") this.ended = true;
    else if (e.kind === "session_start") this.ended = false;
  }

  private printTurn(turn: Turn): void {
    this.printed += 1;
    if (this.opts.json) {
      this.out(`${this.firstJson ? "" : ",\n"}${printableJson(filterTurn(turn, this.kinds))}`);
      this.firstJson = false;
      return;
    }
    const lines = renderTurn(turn, this.renderOptions);
    if (lines.length > 0) this.out(`${lines.join("\n")}\n\n`);
  }

  /** From turns to one line per new event: the history is printed, what follows is live. */
  goLive(): void {
    if (!this.live) return;
    this.printer.finish();
    this.liveLines = new LiveRenderer(this.renderOptions, this.printed);
    this.out(this.style.dim("Following: new events as they are recorded (Ctrl-C stops).\n"));
  }

  finish(): void {
    if (!this.liveLines) this.printer.finish();
    this.counter?.finish();
    if (this.liveLines) this.out("\n");
    if (this.opts.json) {
      const totals = printableJson({ ...jsonTotals(this.totals), record: this.record });
      this.out(`\n],"totals":${totals},"bad_lines":${JSON.stringify(this.bad)}}\n`);
    } else this.out(footer(this.totals, this.record, this.bad, this.style));
  }

  notePartial(): void {
    const partial = this.read?.partial;
    if (partial)
      note(
        `The final line has no newline yet (${partial.bytes} bytes): a write in progress, or one cut short; see tapedeck inspect\n`,
      );
  }
}

/** --follow: reads what is appended until the session ends (sealed) or Ctrl-C. */
function follow(run: ShowRun, dir: string): Promise<void> {
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const stop = (code?: number) => {
      if (timer) clearInterval(timer);
      process.off("SIGINT", onSigint);
      run.finish();
      if (code !== undefined) setExitCode(code);
      resolve();
    };
    const onSigint = () => stop(130);
    process.on("SIGINT", onSigint);
    if (run.ended && existsSync(join(dir, "checksums.json"))) {
      stop();
      return;
    }
    run.goLive();
    timer = setInterval(() => {
      try {
        run.readMore();
      } catch (error) {
        note(`tapedeck show: ${printable((error as Error).message)}\n`);
        stop(EXIT.failed);
        return;
      }
      if (run.ended) stop();
    }, FOLLOW_POLL_MS);
  });
}

function showCommand(query: string, opts: ShowOpts): Promise<void> | void {
  const kinds = parseKinds(opts.kinds);
  const ref = resolveSessionArg(query, opts);
  readableOrExplain(ref.dir);
  const run = new ShowRun(ref, opts, kinds);
  run.header();
  run.readMore();
  if (opts.follow) return follow(run, ref.dir);
  run.finish();
  run.notePartial();
}

function jsonTotals(t: Totals) {
  return {
    turns: t.turns,
    tool_calls: t.tool_calls,
    tool_errors: t.tool_errors,
    failures: t.failures,
    usage: t.usage,
    estimated_cost: t.cost.result(),
  };
}

interface RecordCounts {
  events: number;
  redactions: number;
  truncations: number;
  omitted: number;
}

function footer(t: Totals, r: RecordCounts, bad: BadLine[], style: ReturnType<typeof styleFor>): string {
  const lines = [
    style.bold(
      `${t.turns} turn${t.turns === 1 ? "" : "s"} · ${t.tool_calls} tool call${t.tool_calls === 1 ? "" : "s"} · ${t.tool_errors} tool error${t.tool_errors === 1 ? "" : "s"}`,
    ) + (t.failures.length > 0 ? ` · ${style.red(`failed: ${printable(t.failures[0]!)}`)}` : ""),
  ];
  if (t.usage.sources.length > 0) lines.push(`Tokens: ${usageLine(t.usage)}`);
  const cost = formatCost(t.cost.result());
  if (cost) lines.push(`Cost: ${cost.replace(/^cost /, "")}`);
  // What the recorder changed on the way in: shown so an excerpt's [REDACTED:…] or a short output is explained.
  const changed = [
    `${r.redactions} redaction${r.redactions === 1 ? "" : "s"}`,
    r.truncations > 0 ? `${r.truncations} truncated field${r.truncations === 1 ? "" : "s"}` : "",
    r.omitted > 0 ? `${r.omitted} omitted field${r.omitted === 1 ? "" : "s"}` : "",
  ].filter(Boolean);
  lines.push(`Record: ${r.events} event${r.events === 1 ? "" : "s"} · ${changed.join(" · ")}`);
  if (bad.length > 0) {
    lines.push(
      style.yellow(
        `${bad.length} line${bad.length === 1 ? "" : "s"} not an event (kept in the archive); see tapedeck inspect`,
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}

export function register(program: Command): void {
  const command = program
    .command("show <session>")
    .description("a session turn by turn: prompts, tool calls and results, subagents, answers, tokens")
    .option("--kinds <list>", `only these event kinds, comma-separated (${EVENT_KINDS.join(", ")})`)
    .option("--full", "whole prompts, answers and tool outputs (default: excerpts)")
    .option("--follow", "keep reading a live session until it ends (Ctrl-C stops)");
  offerWords(command, "--kinds", EVENT_KINDS, true);
  withAllProjects(withSessionOptions(command)).action(showCommand);
}
