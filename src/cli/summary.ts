import { relative } from "node:path";
import { READ_ONLY_BY_REQUEST } from "../core/archive/recovery.ts";
import { printable } from "../core/base/printable.ts";
import { statusWord } from "../core/read/session-status.ts";
import type { SessionSummary } from "../core/read/sessions.ts";
import { inOneMeaning, unknownCounts } from "../core/read/usage-facts.ts";
import { usageFactsOf } from "../providers/usage-facts.ts";
import { formatBytes, formatDuration } from "./common.ts";
import { providerName } from "./providers.ts";

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The commands the summary suggests next: they act on this session, from inside its project. */
export function nextCommands(id: string, suffix = ""): string[] {
  return [
    `tapedeck show ${id}${suffix}`,
    `tapedeck export ${id} --format md --out ${id.slice(0, 12)}.md${suffix}`,
    `tapedeck delete ${id}${suffix}`,
  ];
}

export interface SummaryOptions {
  /** The "Next:" lines; default: inspect, export and delete this session. An empty list leaves them out. */
  next?: (id: string) => string[];
  /**
   * inspect's view: headed by the session's id instead of "Session recorded", with the checksum, the
   * capabilities, the spool and the recovery state, and what made a replay's session.
   */
  details?: boolean;
}

/** Width of the capability lines: a session has about twenty, and one line of them would wrap. */
const CAPABILITIES_WIDTH = 100;

/** The seal: what `checksums.json` says of events.jsonl now, in words. */
function checksumLine(s: SessionSummary): string {
  if (s.checksums === null)
    return s.status === "active"
      ? "not sealed yet (the session is still being recorded)"
      : "not sealed (no session end was recorded; tapedeck repair seals what is there)";
  return s.checksums.ok ? `ok (${printable(s.checksums.reason)})` : `✗ ${printable(s.checksums.reason)}`;
}

function spoolLine(s: SessionSummary): string {
  const sp = s.spool;
  if (sp.unsafe) return `not used: ${printable(sp.unsafe)}`;
  const parts: string[] = [];
  if (sp.events > 0) {
    const kinds = Object.entries(sp.kinds)
      .map(([k, n]) => `${printable(k)} ${n}`)
      .join(", ");
    parts.push(
      `${plural(sp.events, "event")} waiting to be appended (${kinds})${sp.ends_session ? ", the session's end among them" : ""}`,
    );
  }
  if (sp.rejected_files > 0) parts.push(`${plural(sp.rejected_files, "file")} set aside`);
  return parts.length > 0 ? parts.join(" · ") : "empty";
}

function recoveryLine(s: SessionSummary): string {
  const found: string[] = [];
  if (s.torn_line)
    found.push(
      `a torn final line of ${s.torn_line.bytes} bytes ${s.torn_line.removed ? "removed" : "not yet removed"}`,
    );
  if (s.malformed_lines > 0) found.push(`${plural(s.malformed_lines, "malformed line")} kept and reported`);
  if (s.sequence_anomalies > 0) found.push(plural(s.sequence_anomalies, "sequence anomaly"));
  // Only a reason that kept a needed repair from happening (a held lock); a plain read-only look is no news.
  if (s.read_only_reason && s.read_only_reason !== READ_ONLY_BY_REQUEST && found.length > 0)
    found.push(`left as it is: ${printable(s.read_only_reason)}`);
  return found.length > 0 ? found.join(" · ") : "nothing to recover";
}

/** `head` then the items, comma-separated, wrapped under the first item. */
function wrapList(head: string, items: string[], none: string): string[] {
  if (items.length === 0) return [`${head}${none}`];
  const indent = " ".repeat(head.length);
  const lines: string[] = [];
  let line = head;
  items.forEach((item, i) => {
    const piece = `${item}${i < items.length - 1 ? "," : ""}`;
    if (line.length > head.length && line.length + 1 + piece.length > CAPABILITIES_WIDTH) {
      lines.push(line);
      line = indent + piece;
    } else line += line.length > head.length ? ` ${piece}` : piece;
  });
  lines.push(line);
  return lines;
}

function detailLines(s: SessionSummary): string[] {
  const m = s.manifest;
  const lines: string[] = [];
  if (m.replay_of_session_id) {
    const arm = m.arm ? ` · arm ${printable(m.arm)}` : "";
    const exp = m.experiment_id ? ` · experiment ${printable(m.experiment_id)}` : "";
    lines.push(
      `Run:          ${printable(m.run_type ?? "replay")} of ${printable(m.replay_of_session_id)}${arm}${exp}`,
    );
  }
  lines.push(`Checksum:     ${checksumLine(s)}`);
  lines.push(`Spool:        ${spoolLine(s)}`);
  lines.push(`Recovery:     ${recoveryLine(s)}`);
  lines.push(...wrapList("Capabilities: ", s.capabilities.map(printable), "none recorded"));
  return lines;
}

/** The compact "Session recorded" view: what was recorded, how healthy it is, what to do next. */
export function renderSummary(s: SessionSummary, projectRoot: string, options: SummaryOptions = {}): string {
  const rel = relative(projectRoot, s.path) || s.path;
  const shown = printable(rel.startsWith("..") ? s.path : rel);
  // The id comes from the agent's payload: shown without control characters.
  const id = printable(s.manifest.provider_session_id ?? s.session_id);
  const status =
    s.status === "incomplete"
      ? `incomplete (${printable(s.incomplete_reason ?? "no terminal event")})`
      : printable(
          statusWord({
            status: s.status,
            failure: (s.manifest as { failure?: unknown } | undefined)?.failure,
          }),
        );
  const heading = options.details
    ? `Session ${id} · ${printable(providerName(s.provider))}`
    : "Session recorded";
  const lines = [
    heading,
    "",
    `${printable(providerName(s.provider))} · ${printable(s.mode)} · ${formatDuration(s.duration_ms)}`,
    `${plural(s.event_count, "event")} · ${formatBytes(s.byte_count)} · ${plural(s.redaction_count, "redaction")} · ${status}`,
  ];
  const kinds = Object.entries(s.counts_by_kind)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${printable(k)} ${n}`)
    .join(", ");
  if (kinds) lines.push(`Events: ${kinds}`);
  if (s.usage.sources.length > 0) {
    lines.push(`Tokens: ${tokensLine(s.usage, s.provider)}`);
    const recorded = options.details ? recordedLine(s.usage, s.provider) : undefined;
    if (recorded) lines.push(`        (as recorded: ${recorded})`);
    // The calls no local record of the provider shows, whatever recorded the session (Gemini's model-router
    // call): a gap the proxy closes is said by `tapedeck usage`, not on every session.
    for (const gap of usageFactsOf(s.provider).gaps.filter((g) => !g.closed_by)) {
      lines.push(`        (${printable(providerName(s.provider))}: ${gap.text})`);
    }
  }
  const problems: string[] = [];
  if (s.truncation_count > 0) problems.push(plural(s.truncation_count, "truncation"));
  if (s.dropped_count > 0) problems.push(`${s.dropped_count} dropped over the session cap`);
  if (s.torn_line)
    problems.push(
      `torn final line (${s.torn_line.bytes} bytes, ${s.torn_line.removed ? "removed" : "not yet removed"})`,
    );
  if (s.malformed_lines > 0)
    problems.push(`${plural(s.malformed_lines, "malformed line")} kept and reported`);
  if (s.sequence_anomalies > 0) problems.push(plural(s.sequence_anomalies, "sequence anomaly"));
  if (s.checksums && !s.checksums.ok) problems.push(`checksum: ${printable(s.checksums.reason)}`);
  if (s.spool.events > 0) problems.push(`${plural(s.spool.events, "event")} waiting in the spool`);
  if (s.spool.rejected_files > 0) problems.push(`${plural(s.spool.rejected_files, "spool file")} set aside`);
  // inspect names the checksum, spool and recovery on lines of their own: not again among the notes.
  if (options.details) lines.push(...detailLines(s));
  else if (problems.length > 0) lines.push(`Notes: ${problems.join(" · ")}`);
  if (options.details && s.truncation_count + s.dropped_count > 0) {
    const bounded = problems.filter((p) => /truncation|dropped/.test(p));
    lines.push(`Bounded:      ${bounded.join(" · ")}`);
  }
  if (s.repair_hint) lines.push(`Repair: ${printable(s.repair_hint)}`);
  lines.push(`Saved to ${shown}/`, "");
  const next = (options.next ?? nextCommands)(id);
  if (next.length > 0) lines.push("Next:", ...next.map((l) => `  ${l}`));
  return lines.join("\n");
}

/** A session's sums as recorded (the reasoning tokens absent from a summary made before they were kept). */
export type RecordedUsage = Omit<SessionSummary["usage"], "reasoning_output_tokens"> & {
  reasoning_output_tokens?: number;
};

/** The counts no source of the session reported (its provider's usage facts), which a sum would show as 0. */
export function usageUnknowns(usage: RecordedUsage, provider: string): string[] {
  return unknownCounts(usageFactsOf(provider), usage.sources);
}

/** inspect's `usage` in JSON: the one meaning every command shows, with the counts as recorded beside it. */
export function usageJson(usage: RecordedUsage, provider: string) {
  const { sources, ...recorded } = usage;
  return {
    ...inOneMeaning(usageFactsOf(provider), usage),
    sources,
    unknown: usageUnknowns(usage, provider),
    recorded: { reasoning_output_tokens: 0, ...recorded },
  };
}

/**
 * `1160 in · 196 out · 11600 cache read · 580 cache write (sources)`, in the one meaning every command shows
 * (core/read/usage-facts.ts inOneMeaning); a count no source reported reads "unknown", never 0.
 */
export function tokensLine(usage: RecordedUsage, provider: string): string {
  const unknown = new Set(usageUnknowns(usage, provider));
  const m = inOneMeaning(usageFactsOf(provider), usage);
  const count = (field: keyof typeof m, n: number) => (unknown.has(field) ? "unknown" : String(n));
  // Cache writes cost more than plain input (1.25x on Anthropic's list): shown whenever a source reported any.
  const writes = m.cache_creation_input_tokens > 0 ? ` · ${m.cache_creation_input_tokens} cache write` : "";
  return `${count("input_tokens", m.input_tokens)} in · ${count("output_tokens", m.output_tokens)} out · ${count("cache_read_input_tokens", m.cache_read_input_tokens)} cache read${writes} (${usage.sources.map(printable).join(", ")})`;
}

/**
 * inspect's word on the counts as the provider reported them, when the one meaning differs: its input with
 * the cache reads inside (Codex, Gemini), its output without the thinking tokens (Gemini). Undefined when equal.
 */
export function recordedLine(usage: RecordedUsage, provider: string): string | undefined {
  const m = inOneMeaning(usageFactsOf(provider), usage);
  const reasoning = usage.reasoning_output_tokens ?? 0;
  if (m.input_tokens === usage.input_tokens && m.output_tokens === usage.output_tokens) return undefined;
  const parts = [
    `${usage.input_tokens} in${m.input_tokens !== usage.input_tokens ? " (cache reads included)" : ""}`,
    `${usage.output_tokens} out`,
  ];
  if (m.output_tokens !== usage.output_tokens) parts.push(`${reasoning} thinking`);
  return parts.join(" · ");
}
