// What the timeline `show`, the Markdown export and the local viewer share looks like: archive events as the
// timeline reads them, and the turns built from them (timeline-builder.ts) with excerpts of their text.
import type { TurnEvent } from "../core/read/timeline/nodes.ts";
import type { Usage } from "../core/read/timeline/usage.ts";
import type { UsageFacts } from "../core/read/usage-facts.ts";
import type { CostEstimate, PriceTable } from "../usage/pricing.ts";

export type { Usage };

/** One archive line as the timeline sees it: the fields the core's turn model reads, and where it is. */
export interface TimelineEvent extends TurnEvent {
  /** byte offset of the line in events.jsonl: where to read the whole event again */
  offset: number;
  bytes: number;
  timestamp: string | null;
  redactions: number;
  truncations: number;
  omitted: number;
}

export interface BadLine {
  offset: number;
  bytes: number;
  reason: string;
}

export interface Excerpt {
  text: string;
  /** characters of the recorded text left out of the excerpt */
  omitted_chars: number;
}

export interface ToolResult {
  sequence: number;
  offset: number;
  at: string | null;
  ok: boolean;
  exit_code: number | null;
  duration_ms: number | null;
  excerpt: Excerpt;
}

export interface ToolCall {
  type: "tool";
  tool_use_id: string | null;
  name: string;
  /** the command, path or pattern the call was made with, one line */
  input: string;
  /** null for a result whose call was not recorded (or is on an earlier page) */
  sequence: number | null;
  offset: number | null;
  at: string | null;
  agent_id?: string;
  result: ToolResult | null;
  /** subagents this call spawned */
  agents: Agent[];
}

export interface Agent {
  type: "agent";
  agent_id: string;
  agent_type: string | null;
  sequence: number;
  at: string | null;
  stopped_at: string | null;
  /** the task it was given, when its client records one */
  prompt: Excerpt | null;
  items: TurnItem[];
  answer: Excerpt | null;
  usage: Usage;
  cost: CostEstimate;
}

/** A session start or end, a compaction, a failed turn, or another provider event worth a line. */
export interface Mark {
  type: "mark";
  kind: string;
  sequence: number;
  offset: number;
  at: string | null;
  text: string;
  failure: boolean;
  agent_id?: string;
}

/**
 * What the agent said before it went on (a text before a tool call): where it happened, not in the answer. The
 * answer is what it said after its last call.
 */
export interface Said {
  type: "text";
  sequence: number;
  at: string | null;
  text: Excerpt;
  agent_id?: string;
}

export type TurnItem = ToolCall | Agent | Mark | Said;

export interface Turn {
  /** 1-based over the session (over the page when it did not start at offset 0) */
  index: number;
  turn_id: string | null;
  prompt: { sequence: number; offset: number; at: string | null; text: Excerpt } | null;
  items: TurnItem[];
  answer: { sequence: number; at: string | null; text: Excerpt } | null;
  /** the turn's own usage: its subagents' usage is on each agent (and in `total_usage`) */
  usage: Usage;
  total_usage: Usage;
  cost: CostEstimate;
  started_at: string | null;
  ended_at: string | null;
  tool_calls: number;
  tool_errors: number;
  failure: string | null;
  first_offset: number;
  /** true when the turn began before the page did */
  continued: boolean;
}

export interface TimelineOptions {
  /** characters of a prompt, answer or tool output kept in an excerpt (default 600) */
  excerptChars?: number;
  /** keep every recorded character */
  full?: boolean;
  prices?: PriceTable;
  /** what the session's provider's token figures mean (its usage facts): the turns' counts are in the one meaning */
  facts?: UsageFacts;
  /** the session's provider's tool names that start a subagent (its catalog entry's subagentTools) */
  subagentTools?: readonly string[];
}

export interface PageOptions extends TimelineOptions {
  fromOffset?: number;
  /** events per page (default 500) */
  limit?: number;
}

export interface TimelinePage {
  fromOffset: number;
  /** where the next page starts; null at the end of the file */
  nextOffset: number | null;
  /** just past the last complete line read */
  endOffset: number;
  events: TimelineEvent[];
  turns: Turn[];
  bad_lines: BadLine[];
  /** a final line without its newline: a write in progress, or one cut short */
  partial_tail: BadLine | null;
}
