// Gemini's hooks carry no cache-read count (issue 11.15): it is taken from the chat file, once per model
// message, and the summary says "unknown" where no source reported it.
import { execFileSync } from "node:child_process";
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { tokensLine } from "../../../src/cli/summary.ts";
import type { SessionSummary } from "../../../src/core/read/sessions.ts";
import { geminiAdapter } from "../../../src/providers/gemini/adapter.ts";
import { readChatUsage } from "../../../src/providers/gemini/chat-usage.ts";
import { providerFixtures } from "../../helpers/fixtures.ts";
import { tempProject } from "../../helpers/session.ts";

const SESSION = "3710525e-c397-40d5-bfa5-db17c6fd2361";

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function dir(): string {
  const p = tempProject("tapedeck-gemini-chat-");
  cleanups.push(p.cleanup);
  return p.root;
}

/** The real chat sample, with the cache count Gemini reported for its first model message set to 500. */
function chatFile(): string {
  const path = join(dir(), "session.jsonl");
  const text = readFileSync(providerFixtures("gemini").path("chat.sample.jsonl"), "utf8").replaceAll(
    '"cached":0,"thoughts":9',
    '"cached":500,"thoughts":9',
  );
  writeFileSync(path, text);
  return path;
}

function afterAgent(transcript: string, timestamp: string) {
  return {
    session_id: SESSION,
    transcript_path: transcript,
    cwd: "/home/user/project",
    hook_event_name: "AfterAgent",
    timestamp,
    prompt: "SCENARIO_BASH run echo hello",
    prompt_response: "The command printed: hello",
    stop_hook_active: false,
  };
}

describe("Gemini's chat file gives the counts its hooks leave out", () => {
  it("one turn_usage per model message, the upserted one once, with the cache read Gemini reported", () => {
    const { events, cursor } = readChatUsage(chatFile(), undefined, SESSION, undefined);
    expect(events.map((e) => e.usage)).toEqual([
      {
        source: "gemini-chat",
        message_id: "709af43d-11ad-423b-b3ff-0be25ac49d32",
        model: "gemini-3.8-flash",
        cache_read_input_tokens: 500,
        reasoning_output_tokens: 9,
      },
      {
        source: "gemini-chat",
        message_id: "d67ab507-a0e2-4c07-b89c-7a065e389c17",
        model: "gemini-3.8-flash",
        cache_read_input_tokens: 0,
        reasoning_output_tokens: 0,
      },
    ]);
    // Input and output are the AfterModel turn_usage's: never counted twice.
    expect(
      events.every((e) => e.usage?.input_tokens === undefined && e.usage?.output_tokens === undefined),
    ).toBe(true);
    expect(cursor?.seen).toHaveLength(2);
  });

  it("reads on from where it stopped, and counts a message written again (tool calls attached) once", () => {
    const path = chatFile();
    const first = readChatUsage(path, undefined, SESSION, undefined);
    const lines = readFileSync(path, "utf8").split("\n");
    appendFileSync(path, `${lines.find((l) => l.includes('"toolCalls"'))}\n`);
    const again = readChatUsage(path, first.cursor, SESSION, undefined);
    expect(again.events).toEqual([]);
    expect(again.cursor!.offset).toBeGreaterThan(first.cursor!.offset);
  });

  it("counts only messages written since recording was switched on", () => {
    const { events } = readChatUsage(chatFile(), undefined, SESSION, "2026-11-29T18:49:23.500Z");
    expect(events.map((e) => e.usage?.message_id)).toEqual(["d67ab507-a0e2-4c07-b89c-7a065e389c17"]);
  });

  it("a FIFO or a missing file gives nothing, at once", () => {
    const fifo = join(dir(), "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    expect(readChatUsage(fifo, undefined, SESSION, undefined).events).toEqual([]);
    expect(readChatUsage(join(dir(), "gone.jsonl"), undefined, SESSION, undefined)).toEqual({
      events: [],
      cursor: undefined,
    });
  });

  it("the adapter adds them at the end of a turn, with the turn's id", () => {
    const path = chatFile();
    const copy = join(dirname(path), "copy.jsonl");
    copyFileSync(path, copy);
    const before = geminiAdapter.normalize(
      { ...afterAgent(copy, "2026-11-29T18:49:22.700Z"), hook_event_name: "BeforeAgent" },
      {},
    );
    const state = geminiAdapter.enrich?.(before, undefined)?.state;
    const result = geminiAdapter.normalize(afterAgent(copy, "2026-11-29T18:49:23.779Z"), {});
    const extra = geminiAdapter.enrich?.(result, JSON.parse(JSON.stringify(state)));
    const usages = extra!.events.filter((e) => e.kind === "turn_usage");
    expect(usages.map((e) => e.usage?.cache_read_input_tokens)).toEqual([500, 0]);
    expect(new Set(usages.map((e) => e.turn_id))).toEqual(new Set([result.events[0]!.turn_id]));
    // The next turn end reads nothing twice.
    const next = geminiAdapter.enrich?.(
      geminiAdapter.normalize(afterAgent(copy, "2026-11-29T18:49:24.000Z"), {}),
      JSON.parse(JSON.stringify(extra!.state)),
    );
    expect(next!.events.filter((e) => e.kind === "turn_usage")).toEqual([]);
  });
});

describe("the summary says unknown, never 0, for a count no source reported", () => {
  const usage = (sources: string[]): SessionSummary["usage"] => ({
    input_tokens: 464,
    output_tokens: 38,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
    sources,
  });

  it("Gemini's hooks alone: cache read unknown", () => {
    expect(tokensLine(usage(["gemini-hook"]), "gemini")).toBe(
      "464 in · 38 out · unknown cache read (gemini-hook)",
    );
  });

  it("with the chat file's counts, or another provider's, the figure stands", () => {
    expect(tokensLine(usage(["gemini-hook", "gemini-chat"]), "gemini")).toBe(
      "464 in · 38 out · 0 cache read (gemini-hook, gemini-chat)",
    );
    expect(tokensLine(usage(["claude-transcript"]), "claude")).toBe(
      "464 in · 38 out · 0 cache read (claude-transcript)",
    );
  });
});
