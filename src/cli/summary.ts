import { relative } from "node:path";
import type { SessionSummary } from "../core/archive.ts";
import { printable } from "../core/printable.ts";
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
      : printable(s.status);
  const lines = [
    "Session recorded",
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
    lines.push(`Tokens: ${tokensLine(s.usage)}`);
    // Measured with Gemini CLI 0.61: its model-router call (role utility_router, a generateContent before each
    // prompt) fires no hook and is not in the chat file, so no local record of it exists to count.
    if (s.usage.sources.includes("gemini-hook")) {
      lines.push("        (Gemini's model-router calls reach no hook or file: not counted)");
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
  if (problems.length > 0) lines.push(`Notes: ${problems.join(" · ")}`);
  if (s.repair_hint) lines.push(`Repair: ${printable(s.repair_hint)}`);
  lines.push(`Saved to ${shown}/`, "");
  const next = (options.next ?? nextCommands)(id);
  if (next.length > 0) lines.push("Next:", ...next.map((l) => `  ${l}`));
  return lines.join("\n");
}

/**
 * The counts no source of the session reported, which a sum would show as 0. Gemini's hooks carry no cache
 * read: only its chat file does (source gemini-chat), and without it the figure is unknown, not zero.
 */
export function usageUnknowns(usage: SessionSummary["usage"]): string[] {
  const sources = new Set(usage.sources);
  const only = (s: string) => sources.size === 1 && sources.has(s);
  return only("gemini-hook") ? ["cache_read_input_tokens"] : [];
}

/** `1160 in · 196 out · 11600 cache read · 580 cache write (sources)`; a count no source reported reads "unknown", never 0. */
export function tokensLine(usage: SessionSummary["usage"]): string {
  const unknown = new Set(usageUnknowns(usage));
  const count = (field: keyof SessionSummary["usage"], n: number) =>
    unknown.has(field) ? "unknown" : String(n);
  // Cache writes cost more than plain input (1.25x on Anthropic's list): shown whenever a source reported any.
  const writes =
    usage.cache_creation_input_tokens > 0 ? ` · ${usage.cache_creation_input_tokens} cache write` : "";
  return `${count("input_tokens", usage.input_tokens)} in · ${count("output_tokens", usage.output_tokens)} out · ${count("cache_read_input_tokens", usage.cache_read_input_tokens)} cache read${writes} (${usage.sources.map(printable).join(", ")})`;
}
