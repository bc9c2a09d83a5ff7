import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NormalizeResult } from "../../../src/core/archive/event.ts";
import { claudeAdapter } from "../../../src/providers/claude/adapter.ts";
import { normalizeClaudeHook } from "../../../src/providers/claude/normalize.ts";
import {
  alertText,
  transcriptAlertFor,
  watchTranscript,
} from "../../../src/providers/claude/transcript-alert.ts";
import { useScratchDir } from "../../helpers/temp-project.ts";

const { dir: tmp } = useScratchDir("tapedeck-transcript-alert-");
const SID = "0f5a7c1e-1111-4222-8333-944455556666";
const transcript = join(tmp, `${SID}.jsonl`);

function hook(payload: Record<string, unknown>): NormalizeResult {
  return normalizeClaudeHook(
    { session_id: SID, transcript_path: transcript, cwd: tmp, prompt_id: "p1", ...payload },
    {},
    () => "2026-11-29T18:40:22.726Z",
  );
}

const assistantLine = (id: string) =>
  `${JSON.stringify({ type: "assistant", message: { id, role: "assistant", content: [{ type: "text", text: "x" }], usage: { input_tokens: 1, output_tokens: 1 } }, timestamp: "2026-11-29T18:40:23.000Z" })}\n`;

describe("the transcript watch in the Claude adapter", () => {
  it("notes the transcript's size at each Stop, and finds it shrunk at the next resume", () => {
    writeFileSync(
      transcript,
      `${JSON.stringify({ type: "user", message: { content: "hi" } })}\n${assistantLine("m1")}`,
    );
    const start = claudeAdapter.enrich!(
      hook({ hook_event_name: "SessionStart", source: "startup" }),
      undefined,
    );
    const stop = claudeAdapter.enrich!(
      hook({ hook_event_name: "Stop", last_assistant_message: "x" }),
      start?.state,
    );
    const watch = (stop!.state as { watch: { bytes: number; answers: number } }).watch;
    expect(watch.answers).toBe(1);
    expect(watch.bytes).toBeGreaterThan(0);

    writeFileSync(transcript, '{"type":"summary"}\n');
    const resumed = claudeAdapter.enrich!(
      hook({ hook_event_name: "SessionStart", source: "resume" }),
      stop!.state,
    );
    const loss = resumed!.events.filter((e) => e.payload.type === "transcript_loss");
    expect(loss).toHaveLength(1);
    expect(loss[0]!.kind).toBe("provider_event");
    expect(loss[0]!.payload).toMatchObject({
      finding: "stub",
      expected: { bytes_at_least: watch.bytes, answers: 1 },
      found: { bytes: 19, records: 0 },
      restore: `tapedeck restore ${SID} --from auto`,
    });
    expect((resumed!.state as { transcript_loss?: { finding: string } }).transcript_loss?.finding).toBe(
      "stub",
    );

    // A retried SessionStart yields the same event id (the core drops the duplicate).
    const retried = claudeAdapter.enrich!(
      hook({ hook_event_name: "SessionStart", source: "resume" }),
      stop!.state,
    );
    expect(retried!.events.map((e) => e.event_id)).toEqual(loss.map((e) => e.event_id));

    const end = claudeAdapter.enrich!(
      hook({ hook_event_name: "SessionEnd", reason: "other" }),
      resumed!.state,
    );
    expect((end!.state as { transcript_loss?: unknown }).transcript_loss).toBeUndefined();
  });

  it("a startup, or a resume of a session it never read, checks nothing", () => {
    const none = watchTranscript(
      hook({ hook_event_name: "SessionStart", source: "resume" }),
      undefined,
      undefined,
    );
    expect(none.events).toEqual([]);
    const startup = watchTranscript(
      hook({ hook_event_name: "SessionStart", source: "startup" }),
      { watch: { bytes: 999_999, answers: 3 } },
      undefined,
    );
    expect(startup.events).toEqual([]);
  });

  it("a tool call leaves the state file alone", () => {
    const state = { cursors: { [transcript]: { offset: 1, seen: [] } }, watch: { bytes: 1, answers: 1 } };
    expect(
      claudeAdapter.enrich!(
        hook({ hook_event_name: "PreToolUse", tool_name: "Bash", tool_use_id: "t1" }),
        state,
      ),
    ).toBeUndefined();
  });

  it("the status line reads the alert from the session's provider state", () => {
    const project = join(tmp, "project");
    const dir = join(project, ".tapedeck", "claude-sessions", SID);
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(project, ".tapedeck", "config.json"),
      JSON.stringify({ schema_version: 1, providers: { claude: { recording: "on", mode: "capture-only" } } }),
    );
    expect(transcriptAlertFor(project, SID)).toBeUndefined();
    const alert = { finding: "stub" as const, at: "2026-11-29T18:40:22.726Z", session_id: SID };
    writeFileSync(join(dir, "provider-state.json"), JSON.stringify({ transcript_loss: alert }));
    expect(transcriptAlertFor(project, SID)).toEqual(alert);
    expect(alertText(alert)).toBe(" · ⚠ transcript stub: tapedeck restore 0f5a7c1e");
    expect(transcriptAlertFor(project, "other")).toBeUndefined();
  });
});
