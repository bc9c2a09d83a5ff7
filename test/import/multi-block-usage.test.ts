// One Claude message written as one record per content block (Claude Code 2.x): every block repeats the
// message's usage, and every block but the last carries a partial output count. Two readings of the same
// records: ccusage 18's (the first record of each message.id + requestId) and the last record's; tapedeck's
// import takes the last, and its input and cache counts equal both (docs/usage.md "Against ccusage").
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { planImport } from "../../src/import/plan.ts";
import { runImport } from "../../src/import/run.ts";
import { useTempProjects } from "../helpers/temp-project.ts";
import { envFor, transcriptPath } from "./fixture.ts";

const temp = useTempProjects("tapedeck-multiblock-");
const SESSION = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";

interface Counts {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

interface BlockRecord {
  requestId: string;
  message: { id: string; usage: Counts };
}

const usage = (output: number): Counts => ({
  input_tokens: 3,
  output_tokens: output,
  cache_read_input_tokens: 12000,
  cache_creation_input_tokens: 900,
});

/** One message, three block records (thinking, text, tool call) with growing output counts. */
function blocks(cwd: string, message: string, request: string, outputs: number[], at: number): unknown[] {
  const content = [
    { type: "thinking", thinking: "…" },
    { type: "text", text: `answer of ${message}` },
    { type: "tool_use", id: `toolu_${message}`, name: "Bash", input: { command: "ls" } },
  ];
  return outputs.map((output, i) => ({
    type: "assistant",
    uuid: `${message}-${i}`,
    sessionId: SESSION,
    cwd,
    timestamp: `2026-03-01T10:00:0${at + i}.000Z`,
    requestId: request,
    message: {
      id: message,
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [content[i]],
      usage: usage(output),
    },
  }));
}

/** ccusage 18's reading: the first record of each `message.id:requestId`, the rest dropped as duplicates. */
function firstReading(records: BlockRecord[]): Counts {
  const seen = new Set<string>();
  return sum(records.filter((r) => !seen.has(key(r)) && seen.add(key(r))));
}

/** The last record of each message. */
function lastReading(records: BlockRecord[]): Counts {
  const last = new Map<string, BlockRecord>();
  for (const r of records) last.set(key(r), r);
  return sum([...last.values()]);
}

const key = (r: BlockRecord) => `${r.message.id}:${r.requestId}`;

function sum(records: Array<{ message: { usage: Counts } }>): Counts {
  const out: Counts = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0,
  };
  for (const r of records)
    for (const k of Object.keys(out) as Array<keyof Counts>) out[k] += r.message.usage[k];
  return out;
}

describe("a message in several block records", () => {
  it("is counted from its last block: ccusage's first-block reading gives less output, the same input and cache", () => {
    const root = temp();
    const home = join(root, "home");
    const project = join(root, "project");
    mkdirSync(join(project, ".git"), { recursive: true });
    const records = [
      ...(blocks(project, "msg_a", "req_a", [1, 1, 417], 0) as BlockRecord[]),
      ...(blocks(project, "msg_b", "req_b", [2, 2, 95], 3) as BlockRecord[]),
    ];
    const path = transcriptPath(home, project, SESSION);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    runImport(planImport({ providers: ["claude"], project, env: envFor(home) }), { env: envFor(home) });
    const events = readFileSync(
      join(project, ".tapedeck", "claude-sessions", SESSION, "events.jsonl"),
      "utf8",
    )
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const tapedeck = sum(
      events.filter((e) => e.kind === "turn_usage").map((e) => ({ message: { usage: e.usage } })),
    );

    const first = firstReading(records);
    const last = lastReading(records);
    expect(first.output_tokens).toBe(3);
    expect(last.output_tokens).toBe(512);
    expect(tapedeck).toEqual(last);
    // Where the readings agree, tapedeck equals ccusage.
    const { output_tokens: _a, ...ccusageRest } = first;
    const { output_tokens: _b, ...tapedeckRest } = tapedeck;
    expect(tapedeckRest).toEqual(ccusageRest);
  });
});
