import { describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { findSession, inspectSession } from "../../src/core/read/sessions.ts";
import { writeMarkdown } from "../../src/viewer/markdown.ts";
import { spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();

let clock = Date.parse("2026-12-01T10:00:00.000Z");
function ev(
  kind: NormalizedEvent["kind"],
  id: string,
  payload: Record<string, unknown>,
  extra: Partial<NormalizedEvent> = {},
): NormalizedEvent {
  clock += 250;
  return { kind, event_id: id, payload, timestamp: new Date(clock).toISOString(), ...extra };
}

function markdown(root: string): string {
  const summary = inspectSession(findSession(root, "last"));
  const parts: string[] = [];
  writeMarkdown(summary, (t) => parts.push(t));
  return parts.join("");
}

describe("Markdown export", () => {
  it("renders turns as prose and fenced tool output, subagents nested, never the raw event JSON", () => {
    const root = project();
    const output = `${"line\n".repeat(40)}a fence inside: \`\`\`\nand an escape \u001b[2J here`;
    recordEvents(spec(root), [
      ev("session_start", "s", { source: "startup" }),
      ev("user_prompt", "p", { prompt: "List the files\nthen explain" }),
      ev("tool_call", "c", { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "u1" }),
      ev("tool_result", "r", {
        tool_name: "Bash",
        tool_response: { stdout: output, stderr: "" },
        tool_use_id: "u1",
      }),
      ev("tool_call", "c2", { tool_name: "Agent", tool_input: { description: "dig" }, tool_use_id: "u2" }),
      ev("subagent_start", "ss", { agent_id: "ag", agent_type: "Explore" }, { agent_id: "ag" }),
      ev(
        "tool_call",
        "c3",
        { tool_name: "Grep", tool_input: { pattern: "TODO" }, tool_use_id: "u3" },
        { agent_id: "ag" },
      ),
      ev(
        "tool_error",
        "r3",
        { tool_name: "Grep", tool_use_id: "u3", error: "Exit code 2" },
        { agent_id: "ag" },
      ),
      ev(
        "subagent_stop",
        "st",
        { agent_id: "ag", last_assistant_message: "nothing found" },
        { agent_id: "ag" },
      ),
      ev("tool_result", "r2", { tool_name: "Agent", tool_response: "nothing found", tool_use_id: "u2" }),
      ev("assistant_message", "a", { text: "There are **40** lines." }),
      ev("session_end", "e", { reason: "other" }, { terminal: true }),
    ]);
    const md = markdown(root);
    expect(md).toContain("## Turn 1");
    expect(md).toContain("**Prompt** · 10:00:00.500 (+0.250s)\n\n> List the files\n> then explain\n");
    expect(md).toContain("- **Bash** `ls` — ok · 250 ms");
    // The output is whole (export is the record), in a fence longer than any run of backticks in it.
    expect(md).toContain(`  \`\`\`\`text\n  line\n`);
    expect(md.match(/^ {2}line$/gm)).toHaveLength(40);
    expect(md).toContain("  a fence inside: ```\n");
    expect(md).not.toContain("\u001b");
    expect(md).toContain("  - **Subagent** Explore `ag`");
    expect(md).toContain("    - **Grep** `TODO` — **error** · exit 2");
    expect(md).toContain("    > nothing found");
    expect(md).toContain("**Answer** · ");
    expect(md).toContain("> There are **40** lines.");
    expect(md).toContain("- _session end (other)_");
    expect(md).not.toContain('"tool_response"');
    expect(md).not.toContain('"hook_event_name"');
  });
});
