import { relative } from "node:path";
import type { SessionSummary } from "../core/archive.ts";
import { formatBytes, formatDuration } from "./common.ts";

const PROVIDER_NAMES: Record<string, string> = {
  claude: "Claude Code",
  codex: "Codex CLI",
  gemini: "Gemini CLI",
  antigravity: "Antigravity",
};

export function providerName(provider: string): string {
  return PROVIDER_NAMES[provider] ?? provider;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** The compact "Session recorded" view: what was recorded, how healthy it is, what to do next. */
export function renderSummary(s: SessionSummary, projectRoot: string): string {
  const rel = relative(projectRoot, s.path) || s.path;
  const shown = rel.startsWith("..") ? s.path : rel;
  const id = s.manifest.provider_session_id ?? s.session_id;
  const status =
    s.status === "incomplete" ? `incomplete (${s.incomplete_reason ?? "no terminal event"})` : s.status;
  const lines = [
    "Session recorded",
    "",
    `${providerName(s.provider)} · ${s.mode} · ${formatDuration(s.duration_ms)}`,
    `${plural(s.event_count, "event")} · ${formatBytes(s.byte_count)} · ${plural(s.redaction_count, "redaction")} · ${status}`,
  ];
  const kinds = Object.entries(s.counts_by_kind)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(", ");
  if (kinds) lines.push(`Events: ${kinds}`);
  if (s.usage.sources.length > 0) {
    lines.push(
      `Tokens: ${s.usage.input_tokens} in · ${s.usage.output_tokens} out · ${s.usage.cache_read_input_tokens} cache read (${s.usage.sources.join(", ")})`,
    );
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
  if (s.checksums && !s.checksums.ok) problems.push(`checksum: ${s.checksums.reason}`);
  if (problems.length > 0) lines.push(`Notes: ${problems.join(" · ")}`);
  lines.push(`Saved to ${shown}/`, "");
  lines.push(
    "Next:",
    `  tapedeck inspect ${id} --json`,
    `  tapedeck export ${id} --format md --out ${id.slice(0, 12)}.md`,
    `  tapedeck delete ${id}`,
  );
  return lines.join("\n");
}
