import { appendFileSync, copyFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentUsageFromToolResponse, readNewUsage } from "../../../src/providers/claude/transcript-usage.ts";
import { providerFixtures } from "../../helpers/fixtures.ts";
import { useScratchDir } from "../../helpers/temp-project.ts";
import { readAfterLargeFile, readInSlices, readWhole } from "../usage-reader.ts";

const fixtures = providerFixtures("claude");
const SAMPLE = fixtures.path("transcript.sample.jsonl");
const scratch = useScratchDir("tapedeck-claude-usage-");

const read = (path: string, offset: number, seen: string[], maxBytes?: number) => {
  const result = readNewUsage(path, offset, seen, maxBytes);
  return { ...result, ids: result.usages.map((u) => u.message_id) };
};

/** An assistant block record in the shape Claude Code writes (one per content block). */
function assistantLine(id: string, output: number, extra: Record<string, unknown> = {}): string {
  return `${JSON.stringify({
    type: "assistant",
    isSidechain: false,
    requestId: `req_${id}`,
    message: {
      id,
      type: "message",
      role: "assistant",
      model: "claude-opus-5-5",
      content: [{ type: "text", text: "x" }],
      usage: {
        input_tokens: 100,
        cache_creation_input_tokens: 10,
        cache_read_input_tokens: 20,
        output_tokens: output,
        output_tokens_details: { thinking_tokens: 0 },
      },
    },
    ...extra,
  })}\n`;
}

/** Total input and output tokens the transcript's own cost-state record reports. */
function costStateTotals(path: string): { input: number; output: number } {
  const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
  const states = lines.map((l) => JSON.parse(l)).filter((r) => r.type === "cost-state");
  const usage = states.at(-1).modelUsage["claude-opus-5-5"];
  return { input: usage.inputTokens, output: usage.outputTokens };
}

describe("readNewUsage on captured transcripts", () => {
  it("counts each message once although every content block repeats its usage", () => {
    const result = readNewUsage(SAMPLE, 0, []);
    expect(result.offset).toBe(statSync(SAMPLE).size);
    expect(result.usages).toEqual([
      {
        message_id: "msg_mockmx26petn0002",
        timestamp: "2026-11-29T18:40:22.948Z",
        model: "claude-opus-5-5",
        request_id: "req_mockmx26petn0003",
        usage: {
          source: "claude-transcript",
          model: "claude-opus-5-5",
          message_id: "msg_mockmx26petn0002",
          input_tokens: 2817,
          output_tokens: 26,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          reasoning_output_tokens: 0,
          agent_version: "2.1.332",
        },
      },
      {
        message_id: "msg_mockmx26pf530004",
        timestamp: "2026-11-29T18:40:23.273Z",
        model: "claude-opus-5-5",
        request_id: "req_mockmx26pf530005",
        usage: {
          source: "claude-transcript",
          model: "claude-opus-5-5",
          message_id: "msg_mockmx26pf530004",
          input_tokens: 2925,
          output_tokens: 12,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          reasoning_output_tokens: 0,
          agent_version: "2.1.332",
        },
      },
    ]);
    // Cross-check with Claude's own running total in the same file.
    const sum = (f: "input_tokens" | "output_tokens") =>
      result.usages.reduce((n, u) => n + (u.usage[f] ?? 0), 0);
    expect({ input: sum("input_tokens"), output: sum("output_tokens") }).toEqual(costStateTotals(SAMPLE));
  });

  it("counts subagent transcripts too (their records are all isSidechain)", () => {
    const result = readNewUsage(fixtures.path("transcript.subagent.sample.jsonl"), 0, []);
    expect(result.usages.map((u) => [u.message_id, u.usage.input_tokens, u.usage.output_tokens])).toEqual([
      ["msg_mockmx26ppc00005", 2274, 12],
      ["msg_mockmx26pppg0009", 2894, 12],
    ]);
  });

  it("reads a compacted transcript; the compaction call itself is not in it", () => {
    const path = fixtures.path("transcript.compacted.sample.jsonl");
    const result = readNewUsage(path, 0, []);
    expect(result.usages.map((u) => u.message_id)).toEqual([
      "msg_mockmx26ssk10002",
      "msg_mockmx26ssuc0004",
      "msg_mockmx26sydu0008",
    ]);
    const input = result.usages.reduce((n, u) => n + (u.usage.input_tokens ?? 0), 0);
    // cost-state includes the summary request (4655 input tokens) that has no assistant record.
    expect(costStateTotals(path).input - input).toBe(4655);
  });

  it("skips message ids the caller has already counted", () => {
    const result = readNewUsage(SAMPLE, 0, new Set(["msg_mockmx26petn0002"]));
    expect(result.usages.map((u) => u.message_id)).toEqual(["msg_mockmx26pf530004"]);
  });
});

describe("readNewUsage: incremental reading", () => {
  it("takes the last block record's usage for a message", () => {
    const path = scratch.file(assistantLine("m1", 1) + assistantLine("m1", 5) + assistantLine("m1", 26));
    const { usages } = readNewUsage(path, 0, []);
    expect(usages).toHaveLength(1);
    expect(usages[0]!.usage.output_tokens).toBe(26);
  });

  it("yields only the new message on the second call", () => {
    const path = join(scratch.dir, "incremental.jsonl");
    copyFileSync(SAMPLE, path);
    const first = readNewUsage(path, 0, []);
    const seen = first.usages.map((u) => u.message_id);
    appendFileSync(path, assistantLine("msg_new", 7) + assistantLine("msg_new", 9));
    const second = readNewUsage(path, first.offset, seen);
    expect(second.usages.map((u) => [u.message_id, u.usage.output_tokens])).toEqual([["msg_new", 9]]);
    expect(second.offset).toBe(statSync(path).size);
    expect(readNewUsage(path, second.offset, [...seen, "msg_new"]).usages).toEqual([]);
  });

  it("leaves a partial trailing line for the next call", () => {
    const complete = assistantLine("m1", 3);
    const partial = assistantLine("m2", 4);
    const cut = Math.floor(partial.length / 2);
    const path = scratch.file(complete + partial.slice(0, cut));
    const first = readNewUsage(path, 0, []);
    expect(first.usages.map((u) => u.message_id)).toEqual(["m1"]);
    expect(first.offset).toBe(Buffer.byteLength(complete));
    appendFileSync(path, partial.slice(cut));
    const second = readNewUsage(path, first.offset, ["m1"]);
    expect(second.usages.map((u) => u.message_id)).toEqual(["m2"]);
    expect(second.offset).toBe(statSync(path).size);
  });

  it("restarts from 0 when the file shrank below the offset", () => {
    const path = scratch.file(assistantLine("m1", 1) + assistantLine("m2", 2));
    const { offset } = readNewUsage(path, 0, []);
    writeFileSync(path, assistantLine("m3", 3));
    const result = readNewUsage(path, offset, ["m1", "m2"]);
    expect(result.usages.map((u) => u.message_id)).toEqual(["m3"]);
    expect(result.offset).toBe(statSync(path).size);
  });

  it("returns the offset unchanged for a missing file", () => {
    expect(readNewUsage(join(scratch.dir, "missing.jsonl"), 123, [])).toEqual({ offset: 123, usages: [] });
  });

  it("skips malformed lines, API error records and synthetic messages", () => {
    const path = scratch.file(
      "not json at all\n" +
        '{"type":"assistant","message":{"id":"broken"\n' +
        assistantLine("err", 1, { isApiErrorMessage: true }) +
        assistantLine("syn", 1).replace('"claude-opus-5-5"', '"<synthetic>"') +
        '{"type":"user","message":{"role":"user","content":"assistant usage"}}\n' +
        assistantLine("ok", 2),
    );
    expect(readNewUsage(path, 0, []).usages.map((u) => u.message_id)).toEqual(["ok"]);
  });

  it("handles CRLF line endings and multi-byte text", () => {
    const line = assistantLine("m-ü", 2).replace('"x"', '"héllo ✓"').replace(/\n$/, "\r\n");
    expect(readWhole(scratch.file(line), read)).toEqual(["m-ü"]);
  });

  it("caps each call at maxBytes and still visits every message exactly once", () => {
    let content = "";
    for (let i = 0; i < 50; i++) content += assistantLine(`m${i}`, i) + assistantLine(`m${i}`, i + 1);
    const seen = readInSlices(scratch.file(content), read, 700, 1000);
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => `m${i}`));
  });

  it("makes progress past a single line longer than maxBytes", () => {
    const huge = `${JSON.stringify({ type: "attachment", blob: "z".repeat(5000) })}\n`;
    expect(readInSlices(scratch.file(huge + assistantLine("after", 1)), read, 1024, 100)).toEqual(["after"]);
  });

  it("reads only from the offset of a 20 MB transcript", () => {
    const path = join(scratch.dir, "large.jsonl");
    const tail = assistantLine("tail-1", 3) + assistantLine("tail-2", 4);
    const result = readAfterLargeFile(path, (id) => assistantLine(id, 1), tail, read);
    expect(result.ids).toEqual(["tail-1", "tail-2"]);
  });
});

describe("agentUsageFromToolResponse", () => {
  it("maps a completed Agent call", () => {
    expect(
      agentUsageFromToolResponse({
        status: "completed",
        totalTokens: 2906,
        usage: {
          input_tokens: 2894,
          output_tokens: 12,
          cache_creation_input_tokens: 5,
          cache_read_input_tokens: 7,
        },
      }),
    ).toEqual({
      source: "hook-payload",
      input_tokens: 2894,
      output_tokens: 12,
      cache_creation_input_tokens: 5,
      cache_read_input_tokens: 7,
      total_tokens: 2906,
    });
  });

  it("has nothing for a background launch", () => {
    const payload = fixtures.json("PostToolUse.Agent.json");
    expect(agentUsageFromToolResponse(payload.tool_response)).toBeUndefined();
  });

  it("ignores non-objects and invalid counts", () => {
    expect(agentUsageFromToolResponse(null)).toBeUndefined();
    expect(agentUsageFromToolResponse("2906 tokens")).toBeUndefined();
    expect(agentUsageFromToolResponse({ totalTokens: -1, usage: { input_tokens: 1.5 } })).toBeUndefined();
    expect(agentUsageFromToolResponse({ totalTokens: 10 })).toEqual({
      source: "hook-payload",
      total_tokens: 10,
    });
  });
});
