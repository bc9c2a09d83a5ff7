// Export reads only the archive: it never goes back to a provider transcript
// for what recording left out, so an export holds exactly what was redacted.
import type { SessionSummary } from "./archive.ts";
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
  const out: string[] = [
    `# Session ${m.session_id}`,
    "",
    `| | |`,
    `|---|---|`,
    `| Provider | ${m.provider} |`,
    `| Mode | ${m.recording_mode} |`,
    `| Status | ${summary.status} |`,
    `| Started | ${m.started_at} |`,
    `| Ended | ${m.ended_at ?? "—"} |`,
    `| Events | ${summary.event_count} |`,
    `| Redactions | ${summary.redaction_count} |`,
    `| Truncations | ${summary.truncation_count} |`,
    `| Repository | ${m.repository_branch ?? "—"} @ ${m.repository_revision?.slice(0, 12) ?? "—"} |`,
    "",
    "All content below was redacted and bounded when it was recorded.",
    "",
  ];
  for (const e of events) {
    const who = [e.turn_id ? `turn ${e.turn_id}` : "", e.agent_id ? `agent ${e.agent_id}` : ""]
      .filter(Boolean)
      .join(" · ");
    out.push(
      `## ${e.sequence}. ${e.kind}${who ? ` (${who})` : ""}`,
      "",
      `_${e.timestamp}_`,
      "",
      eventBody(e),
      "",
    );
  }
  return out.join("\n");
}
