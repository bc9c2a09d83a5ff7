// `show --follow` after the history: each new event as it is appended, one
// line (and an excerpt) in recorded order, since a turn in progress cannot be
// drawn as a finished tree. The core turn model pairs each result with its
// call (the rule the turns use), so a result line names its tool; a subagent's
// events are indented under it.
import { printable } from "../core/base/printable.ts";
import { TurnModel } from "../core/read/timeline/turns.ts";
import { excerpt, exitCode, inputSummary, resultText, type TimelineEvent } from "./timeline.ts";
import { formatMs, Lines, type RenderOptions } from "./turn-text.ts";

const EXCERPT_CHARS = 600;

export class LiveRenderer {
  /** fed every event, shown or not: a result names its call's tool even when --kinds hides the call */
  private readonly model = new TurnModel();
  private readonly depth = new Map<string, number>();
  private turns: number;

  constructor(
    private readonly o: RenderOptions,
    turnsSoFar: number,
  ) {
    this.turns = turnsSoFar;
  }

  lines(e: TimelineEvent): string[] {
    const placed = this.model.add(e);
    const l = new Lines(this.o);
    if (!l.shows(e.kind)) return [];
    const s = this.o.style;
    const p = e.payload;
    const depth = e.agent_id ? (this.depth.get(e.agent_id) ?? 1) : 0;
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    switch (e.kind) {
      case "user_prompt":
        if (!e.agent_id) {
          this.turns += 1;
          l.out.push("", s.bold(`── Turn ${this.turns}`));
        }
        l.line(e.timestamp, depth, s.bold(e.agent_id ? "task" : "prompt"));
        l.block(depth, excerpt(str(p.prompt) ?? "", EXCERPT_CHARS));
        break;
      case "tool_call": {
        const name = str(p.tool_name) ?? "tool";
        l.line(e.timestamp, depth, `${s.cyan(printable(name))}  ${printable(inputSummary(p.tool_input))}`);
        break;
      }
      case "tool_result":
      case "tool_error": {
        const call = placed.role === "result" ? placed.call : undefined;
        const ok = e.kind === "tool_result" && p.success !== false;
        const code = exitCode(p);
        const ms = typeof p.duration_ms === "number" ? p.duration_ms : null;
        const facts = [code !== null ? `exit ${code}` : "", formatMs(ms)].filter(Boolean).join(" · ");
        const name = printable(call?.name ?? str(p.tool_name) ?? "tool");
        l.line(
          e.timestamp,
          depth + 1,
          `${ok ? s.green("ok") : s.red("error")} ${s.dim(name)}${facts ? `  ${facts}` : ""}`,
        );
        const text = resultText(e.kind === "tool_error" ? (p.error ?? p.tool_response) : p.tool_response);
        if (text) l.block(depth + 1, excerpt(text, EXCERPT_CHARS));
        break;
      }
      case "subagent_start": {
        const id = e.agent_id ?? str(p.agent_id) ?? "?";
        const parent = e.agent_id ? 0 : depth;
        this.depth.set(id, parent + 2);
        l.line(
          e.timestamp,
          parent + 1,
          s.bold(`subagent ${printable(str(p.agent_type) ?? "")} ${printable(id)}`),
        );
        break;
      }
      case "subagent_stop":
      case "assistant_message": {
        const text = str(p.text) ?? str(p.last_assistant_message);
        l.line(e.timestamp, depth, s.bold(e.kind === "subagent_stop" ? "subagent answer" : "answer"));
        if (text) l.block(depth, excerpt(text, EXCERPT_CHARS));
        break;
      }
      case "turn_usage": {
        const u = e.usage ?? {};
        const n = (k: string) => (typeof u[k] === "number" ? (u[k] as number) : 0);
        l.line(
          e.timestamp,
          depth,
          s.dim(
            `tokens ${n("input_tokens")} in · ${n("output_tokens")} out · ${n("cache_read_input_tokens")} cache read · ${n("cache_creation_input_tokens")} cache write (${printable(str(u.source) ?? "?")})`,
          ),
        );
        break;
      }
      default: {
        const text =
          p.failure === true
            ? s.red(`turn failed: ${printable(str(p.error) ?? "")}`)
            : s.dim(
                `· ${printable(e.kind.replace("_", " "))}${str(p.reason) ? ` (${printable(str(p.reason)!)})` : ""}${str(p.source) ? ` (${printable(str(p.source)!)})` : ""}`,
              );
        if (e.kind === "provider_event" && p.failure !== true && p.error === undefined) return [];
        l.line(e.timestamp, depth, text);
      }
    }
    return l.out;
  }
}
