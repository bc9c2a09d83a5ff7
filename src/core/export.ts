// Export reads only the archive: it never goes back to a provider transcript
// for what recording left out, so an export holds exactly what was redacted.
import type { SessionSummary } from "./archive.ts";
import { printable } from "./printable.ts";
import type { Envelope, Manifest } from "./schemas.ts";

/** First line the manifest, then every valid event in sequence order. */
export function toJsonl(manifest: Manifest, events: Envelope[]): string {
  const lines = [JSON.stringify({ record: "manifest", ...manifest })];
  for (const e of events) lines.push(JSON.stringify(e));
  return `${lines.join("\n")}\n`;
}

function fence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

function str(v: unknown): string {
  if (typeof v === "string") return v;
  return JSON.stringify(v, null, 2) ?? "";
}

function eventBody(e: Envelope): string {
  const p = e.payload as Record<string, unknown>;
  switch (e.kind) {
    case "user_prompt":
      return fence(str(p.prompt ?? ""));
    case "assistant_message":
      return fence(str(p.text ?? p.last_assistant_message ?? ""));
    case "tool_call":
      return `Tool \`${str(p.tool_name)}\`\n\n${fence(str(p.tool_input ?? {}))}`;
    case "tool_result":
    case "tool_error":
      return `Tool \`${str(p.tool_name)}\`${e.kind === "tool_error" ? " failed" : ""}\n\n${fence(str(p.tool_response ?? p.error ?? ""))}`;
    case "turn_usage": {
      const u = e.usage;
      return u
        ? `${u.input_tokens ?? 0} in · ${u.output_tokens ?? 0} out (${u.source})`
        : "usage unavailable";
    }
    default:
      return fence(str(p));
  }
}

export function toMarkdown(summary: SessionSummary, events: Envelope[]): string {
  const m = summary.manifest;
  // Header and headings name ids, branches and times from the archive: one line each, no terminal controls.
  const p = (v: unknown) => printable(String(v ?? "—"));
  const out: string[] = [
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
    "All content below was redacted and bounded when it was recorded.",
    "",
  ];
  for (const e of events) {
    const who = [e.turn_id ? `turn ${p(e.turn_id)}` : "", e.agent_id ? `agent ${p(e.agent_id)}` : ""]
      .filter(Boolean)
      .join(" · ");
    out.push(
      `## ${e.sequence}. ${p(e.kind)}${who ? ` (${who})` : ""}`,
      "",
      `_${p(e.timestamp)}_`,
      "",
      eventBody(e),
      "",
    );
  }
  return out.join("\n");
}
