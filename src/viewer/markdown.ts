// A session as Markdown, turn by turn the way `tapedeck show` prints it:
// prompts and answers as quoted prose, each tool call as a list item with its
// input, status, exit code and duration, its output fenced, subagents nested
// under their call. Export keeps whole texts (no excerpts): it is the record.
// Text from the archive goes through printableText, so the file cannot steer a
// terminal it is printed on; the JSONL export is the byte-exact form.

import { printable, printableText } from "../core/base/printable.ts";
import type { SessionSummary } from "../core/read/sessions.ts";
import { subagentToolsOf } from "../providers/catalog.ts";
import { usageFactsOf } from "../providers/usage-facts.ts";
import { formatCost, type PriceTable } from "../usage/pricing.ts";
import {
  type Agent,
  type Excerpt,
  streamTurns,
  type ToolCall,
  type Turn,
  type TurnItem,
} from "./timeline.ts";
import { clock, formatMs, offset, usageLine } from "./turn-text.ts";

function fence(text: string, indent: string): string[] {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return [
    `${indent}${ticks}text`,
    ...text.split("\n").map((l) => (l ? `${indent}${l}` : l)),
    `${indent}${ticks}`,
  ];
}

/** Inline code that holds any text: a run of backticks longer than any inside it. */
function code(text: string): string {
  if (!text) return "";
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

function quote(text: string, indent: string): string[] {
  return printableText(text)
    .replace(/\n+$/, "")
    .split("\n")
    .map((l) => `${indent}> ${l}`.trimEnd());
}

function omittedNote(e: Excerpt, indent: string): string[] {
  return e.omitted_chars > 0 ? [`${indent}_(${e.omitted_chars} more characters in the archive)_`] : [];
}

class Md {
  readonly out: string[] = [];
  constructor(private readonly origin: string | null) {}

  when(at: string | null): string {
    if (!at) return "";
    return `${clock(at).trim()} (${offset(this.origin, at).trim()})`;
  }

  items(items: TurnItem[], depth: number): void {
    for (const item of items) {
      if (item.type === "tool") this.call(item, depth);
      else if (item.type === "agent") this.agent(item, depth);
      else if (item.type === "text") {
        const indent = "  ".repeat(depth);
        this.out.push(
          `${indent}- _Said_ · ${this.when(item.at)}`,
          "",
          ...quote(item.text.text, `${indent}  `),
        );
        this.out.push(...omittedNote(item.text, `${indent}  `), "");
      } else this.out.push(`${"  ".repeat(depth)}- _${printable(item.text)}_ · ${this.when(item.at)}`);
    }
  }

  call(c: ToolCall, depth: number): void {
    const indent = "  ".repeat(depth);
    const r = c.result;
    const status = r ? (r.ok ? "ok" : "**error**") : "no result recorded";
    const facts = [
      status,
      r?.exit_code !== null && r?.exit_code !== undefined ? `exit ${r.exit_code}` : "",
      formatMs(r?.duration_ms ?? null),
      this.when(c.at ?? r?.at ?? null),
    ].filter(Boolean);
    this.out.push(`${indent}- **${printable(c.name)}** ${code(printable(c.input))} — ${facts.join(" · ")}`);
    for (const a of c.agents) this.agent(a, depth + 1);
    if (r && (r.excerpt.text || r.excerpt.omitted_chars > 0)) {
      this.out.push("");
      this.out.push(...fence(printableText(r.excerpt.text).replace(/\n+$/, ""), `${indent}  `));
      this.out.push(...omittedNote(r.excerpt, `${indent}  `));
      this.out.push("");
    }
  }

  agent(a: Agent, depth: number): void {
    const indent = "  ".repeat(depth);
    this.out.push(
      `${indent}- **Subagent** ${printable(a.agent_type ?? "")} ${code(printable(a.agent_id))} · ${this.when(a.at)}`,
    );
    if (a.prompt) this.out.push("", `${indent}  Task:`, "", ...quote(a.prompt.text, `${indent}  `), "");
    this.items(a.items, depth + 1);
    if (a.answer) {
      this.out.push("", `${indent}  Subagent answer:`, "", ...quote(a.answer.text, `${indent}  `), "");
    }
    if (a.usage.sources.length > 0) {
      const cost = formatCost(a.cost);
      this.out.push(`${indent}  _Tokens: ${usageLine(a.usage)}${cost ? ` · ${cost}` : ""}_`);
    }
  }

  /** A run of a turn's items, a blank line after it; nothing for none. */
  private block(items: TurnItem[]): void {
    if (items.length === 0) return;
    this.items(items, 0);
    this.out.push("");
  }

  /** The turn's prompt or answer, quoted under its label and time. */
  private message(label: string, m: { at: string | null; text: Excerpt } | null): void {
    if (!m) return;
    this.out.push(`**${label}** · ${this.when(m.at)}`, "", ...quote(m.text.text, ""));
    this.out.push(...omittedNote(m.text, ""), "");
  }

  turn(t: Turn): void {
    const facts = [
      `${t.tool_calls} tool call${t.tool_calls === 1 ? "" : "s"}`,
      t.tool_errors > 0 ? `${t.tool_errors} error${t.tool_errors === 1 ? "" : "s"}` : "",
      t.failure ? "**failed**" : "",
      this.when(t.prompt?.at ?? t.started_at),
    ].filter(Boolean);
    this.out.push(`## Turn ${t.index}`, "", `_${facts.join(" · ")}_`, "");
    // In recorded order, as show prints it: a resumed session's start comes before the prompt.
    const promptSeq = t.prompt?.sequence ?? Number.NEGATIVE_INFINITY;
    const seq = (i: TurnItem) => (i.type === "tool" ? (i.sequence ?? i.result?.sequence ?? 0) : i.sequence);
    const before = t.items.filter((i) => seq(i) < promptSeq);
    const answerSeq = t.answer?.sequence ?? Number.POSITIVE_INFINITY;
    const after = t.items.filter((i) => seq(i) > promptSeq && seq(i) < answerSeq);
    const last = t.items.filter((i) => seq(i) > answerSeq);
    this.block(before);
    this.message("Prompt", t.prompt);
    this.block(after);
    this.message("Answer", t.answer);
    this.block(last);
    if (t.total_usage.sources.length > 0) {
      const cost = formatCost(t.cost);
      this.out.push(`_Tokens: ${usageLine(t.total_usage)}${cost ? ` · ${cost}` : ""}_`, "");
    }
  }
}

/** The session's Markdown, written piece by piece to `write` (one turn is held at a time). */
export function writeMarkdown(
  summary: SessionSummary,
  write: (text: string) => void,
  options: { prices?: PriceTable } = {},
): { events: number; bad_lines: number } {
  const m = summary.manifest;
  // Header and headings name ids, branches and times from the archive: one line each, no terminal controls.
  const p = (v: unknown) => printable(String(v ?? "—"));
  const header: string[] = [
    `# Session ${p(m.session_id)}`,
    "",
    `| | |`,
    `|---|---|`,
    `| Provider | ${p(m.provider)} |`,
    `| Mode | ${p(m.recording_mode)} |`,
    `| Status | ${p(summary.status)} |`,
    `| Started | ${p(m.started_at)} |`,
    `| Ended | ${p(m.ended_at)} |`,
    `| Events | ${summary.event_count} |`,
    `| Redactions | ${summary.redaction_count} |`,
    `| Truncations | ${summary.truncation_count} |`,
    `| Repository | ${p(m.repository_branch)} @ ${p(m.repository_revision?.slice(0, 12))} |`,
    "",
    "All content below was redacted and bounded when it was recorded. Times are UTC, with the offset from the session's start; costs are estimates from list prices.",
    "",
  ];
  write(`${header.join("\n")}\n`);
  const md = new Md(m.started_at ?? null);
  const result = streamTurns(
    summary.path,
    (t) => {
      md.out.length = 0;
      md.turn(t);
      write(`${md.out.join("\n")}\n`);
    },
    {
      full: true,
      prices: options.prices,
      subagentTools: subagentToolsOf(m.provider),
      facts: usageFactsOf(m.provider),
    },
  );
  if (result.bad_lines.length > 0) {
    write(
      `_${result.bad_lines.length} line(s) of the archive are not events and are not shown; see \`tapedeck inspect\`._\n`,
    );
  }
  return { events: result.events, bad_lines: result.bad_lines.length };
}
