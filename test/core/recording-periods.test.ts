// Recording switched off and on again within one session: the turns made
// while it was off never reach the archive, not even as usage read later from
// the agent's transcript. Driven through the real hook path (runHook) with
// Claude's adapter and a transcript written as Claude writes it.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readConfig, setRecording, writeConfig } from "../../src/core/archive/config.ts";
import { defaultSessionRoot } from "../../src/core/archive/paths.ts";
import { runHook } from "../../src/core/hook/recorder.ts";
import { claudeAdapter } from "../../src/providers/claude/adapter.ts";
import { newTempProject } from "../helpers/temp-project.ts";

const FIXTURES = join(import.meta.dirname, "..", "fixtures", "claude");
const SESSION = "5f0c2a7e-1b0d-4c51-9a3e-2d2f3c4b5a69";

/** One assistant transcript line with its own message id and output count. */
function assistantLine(messageId: string, outputTokens: number, writtenAt = new Date()): string {
  const sample = readFileSync(join(FIXTURES, "transcript.sample.jsonl"), "utf8")
    .split("\n")
    .map((l) => (l ? JSON.parse(l) : null))
    .find((d) => d?.type === "assistant" && d.message?.usage);
  sample.message.id = messageId;
  sample.message.usage.output_tokens = outputTokens;
  sample.requestId = `req_${messageId}`;
  // Written now, as Claude stamps a line when it writes it.
  sample.timestamp = writtenAt.toISOString();
  sample.sessionId = SESSION;
  return `${JSON.stringify(sample)}\n`;
}

function hookPayload(name: string, root: string, transcript: string): Buffer {
  const p = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), "utf8"));
  return Buffer.from(JSON.stringify({ ...p, session_id: SESSION, transcript_path: transcript, cwd: root }));
}

function toggle(root: string, on: boolean): void {
  const config = readConfig(root)!;
  setRecording(config.providers.claude!, on);
  writeConfig(root, config);
}

describe("recording off and on again in one session", () => {
  it("reads no usage of the turns made while recording was off", () => {
    const root = newTempProject("tapedeck-periods-");
    writeConfig(root, {
      schema_version: 1,
      providers: { claude: { recording: "off", mode: "capture-only" } },
    });
    toggle(root, true);
    const transcript = join(root, "transcript.jsonl");
    writeFileSync(transcript, "");
    const env = { CLAUDE_PROJECT_DIR: root };
    const hook = (name: string) =>
      runHook(claudeAdapter, { data: hookPayload(name, root, transcript), overflow: false }, env).status;

    expect(hook("SessionStart")).toBe("recorded");
    appendFileSync(transcript, assistantLine("msg_on_1", 11));
    expect(hook("Stop")).toBe("recorded");

    toggle(root, false);
    appendFileSync(transcript, assistantLine("msg_off_1", 22));
    expect(hook("Stop")).toBe("off");

    // Back on: a new period; its first Stop must not pick up msg_off_1.
    toggle(root, true);
    appendFileSync(transcript, assistantLine("msg_on_2", 33));
    expect(hook("UserPromptSubmit")).toBe("recorded");
    // Claude writes a message's line asynchronously: the one that asked to start recording can land after the
    // period's first event, stamped before the period began. Its stamp keeps it out.
    appendFileSync(transcript, assistantLine("msg_before_start", 55, new Date(Date.now() - 60_000)));
    appendFileSync(transcript, assistantLine("msg_on_3", 44));
    expect(hook("Stop")).toBe("recorded");

    const dir = join(defaultSessionRoot(root, "claude"), SESSION);
    const usage = readFileSync(join(dir, "events.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((e) => e.kind === "turn_usage")
      .map((e) => e.payload.message_id);
    // msg_on_2 was written before the period's first recorded event, like msg_off_1: neither is counted.
    expect(usage).toEqual(["msg_on_1", "msg_on_3"]);
  });
});
