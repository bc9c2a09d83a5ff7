import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../../src/core/base/json.ts";
import { shapeAssistantRecord, shapeUserRecord } from "../../../src/providers/claude/mirror/envelope.ts";
import { RestoreError, toTranscript } from "../../../src/providers/claude/mirror/restore.ts";
import { mirrorDirName } from "../../../src/providers/claude/mirror/writer.ts";
import { scanArchive } from "../../../src/providers/claude/transcript-check.ts";
import {
  type ArchivedEvent,
  rebuildFromArchive,
  toolResultContent,
} from "../../../src/providers/claude/transcript-rebuild.ts";
import {
  expectationFromArchive,
  planRestore,
  recordingGaps,
  transcriptPathFor,
  writeRestore,
} from "../../../src/providers/claude/transcript-restore.ts";
import {
  compareTranscript,
  observeTranscript,
  quickCheck,
} from "../../../src/providers/claude/transcript-watch.ts";
import { providerFixtures } from "../../helpers/fixtures.ts";
import { CAN_CHOWN, giveToOtherUser } from "../../helpers/other-user.ts";
import { useScratchDir } from "../../helpers/temp-project.ts";

const SAMPLE = providerFixtures("claude").path("transcript.sample.jsonl");
const { fresh } = useScratchDir("tapedeck-transcript-restore-");

const SID = "2b78a515-1a4e-4949-93a8-4a58deaec546";

let seq = 0;
function ev(
  kind: string,
  payload: Record<string, unknown>,
  extra: Partial<ArchivedEvent> = {},
): ArchivedEvent {
  seq++;
  return {
    sequence: seq,
    event_id: `${kind}-${seq}`,
    timestamp: new Date(Date.UTC(2026, 10, 29, 18, 40, seq)).toISOString(),
    kind,
    payload,
    redactions: [],
    omitted: [],
    ...extra,
  };
}

/** Two turns: a Bash call answered, a failing call; then two parallel reads; a subagent's call in between. */
function session(): ArchivedEvent[] {
  seq = 0;
  return [
    ev("session_start", { source: "startup", cwd: "/home/user/project" }),
    ev("user_prompt", { prompt: "run echo hello" }),
    ev("tool_call", { tool_name: "Bash", tool_input: { command: "echo hello" }, tool_use_id: "toolu_1" }),
    ev("tool_result", {
      tool_name: "Bash",
      tool_response: { stdout: "hello", stderr: "" },
      tool_use_id: "toolu_1",
    }),
    ev("assistant_message", { text: "It printed hello." }, { usage: { model: "claude-opus-5-5" } }),
    ev("user_prompt", { prompt: "read two files, then fail" }),
    ev("tool_call", { tool_name: "Read", tool_input: { file_path: "a" }, tool_use_id: "toolu_2" }),
    ev("tool_call", { tool_name: "Read", tool_input: { file_path: "b" }, tool_use_id: "toolu_3" }),
    ev(
      "tool_call",
      { tool_name: "Bash", tool_input: { command: "sub" }, tool_use_id: "toolu_sub" },
      { agent_id: "a1" },
    ),
    ev("tool_result", { tool_name: "Read", tool_response: "A", tool_use_id: "toolu_2" }),
    ev("tool_result", { tool_name: "Read", tool_response: "B", tool_use_id: "toolu_3" }),
    ev("tool_result", { tool_response: { stdout: "sub" }, tool_use_id: "toolu_sub" }, { agent_id: "a1" }),
    ev("tool_call", { tool_name: "Bash", tool_input: { command: "exit 3" }, tool_use_id: "toolu_4" }),
    ev("tool_error", { tool_name: "Bash", error: "Exit code 3", tool_use_id: "toolu_4" }),
    ev("tool_call", { tool_name: "Bash", tool_input: { command: "sleep 99" }, tool_use_id: "toolu_5" }),
    ev("assistant_message", { text: "It failed with [REDACTED:token]." }, { redactions: ["payload.text"] }),
  ];
}

function transcriptOf(events: ArchivedEvent[]): JsonObject[] {
  return toTranscript(rebuildFromArchive(events, SID).records, {
    sessionId: SID,
    cwd: "/home/user/project",
    gitBranch: "main",
  });
}

const blocks = (r: JsonObject) => ((r.message as JsonObject).content as JsonObject[]) ?? [];

/** Claude Code's own records, by kind: user prompt, tool result, assistant. */
function sampleKeys(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const line of readFileSync(SAMPLE, "utf8").split("\n")) {
    if (!line) continue;
    const r = JSON.parse(line) as JsonObject;
    if (r.type === "user") {
      const kind = Array.isArray((r.message as JsonObject).content) ? "user:tool_result" : "user:prompt";
      out[kind] ??= Object.keys(r);
    } else if (r.type === "assistant") out.assistant ??= Object.keys(r);
  }
  return out;
}

describe("rebuild from the archive", () => {
  it("links every record into one chain from a root to the last-prompt's leaf", () => {
    const records = transcriptOf(session());
    const messages = records.filter((r) => r.type !== "last-prompt");
    expect(messages[0]!.parentUuid).toBeNull();
    for (let i = 1; i < messages.length; i++) expect(messages[i]!.parentUuid).toBe(messages[i - 1]!.uuid);
    expect(new Set(messages.map((r) => r.uuid)).size).toBe(messages.length);
    expect(records.at(-1)).toEqual({
      type: "last-prompt",
      lastPrompt: "read two files, then fail",
      leafUuid: messages.at(-1)!.uuid,
      sessionId: SID,
    });
    for (const r of messages)
      expect(r).toMatchObject({ sessionId: SID, cwd: "/home/user/project", gitBranch: "main" });
  });

  it("pairs each tool call with its result, parallel calls in one message, and leaves out what has no pair", () => {
    const records = transcriptOf(session());
    const line = (r: JsonObject) => {
      const b = blocks(r)[0];
      if (r.type === "user")
        return typeof (r.message as JsonObject).content === "string" ? "prompt" : `result:${b!.tool_use_id}`;
      return b!.type === "tool_use" ? `use:${b!.id}` : `text`;
    };
    expect(records.filter((r) => r.type !== "last-prompt").map(line)).toEqual([
      "prompt",
      "use:toolu_1",
      "result:toolu_1",
      "text",
      "prompt",
      "use:toolu_2",
      "use:toolu_3",
      "result:toolu_2",
      "result:toolu_3",
      "use:toolu_4",
      "result:toolu_4",
      "text",
    ]);
    const byUuid = new Map(records.map((r) => [r.uuid, r]));
    for (const r of records.filter((x) => x.type === "user" && x.sourceToolAssistantUUID)) {
      const owner = byUuid.get(r.sourceToolAssistantUUID as string)!;
      expect(blocks(owner)[0]!.id).toBe(blocks(r)[0]!.tool_use_id);
    }
    // The parallel reads are one API message split per block, as Claude Code writes them.
    const reads = records.filter((r) => r.type === "assistant" && blocks(r)[0]!.name === "Read");
    expect(reads.map((r) => (r.message as JsonObject).id)).toEqual([
      (reads[0]!.message as JsonObject).id,
      (reads[0]!.message as JsonObject).id,
    ]);
    expect(reads.map((r) => r.apiBlockIndex)).toEqual([0, 1]);
    const results = records
      .filter((r) => r.type === "user" && r.sourceToolAssistantUUID)
      .map((r) => blocks(r)[0]);
    expect(results.map((b) => [b!.content, b!.is_error])).toEqual([
      ["hello", false],
      ["A", false],
      ["B", false],
      ["Exit code 3", true],
    ]);
  });

  it("writes each record type's keys in the order Claude Code writes them", () => {
    const sample = sampleKeys();
    const records = transcriptOf(session());
    const kindOf = (r: JsonObject) =>
      r.type === "assistant"
        ? "assistant"
        : typeof (r.message as JsonObject).content === "string"
          ? "user:prompt"
          : "user:tool_result";
    for (const r of records.filter((x) => x.type !== "last-prompt")) {
      const theirs = sample[kindOf(r)]!;
      const shared = Object.keys(r).filter((k) => theirs.includes(k));
      expect(shared, kindOf(r)).toEqual(theirs.filter((k) => shared.includes(k)));
      // Only provenance and the restore's own link are keys Claude's record of that kind lacks.
      expect(Object.keys(r).filter((k) => !theirs.includes(k))).toEqual(["source"]);
    }
    const message = records.find((r) => r.type === "assistant")!.message as JsonObject;
    expect(Object.keys(message)).toEqual([
      "id",
      "type",
      "role",
      "model",
      "content",
      "stop_reason",
      "stop_sequence",
      "usage",
    ]);
    expect(message.model).toBe("claude-opus-5-5");
  });

  it("counts what it used, what it left out, and what stays redacted", () => {
    const { stats } = rebuildFromArchive(session(), SID);
    expect(stats).toEqual({
      prompts: 2,
      answers: 2,
      tool_calls: 4,
      tool_results: 4,
      unanswered_calls: 1,
      redacted_events: 1,
      bounded_events: 0,
    });
    const text = JSON.stringify(transcriptOf(session()));
    expect(text).toContain("[REDACTED:token]");
    expect(text).not.toContain("toolu_sub");
  });

  it("tool results: Bash joins stdout and stderr, text blocks stay blocks, other objects are their JSON", () => {
    expect(toolResultContent({ stdout: "out", stderr: "err" })).toBe("out\nerr");
    expect(toolResultContent({ stdout: "", stderr: "" })).toBe("");
    expect(toolResultContent("plain")).toBe("plain");
    expect(toolResultContent({ content: [{ type: "text", text: "agent said" }] })).toEqual([
      { type: "text", text: "agent said" },
    ]);
    expect(toolResultContent({ type: "create", filePath: "x" })).toBe('{"type":"create","filePath":"x"}');
  });
});

describe("recording gaps", () => {
  it("states each span recording was switched off, and an archive that begins with a resume", () => {
    const events = session();
    const t = (s: number) => new Date(Date.UTC(2026, 10, 29, 18, 40, s)).toISOString();
    expect(recordingGaps(events, [])).toEqual([]);
    expect(
      recordingGaps(events, [
        { at: t(0), action: "start" },
        { at: t(5), action: "stop" },
        { at: t(7), action: "start" },
        { at: t(30), action: "stop" },
      ]),
    ).toEqual([{ from: t(5), to: t(7), reason: "recording was switched off" }]);
    events[0]!.payload.source = "resume";
    expect(recordingGaps(events, [])[0]!.reason).toContain("begins with a resume");
  });
});

function writeSample(path: string, lines: number): void {
  const text = readFileSync(SAMPLE, "utf8").split("\n").filter(Boolean);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${text.slice(0, lines).join("\n")}\n`);
}

describe("comparing a transcript with the archive", () => {
  const expected = { prompts: 1, answers: 2, tool_calls: 1, tool_use_ids: ["toolu_mockmx26petn0001"] };

  it("reads Claude's own sample as whole", () => {
    const found = observeTranscript(SAMPLE);
    expect(found).toMatchObject({ exists: true, prompts: 1, tool_results: 1, answers: 2, complete: true });
    expect(compareTranscript(expected, found).finding).toBe("ok");
  });

  it("missing, stub, shrunk, fewer, newer", () => {
    expect(compareTranscript(expected, observeTranscript(fresh("none.jsonl"))).finding).toBe("missing");
    const stub = fresh("stub.jsonl");
    writeFileSync(stub, '{"type":"summary","summary":"x"}\n{"type":"last-prompt","lastPrompt":"hi"}\n');
    expect(compareTranscript(expected, observeTranscript(stub))).toMatchObject({ finding: "stub" });
    const size = lstatSync(SAMPLE).size;
    expect(compareTranscript({ ...expected, bytes_seen: size + 1 }, observeTranscript(SAMPLE)).finding).toBe(
      "shrunk",
    );
    expect(compareTranscript({ ...expected, prompts: 2 }, observeTranscript(SAMPLE)).finding).toBe("fewer");
    const absent = compareTranscript(
      { ...expected, tool_use_ids: ["toolu_other"] },
      observeTranscript(SAMPLE),
    );
    expect(absent).toMatchObject({ finding: "fewer", missing_tool_use_ids: ["toolu_other"] });
    expect(
      compareTranscript({ ...expected, prompts: 0, tool_use_ids: [] }, observeTranscript(SAMPLE)).finding,
    ).toBe("newer");
  });

  it("never follows a symlink or reads a FIFO", () => {
    const link = fresh("link.jsonl");
    symlinkSync(SAMPLE, link);
    expect(observeTranscript(link)).toMatchObject({ exists: true, unsafe: "is a symlink", prompts: 0 });
    expect(compareTranscript(expected, observeTranscript(link)).finding).toBe("missing");
    expect(quickCheck(link, 0, 1).finding).toBe("missing");
  });

  it("a scan bounded below the file's size counts what it read and claims no loss from it", () => {
    const found = observeTranscript(SAMPLE, 1000);
    expect(found.complete).toBe(false);
    expect(compareTranscript({ ...expected, prompts: 5 }, found).finding).not.toBe("fewer");
  });
});

describe("the hot-path check", () => {
  it("missing, stub, shrunk and ok, from sizes and a substring count", () => {
    expect(quickCheck(fresh("gone.jsonl"), 100, 1)).toEqual({ finding: "missing", bytes: 0 });
    const stub = fresh("stub.jsonl");
    writeFileSync(stub, '{"type":"summary"}\n');
    expect(quickCheck(stub, 0, 1)).toMatchObject({ finding: "stub", records: 0 });
    const size = lstatSync(SAMPLE).size;
    expect(quickCheck(SAMPLE, size + 10, 1)).toMatchObject({ finding: "shrunk", bytes: size });
    expect(quickCheck(SAMPLE, size, 1)).toMatchObject({ finding: "ok", bytes: size });
    // Nothing recorded yet: an empty transcript is no loss.
    expect(quickCheck(stub, 0, 0).finding).toBe("ok");
  });

  it("a transcript tapedeck restored is smaller than Claude's was, and is no loss", () => {
    const path = fresh("restored.jsonl");
    writeFileSync(
      path,
      transcriptOf(session())
        .map((r) => `${JSON.stringify(r)}\n`)
        .join(""),
    );
    expect(quickCheck(path, lstatSync(path).size + 10_000, 2).finding).toBe("ok");
    // Provenance counts only on the first record: a prompt that quotes it elsewhere does not hide a loss.
    const quoted = fresh("quoted.jsonl");
    writeFileSync(
      quoted,
      `{"type":"user","message":{"content":"x"}}\n{"type":"user","message":{"content":"\\"source\\":\\"tapedeck-"}}\n`,
    );
    expect(quickCheck(quoted, 10_000, 2).finding).toBe("shrunk");
  });
});

describe("planning and writing a restore", () => {
  function setUp() {
    const claudeHome = fresh("claude");
    const events = session();
    const s = { sessionId: SID, projectRoot: "/home/user/project", branch: "main", events };
    return { claudeHome, s, path: transcriptPathFor(claudeHome, "/home/user/project", SID) };
  }

  it("writes a new transcript 0600 in 0700 directories, and refuses to replace one without --force", () => {
    const { claudeHome, s, path } = setUp();
    const plan = planRestore({ from: "archive", session: s, claudeHome, mirrorDir: fresh("mirror") });
    expect(plan.current.finding).toBe("missing");
    expect(plan.by_type).toEqual({
      "user:prompt": 2,
      "assistant:tool_use": 4,
      "user:tool_result": 4,
      "assistant:text": 2,
      "last-prompt": 1,
    });
    const written = writeRestore(plan);
    expect(written.backup).toBeUndefined();
    expect(lstatSync(path).mode & 0o777).toBe(0o600);
    expect(lstatSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(readFileSync(path, "utf8").split("\n").filter(Boolean)).toHaveLength(plan.records.length);
    const again = planRestore({ from: "archive", session: s, claudeHome, mirrorDir: fresh("mirror") });
    expect(() => writeRestore(again)).toThrow(RestoreError);
    const forced = writeRestore(again, { force: true, now: () => 0 });
    expect(forced.backup).toBe(`${path}.bak-1970-01-01T00-00-00-000Z`);
    expect(lstatSync(forced.backup!).mode & 0o777).toBe(0o600);
  });

  it("refuses a transcript directory or file that is a symlink, writing nothing through it", () => {
    const { claudeHome, s, path } = setUp();
    const elsewhere = fresh("elsewhere");
    mkdirSync(elsewhere);
    mkdirSync(dirname(dirname(path)), { recursive: true });
    symlinkSync(elsewhere, dirname(path));
    const plan = planRestore({ from: "archive", session: s, claudeHome, mirrorDir: fresh("mirror") });
    expect(() => writeRestore(plan, { force: true })).toThrow(/is a symlink/);
    expect(readdirSync(elsewhere)).toEqual([]);

    const other = setUp();
    mkdirSync(dirname(other.path), { recursive: true });
    const target = fresh("target.jsonl");
    writeFileSync(target, "keep");
    symlinkSync(target, other.path);
    const plan2 = planRestore({
      from: "archive",
      session: other.s,
      claudeHome: other.claudeHome,
      mirrorDir: fresh("m"),
    });
    expect(() => writeRestore(plan2, { force: true })).toThrow(/not a regular file/);
    expect(readFileSync(target, "utf8")).toBe("keep");
  });

  it.runIf(CAN_CHOWN)("refuses a transcript directory another user owns, writing nothing into it", () => {
    const { claudeHome, s, path } = setUp();
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    giveToOtherUser(dirname(path));
    const plan = planRestore({ from: "archive", session: s, claudeHome, mirrorDir: fresh("mirror") });
    expect(() => writeRestore(plan, { force: true })).toThrow(/belongs to another user/);
    expect(readdirSync(dirname(path))).toEqual([]);
  });

  it("a transcript holding more than the archive knows is 'newer' and not replaced without --force", () => {
    const { claudeHome, s, path } = setUp();
    writeSample(path, 1000);
    const few = { ...s, events: s.events.filter((e) => e.kind === "session_start") };
    few.events.push(
      ...session()
        .filter((e) => e.kind === "assistant_message")
        .slice(0, 1),
    );
    const plan = planRestore({ from: "archive", session: few, claudeHome, mirrorDir: fresh("mirror") });
    expect(plan.current.finding).toBe("newer");
    expect(() => writeRestore(plan)).toThrow(/holds more than the archive knows/);
  });

  it("--from mirror without a mirror is 'not found'; an unsafe id is refused", () => {
    const { claudeHome, s } = setUp();
    expect(() => planRestore({ from: "mirror", session: s, claudeHome, mirrorDir: fresh("mirror") })).toThrow(
      /no mirror/,
    );
    expect(() =>
      planRestore({
        from: "archive",
        session: { ...s, sessionId: "../x" },
        claudeHome,
        mirrorDir: fresh("m"),
      }),
    ).toThrow(/session id/);
  });

  it("expects what the archive recorded on the main thread", () => {
    expect(expectationFromArchive(session())).toEqual({
      prompts: 2,
      answers: 2,
      tool_calls: 4,
      tool_use_ids: ["toolu_1", "toolu_2", "toolu_3", "toolu_4"],
    });
  });
});

describe("auto: the mirror where it has the turn, the archive for the rest", () => {
  /** A mirror that began with the second turn (the proxy started mid-session), its model message whole. */
  function mirrorOfSecondTurn(dir: string): void {
    const ctx = {
      sessionId: SID,
      agentId: null,
      userType: "external",
      requestedModel: "claude-opus-5-5",
      effort: null,
    };
    const at = (ms: number) => new Date(Date.UTC(2026, 10, 29, 18, 40, 6, ms)).toISOString();
    const prompt = shapeUserRecord(ctx, {
      content: [{ type: "text", text: "read two files, then fail" }],
      ordinal: 0,
      timestamp: at(100),
      sentAtMs: 0,
      parentUuid: null,
    });
    const message = (id: string, content: JsonObject[], stop: string) => ({
      id,
      type: "message" as const,
      role: "assistant" as const,
      model: "claude-opus-5-5",
      content,
      stop_reason: stop,
      stop_sequence: null,
      stop_details: null,
      usage: { input_tokens: 1, output_tokens: 1 },
      extra: {},
    });
    const calls = shapeAssistantRecord(ctx, {
      message: message(
        "msg_2",
        [
          { type: "thinking", thinking: "Two reads.", signature: "sig" },
          { type: "tool_use", id: "toolu_2", name: "Read", input: { file_path: "a" } },
          { type: "tool_use", id: "toolu_3", name: "Read", input: { file_path: "b" } },
        ],
        "tool_use",
      ),
      requestId: "req_2",
      timestamp: at(200),
      parentUuid: prompt.uuid,
    });
    const results = shapeUserRecord(ctx, {
      content: [
        { type: "tool_result", tool_use_id: "toolu_2", content: "A", is_error: false },
        { type: "tool_result", tool_use_id: "toolu_3", content: "B", is_error: false },
      ],
      ordinal: 1,
      timestamp: at(300),
      sentAtMs: 0,
      parentUuid: calls.uuid,
    });
    const answer = shapeAssistantRecord(ctx, {
      message: message("msg_3", [{ type: "text", text: "Read both." }], "end_turn"),
      requestId: "req_3",
      timestamp: at(400),
      parentUuid: results.uuid,
    });
    const sessionDir = join(dir, mirrorDirName(SID));
    mkdirSync(sessionDir, { recursive: true });
    writeFileSync(
      join(sessionDir, "2026-11-29T18-40-06-100Z.jsonl"),
      [prompt, calls, results, answer].map((r) => `${JSON.stringify(r)}\n`).join(""),
    );
  }

  it("takes the first turn from the archive and the second from the mirror, in time order", () => {
    seq = 0;
    // The archive's two turns, up to the second turn's answer.
    const events = session().slice(0, 11);
    events.push(ev("assistant_message", { text: "Read both." }));
    const mirrorDir = fresh("mirror");
    mirrorOfSecondTurn(mirrorDir);
    const s = { sessionId: SID, projectRoot: "/home/user/project", branch: "main", events };
    const plan = planRestore({ from: "auto", session: s, claudeHome: fresh("claude"), mirrorDir });
    expect(plan.used).toEqual({ mirror_turns: 1, archive_turns: 1, mirror_files: 1 });
    const line = (r: JsonObject) => `${r.source}:${r.type}:${blocks(r)[0]?.type ?? "prompt"}`;
    expect(plan.records.filter((r) => r.type !== "last-prompt").map(line)).toEqual([
      "tapedeck-archive:user:prompt",
      "tapedeck-archive:assistant:tool_use",
      "tapedeck-archive:user:tool_result",
      "tapedeck-archive:assistant:text",
      "tapedeck-mirror:user:text",
      "tapedeck-mirror:assistant:thinking",
      "tapedeck-mirror:assistant:tool_use",
      "tapedeck-mirror:assistant:tool_use",
      "tapedeck-mirror:user:tool_result",
      "tapedeck-mirror:assistant:text",
    ]);
    // One chain across the two channels.
    const messages = plan.records.filter((r) => r.type !== "last-prompt");
    for (let i = 1; i < messages.length; i++) expect(messages[i]!.parentUuid).toBe(messages[i - 1]!.uuid);
    // The mirror alone lacks the first turn; the archive alone lacks the thinking.
    const mirrorOnly = planRestore({ from: "mirror", session: s, claudeHome: fresh("claude"), mirrorDir });
    expect(mirrorOnly.used).toMatchObject({ mirror_turns: 1, archive_turns: 0 });
    expect(mirrorOnly.not_rebuilt).toEqual([]);
    expect(plan.not_rebuilt.length).toBeGreaterThan(0);
  });
});

describe("doctor's archive scan", () => {
  it("counts what a full parse counts, without parsing: agent lines, quoted keys and empty answers aside", () => {
    const events = session();
    events.push(
      ev("tool_call", {
        tool_name: "Bash",
        tool_input: { command: '{"tool_use_id":"fake"}', tool_use_id: "nested" },
        tool_use_id: "toolu_6",
      }),
      ev("tool_result", {
        tool_name: "Bash",
        tool_response: { stdout: '"tool_use_id":"x"' },
        tool_use_id: "toolu_6",
      }),
      ev("assistant_message", { text: "" }),
      ev("user_prompt", { prompt: 'say "kind":"user_prompt"' }, { agent_id: "a2" }),
    );
    const dir = fresh("session");
    mkdirSync(dir);
    // The envelope's key order as the store writes it (store.ts): agent_id before the payload.
    const line = (e: ArchivedEvent) =>
      JSON.stringify({
        schema_version: 1,
        sequence: e.sequence,
        event_id: e.event_id,
        timestamp: e.timestamp,
        kind: e.kind,
        provider: "claude",
        session_id: `claude:${SID}`,
        ...(e.agent_id ? { agent_id: e.agent_id } : {}),
        payload: e.payload,
        redactions: e.redactions,
        truncations: [],
        omitted: e.omitted,
      });
    writeFileSync(join(dir, "events.jsonl"), `${events.map(line).join("\n")}\n`);
    const scanned = scanArchive(dir);
    expect(scanned.expected).toEqual(expectationFromArchive(events));
    expect(scanned.expected.tool_use_ids).toContain("toolu_6");
    expect(scanned.cwd).toBe("/home/user/project");
  });
});

describe("auto with a prompt typed twice", () => {
  it("a mirror holding the first 'continue' leaves the archive's second one in", () => {
    seq = 0;
    const events = [
      ev("session_start", { source: "startup", cwd: "/home/user/project" }),
      ev("user_prompt", { prompt: "continue" }),
      ev("assistant_message", { text: "one" }),
      ev("user_prompt", { prompt: "continue" }),
      ev("assistant_message", { text: "two" }),
    ];
    const mirrorDir = fresh("mirror");
    const ctx = { sessionId: SID, agentId: null, userType: "external", requestedModel: null, effort: null };
    const prompt = shapeUserRecord(ctx, {
      content: "continue",
      ordinal: 0,
      timestamp: events[1]!.timestamp,
      sentAtMs: 0,
      parentUuid: null,
    });
    const answer = shapeAssistantRecord(ctx, {
      message: {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "m",
        content: [{ type: "text", text: "one" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        stop_details: null,
        usage: {},
        extra: {},
      },
      requestId: null,
      timestamp: events[2]!.timestamp,
      parentUuid: prompt.uuid,
    });
    mkdirSync(join(mirrorDir, mirrorDirName(SID)), { recursive: true });
    writeFileSync(
      join(mirrorDir, mirrorDirName(SID), "2026-11-29T18-40-01-000Z.jsonl"),
      `${JSON.stringify(prompt)}\n${JSON.stringify(answer)}\n`,
    );
    const s = { sessionId: SID, projectRoot: "/home/user/project", branch: null, events };
    const plan = planRestore({ from: "auto", session: s, claudeHome: fresh("claude"), mirrorDir });
    expect(plan.used).toMatchObject({ mirror_turns: 1, archive_turns: 1 });
    const texts = plan.records
      .filter((r) => r.type === "assistant")
      .map((r) => `${r.source}:${blocks(r)[0]!.text}`);
    expect(texts).toEqual(["tapedeck-mirror:one", "tapedeck-archive:two"]);
  });
});
