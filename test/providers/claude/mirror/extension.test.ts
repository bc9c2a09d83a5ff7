import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sessionDirName } from "../../../../src/core/archive/paths.ts";
import {
  MIRROR_EXTENSION_NAME,
  MIRROR_EXTENSION_ORDER,
} from "../../../../src/providers/claude/mirror/extension.ts";
import { MirrorWriter } from "../../../../src/providers/claude/mirror/writer.ts";
import {
  type AnyRecord,
  Conversation,
  makeCtx,
  mirrorFiles,
  plantedKey,
  readEvents,
  readRecords,
  replyJson,
  runCutStream,
  runStream,
  sseEvents,
  userTexts,
  useTempMirror,
} from "./helpers.ts";

const SID = "2b78a515-1a4e-4949-93a8-4a58deaec546";

const setup = useTempMirror();
/** The record types of `n` exchanges: a user record, then the assistant's. */
const exchanges = (n: number) => Array.from({ length: n }, () => ["user", "assistant"]).flat();
afterEach(() => {
  vi.restoreAllMocks();
});

function expectLinearChain(records: AnyRecord[]): void {
  let parent: string | null = null;
  const uuids = new Set<string>();
  for (const r of records) {
    expect(r.parentUuid).toBe(parent);
    expect(r.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(uuids.has(r.uuid)).toBe(false);
    uuids.add(r.uuid);
    parent = r.uuid;
  }
}

/** Collects unhandled rejections for the duration of `fn`. */
async function withRejectionWatch(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const onRejection = (reason: unknown) => seen.push(reason);
  process.on("unhandledRejection", onRejection);
  try {
    await fn();
    await new Promise((r) => setTimeout(r, 20));
  } finally {
    process.off("unhandledRejection", onRejection);
  }
  return seen;
}

describe("transcript mirror extension", () => {
  it("registers as transcript-mirror at order 720", () => {
    const { ext } = setup();
    expect(ext.name).toBe(MIRROR_EXTENSION_NAME);
    expect(ext.name).toBe("transcript-mirror");
    expect(ext.order).toBe(MIRROR_EXTENSION_ORDER);
    expect(ext.order).toBe(720);
  });

  it("3-turn replay: exactly 3 user + 3 assistant records, in order, no duplicates", async () => {
    const { ext, dir } = setup();
    const conv = new Conversation(ext);
    await conv.turn("first prompt", [{ type: "text", text: "one" }]);
    await conv.turn("second prompt", [{ type: "text", text: "two" }]);
    await conv.turn("third prompt", [{ type: "text", text: "three" }]);
    await ext.idle();
    const records = readRecords(dir, SID);
    expect(records.map((r) => r.type)).toEqual(exchanges(3));
    expect(userTexts(records)).toEqual(["first prompt", "second prompt", "third prompt"]);
    expect(records.filter((r) => r.type === "assistant").map((r) => r.message.content[0].text)).toEqual([
      "one",
      "two",
      "three",
    ]);
    expectLinearChain(records);
    expect(mirrorFiles(dir, SID)).toHaveLength(1);
  });

  it("a tool loop mirrors prompt, tool call, tool result and answer once each", async () => {
    const { ext, dir } = setup();
    const conv = new Conversation(ext);
    conv.messages.push({ role: "user", content: "run echo hello" });
    await conv.echoHello("I will call Bash.");
    await ext.idle();
    const records = readRecords(dir, SID);
    expect(records.map((r) => r.type)).toEqual(exchanges(2));
    const call = records[1] as AnyRecord;
    expect(call.message.content.map((b: AnyRecord) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(call.message.content[2].input).toEqual({ command: "echo hello" });
    expect(call.message.content[0].signature).toBe("sig-msg_main_1-0");
    expect(call.message.stop_reason).toBe("end_turn");
    expect(call.message.usage).toMatchObject({ input_tokens: 2817, output_tokens: 26 });
    expect(call.requestId).toMatch(/^req_mock_/);
    expect(records[2]?.message.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "hello", is_error: false },
    ]);
  });

  it("mirrors the system-role context after a user message once, as a system attachment record", async () => {
    const { ext, dir } = setup();
    const conv = new Conversation(ext);
    conv.messages.push({ role: "user", content: "first" });
    conv.messages.push({
      role: "system",
      content: [{ type: "text", text: "# Environment\n - Platform: linux" }],
    });
    await conv.reply([{ type: "text", text: "one" }]);
    await conv.turn("second", [{ type: "text", text: "two" }]);
    await ext.idle();
    const records = readRecords(dir, SID);
    expect(records.map((r) => r.type)).toEqual(["user", "attachment", "assistant", "user", "assistant"]);
    expect(records[1]).toMatchObject({
      attachment: { type: "mirrored_system_message" },
      rendered: [{ content: "# Environment\n - Platform: linux" }],
      renderedRole: "system",
      source: "tapedeck-mirror",
    });
    expectLinearChain(records);
  });

  it("200-turn replay writes 400 records, not ~20,000", async () => {
    const { ext, dir } = setup();
    const conv = new Conversation(ext);
    for (let i = 0; i < 200; i++) await conv.turn(`prompt ${i}`, [{ type: "text", text: `answer ${i}` }]);
    await ext.idle();
    const records = readRecords(dir, SID);
    expect(records).toHaveLength(400);
    expect(records.filter((r) => r.type === "user")).toHaveLength(200);
    expect(records.filter((r) => r.type === "assistant")).toHaveLength(200);
    expect(userTexts(records)).toEqual(Array.from({ length: 200 }, (_, i) => `prompt ${i}`));
    expectLinearChain(records);
  });

  it("a legitimately repeated user text is kept twice (position-based dedup)", async () => {
    const { ext, dir } = setup();
    const conv = new Conversation(ext);
    for (let i = 1; i <= 10; i++) await conv.turn(i === 2 || i === 9 ? "yes" : `turn ${i}`);
    await ext.idle();
    const texts = userTexts(readRecords(dir, SID));
    expect(texts).toHaveLength(10);
    expect(texts.filter((x) => x === "yes")).toHaveLength(2);
    expect(texts[1]).toBe("yes");
    expect(texts[8]).toBe("yes");
  });

  describe("failed request re-stage", () => {
    it("an error response before any stream leaves the state alone; the retry writes the turn once", async () => {
      const { ext, dir } = setup();
      const conv = new Conversation(ext);
      await conv.turn("u1");
      await conv.turn("u2");
      conv.messages.push({ role: "user", content: "u3" });

      const failed = makeCtx(structuredClone(conv.messages));
      failed.status = 529;
      failed.responseHeaders = { "content-type": "application/json" };
      await ext.onRequest?.(failed);
      await ext.onResponse?.(failed, Buffer.from('{"type":"error","error":{"type":"overloaded_error"}}'));
      await ext.onEnd?.(failed);
      await ext.idle();
      expect(userTexts(readRecords(dir, SID))).toEqual(["u1", "u2"]);

      await conv.reply([{ type: "text", text: "after retry" }]);
      await conv.turn("u4");
      await ext.idle();
      const records = readRecords(dir, SID);
      expect(userTexts(records)).toEqual(["u1", "u2", "u3", "u4"]);
      expect(records).toHaveLength(8);
      expectLinearChain(records);
    });

    it("with interrupted flushing off, a stream cut before message_stop writes nothing and the retry writes once", async () => {
      const { ext, dir } = setup({ flushInterrupted: false });
      const conv = new Conversation(ext);
      await conv.turn("u1");
      await conv.turn("u2");
      await conv.cutTurn("u3", "socket hang up");
      await ext.idle();
      expect(readRecords(dir, SID)).toHaveLength(4);

      await conv.reply([{ type: "text", text: "retried" }]);
      await ext.idle();
      const records = readRecords(dir, SID);
      expect(userTexts(records)).toEqual(["u1", "u2", "u3"]);
      expect(records.map((r) => r.type)).toEqual(exchanges(3));
    });

    it("with interrupted flushing on, the partial and the staged user record are written and the retry adds only its answer", async () => {
      const { ext, dir } = setup();
      const conv = new Conversation(ext);
      await conv.turn("u1");
      await conv.cutTurn("u2", "overloaded");
      await conv.reply([{ type: "text", text: "retried" }]);
      await ext.idle();
      const records = readRecords(dir, SID);
      expect(userTexts(records)).toEqual(["u1", "u2"]);
      expect(records.map((r) => r.message.stop_reason ?? "user")).toEqual([
        "user",
        "end_turn",
        "user",
        "interrupted",
        "end_turn",
      ]);
      expectLinearChain(records);
    });
  });

  describe("interrupted stream", () => {
    it("flushes the partial assistant message with stop_reason interrupted and the accumulated blocks", async () => {
      const { ext, dir } = setup();
      const ctx = makeCtx([{ role: "user", content: "do two things" }]);
      const events = sseEvents({
        id: "msg_partial",
        blocks: [
          { type: "thinking", thinking: "plan the work" },
          { type: "text", text: "Starting with the first." },
          { type: "tool_use", id: "toolu_cut", name: "Bash", input: { command: "echo a-long-command" } },
        ],
      });
      // Cut inside the tool_use input: after its start and the first input_json_delta.
      const cutAt = events.findIndex((e) => (e.json as AnyRecord).delta?.type === "input_json_delta") + 1;
      await runCutStream(ext, ctx, events.slice(0, cutAt), {
        by: "client",
        reason: "client closed the connection",
      });
      await ext.idle();

      const records = readRecords(dir, SID);
      expect(records.map((r) => r.type)).toEqual(["user", "assistant"]);
      const msg = records[1]?.message;
      expect(msg.id).toBe("msg_partial");
      expect(msg.stop_reason).toBe("interrupted");
      expect(msg.content.map((b: AnyRecord) => b.type)).toEqual(["thinking", "text", "tool_use"]);
      expect(msg.content[1].text).toBe("Starting with the first.");
      // Unparseable partial JSON is kept as the raw string.
      expect(typeof msg.content[2].input).toBe("string");
      expect(JSON.stringify({ command: "echo a-long-command" }).startsWith(msg.content[2].input)).toBe(true);
    });

    it("a stream cut before message_start still writes the staged user record", async () => {
      const { ext, dir } = setup();
      const ctx = makeCtx([{ role: "user", content: "hello?" }]);
      await runCutStream(ext, ctx, [], { by: "client", reason: "closed" });
      await ext.idle();
      expect(userTexts(readRecords(dir, SID))).toEqual(["hello?"]);
      expect(readRecords(dir, SID)).toHaveLength(1);
    });

    it("writes nothing for an interruption when TAPEDECK_MIRROR_FLUSH_INTERRUPTED is off", async () => {
      const { ext, dir } = setup({ flushInterrupted: false });
      const ctx = makeCtx([{ role: "user", content: "x" }]);
      const events = sseEvents({ id: "m", blocks: [{ type: "text", text: "partial" }] });
      await runCutStream(ext, ctx, events.slice(0, 4), { by: "client", reason: "closed" });
      await ext.idle();
      expect(readRecords(dir, SID)).toEqual([]);
    });

    it("a completed stream is written once even though onEnd follows message_stop", async () => {
      const { ext, dir } = setup();
      const ctx = makeCtx([{ role: "user", content: "x" }]);
      await runStream(ext, ctx, sseEvents({ id: "m1", blocks: [{ type: "text", text: "done" }] }));
      ctx.aborted = { by: "client", reason: "closed after the end" };
      await ext.onEnd?.(ctx);
      await ext.idle();
      expect(readRecords(dir, SID)).toHaveLength(2);
    });
  });

  it("mirror off writes nothing and creates no directory", async () => {
    const { ext, dir } = setup({ enabled: false });
    const conv = new Conversation(ext);
    await conv.turn("secret plans");
    await ext.idle();
    expect(existsSync(dir)).toBe(false);
  });

  it("excludes thinking blocks when includeThinking is off, keeps them by default", async () => {
    const blocks = [
      { type: "thinking" as const, thinking: "private reasoning" },
      { type: "text" as const, text: "visible" },
    ];
    const off = setup({ includeThinking: false });
    await new Conversation(off.ext).turn("q", blocks);
    await off.ext.idle();
    const recs = readRecords(off.dir, SID);
    expect(recs[1]?.message.content).toEqual([{ type: "text", text: "visible" }]);
    expect(JSON.stringify(recs)).not.toContain("private reasoning");
    off.cleanup();

    const on = setup();
    await new Conversation(on.ext).turn("q", blocks);
    await on.ext.idle();
    expect(readRecords(on.dir, SID)[1]?.message.content[0]).toMatchObject({
      type: "thinking",
      thinking: "private reasoning",
    });
  });

  describe("subagents", () => {
    it("writes each agent to its own file with its own dedup state", async () => {
      const { ext, dir } = setup();
      const main = new Conversation(ext);
      const agent = new Conversation(ext, { agentId: "aaffe666145fc9347" });
      await main.turn("spawn a subagent", [
        { type: "tool_use", id: "toolu_agent", name: "Agent", input: { prompt: "echo" } },
      ]);
      await agent.turn("SUBAGENT_TASK: run echo", [
        { type: "tool_use", id: "toolu_sub", name: "Bash", input: { command: "echo from-subagent" } },
      ]);
      await agent.turn(
        [{ type: "tool_result", tool_use_id: "toolu_sub", content: "from-subagent" }],
        [{ type: "text", text: "Subagent finished" }],
      );
      await main.turn(
        [{ type: "tool_result", tool_use_id: "toolu_agent", content: "Subagent finished" }],
        [{ type: "text", text: "All done" }],
      );
      await ext.idle();

      const mainRecs = readRecords(dir, SID);
      const agentRecs = readRecords(dir, SID, "aaffe666145fc9347");
      expect(mainRecs).toHaveLength(4);
      expect(agentRecs).toHaveLength(4);
      expect(mainRecs.every((r) => r.isSidechain === false && !("agentId" in r))).toBe(true);
      expect(agentRecs.every((r) => r.isSidechain === true && r.agentId === "aaffe666145fc9347")).toBe(true);
      expect(userTexts(agentRecs)).toEqual(["SUBAGENT_TASK: run echo", "result:toolu_sub"]);
      expect(userTexts(mainRecs)).toEqual(["spawn a subagent", "result:toolu_agent"]);
      expectLinearChain(mainRecs);
      expectLinearChain(agentRecs);
      expect(mirrorFiles(dir, SID, "aaffe666145fc9347")[0]).toContain(
        join(sessionDirName(SID), "agents", "aaffe666145fc9347"),
      );
    });
  });

  describe("session ids and paths", () => {
    it("a path-traversal session id lands in an h-<hash> directory inside the root", async () => {
      const { ext, dir, root } = setup();
      const evil = "../../etc/passwd";
      await new Conversation(ext, { sessionId: evil, agentId: "../../../tmp/x" }).turn("hi");
      await ext.idle();
      const entries = readdirSync(dir).filter((n) => !n.startsWith("session-mirror-events"));
      expect(entries).toEqual([sessionDirName(evil)]);
      expect(entries[0]).toMatch(/^h-[0-9a-f]{32}$/);
      const agents = readdirSync(join(dir, entries[0] as string, "agents"));
      expect(agents[0]).toMatch(/^h-[0-9a-f]{32}$/);
      expect(readdirSync(root).sort()).toEqual(["mirrors"]);
      expect(readRecords(dir, evil, "../../../tmp/x")[0]?.sessionId).toBe(evil);
    });

    it("a session id named like the events log cannot shadow it", async () => {
      const { ext, dir } = setup();
      await new Conversation(ext, { sessionId: "session-mirror-events.jsonl" }).turn("hi");
      await new Conversation(ext).turn("normal");
      await ext.idle();
      const entries = readdirSync(dir).sort();
      expect(entries).toContain("session-mirror-events.jsonl");
      expect(entries.filter((n) => /^h-[0-9a-f]{32}$/.test(n))).toHaveLength(1);
      expect(readEvents(dir).length).toBeGreaterThan(0);
      expect(userTexts(readRecords(dir, "session-mirror-events.jsonl"))).toEqual(["hi"]);
    });

    it("requests without a session header share the unknown directory", async () => {
      const { ext, dir } = setup();
      await new Conversation(ext, { sessionId: null }).turn("anonymous");
      await ext.idle();
      expect(existsSync(join(dir, "unknown"))).toBe(true);
      expect(readRecords(dir, "unknown")[0]?.sessionId).toBe("unknown");
    });

    it("takes the session id from x-claude-code-session-id, then x-session-id, then x-anthropic-session-id", async () => {
      const { ext, dir } = setup();
      const send = async (headers: Record<string, string>, text: string) => {
        const ctx = makeCtx([{ role: "user", content: text }], { sessionId: null, headers });
        await runStream(ext, ctx, sseEvents({ id: `m-${text}`, blocks: [{ type: "text", text }] }));
      };
      await send(
        { "x-claude-code-session-id": "cc", "x-session-id": "generic", "x-anthropic-session-id": "a" },
        "1",
      );
      await send({ "x-session-id": "generic", "x-anthropic-session-id": "a" }, "2");
      await send({ "x-anthropic-session-id": "a" }, "3");
      await ext.idle();
      expect(userTexts(readRecords(dir, "cc"))).toEqual(["1"]);
      expect(userTexts(readRecords(dir, "generic"))).toEqual(["2"]);
      expect(userTexts(readRecords(dir, "a"))).toEqual(["3"]);
    });

    it("files are 0600 and directories 0700", async () => {
      const { ext, dir } = setup();
      await new Conversation(ext, { agentId: "agent1" }).turn("x");
      await ext.idle();
      const { statSync } = await import("node:fs");
      const file = mirrorFiles(dir, SID, "agent1")[0] as string;
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, SID)).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, SID, "agents", "agent1")).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, "session-mirror-events.jsonl")).mode & 0o777).toBe(0o600);
    });
  });

  it("ignores what is not a POST /v1/messages with a messages array", async () => {
    const { ext, dir } = setup();
    const events = sseEvents({ id: "m", blocks: [{ type: "text", text: "x" }] });
    await runStream(
      ext,
      makeCtx([{ role: "user", content: "a" }], { url: "/v1/messages/count_tokens" }),
      events,
    );
    await runStream(ext, makeCtx([{ role: "user", content: "b" }], { method: "GET" }), events);
    const noMessages = makeCtx([]);
    noMessages.body = { model: "x", prompt: "legacy" };
    await runStream(ext, noMessages, events);
    await ext.idle();
    expect(existsSync(dir)).toBe(false);
  });

  describe("non-streaming responses", () => {
    it("writes the user record and the JSON message, decoded whatever content-encoding the headers name", async () => {
      const { ext, dir } = setup();
      const reply = { id: "msg_json", blocks: [{ type: "text" as const, text: "plain json" }] };
      const ctx = makeCtx([{ role: "user", content: "q1" }], { stream: false });
      await ext.onRequest?.(ctx);
      await ext.onResponse?.(ctx, Buffer.from(JSON.stringify(replyJson(reply))));
      await ext.onEnd?.(ctx);

      const history = [
        { role: "user", content: "q1" },
        { role: "assistant", content: [{ type: "text", text: "plain json" }] },
        { role: "user", content: "q2" },
      ];
      // The proxy hands over bodies already decoded (observe.ts), with the header still saying gzip.
      const decoded = makeCtx(history, { stream: false });
      (decoded.responseHeaders as AnyRecord)["content-encoding"] = "gzip";
      await ext.onRequest?.(decoded);
      await ext.onResponse?.(
        decoded,
        Buffer.from(JSON.stringify(replyJson({ ...reply, id: "msg_decoded" }))),
      );
      await ext.onEnd?.(decoded);
      await ext.idle();

      const records = readRecords(dir, SID);
      expect(userTexts(records)).toEqual(["q1", "q2"]);
      expect(records.filter((r) => r.type === "assistant").map((r) => r.message.id)).toEqual([
        "msg_json",
        "msg_decoded",
      ]);
      expect(records[1]?.message.stop_reason).toBe("end_turn");
    });
  });

  describe("content handling", () => {
    it("stores base64 images (also inside tool results) as sha256 references, never the bytes", async () => {
      const { ext, dir } = setup();
      const png = Buffer.from("89504e470d0a1a0a-not-really-a-png", "utf8");
      const data = png.toString("base64");
      const { createHash } = await import("node:crypto");
      const sha = createHash("sha256").update(png).digest("hex");
      const conv = new Conversation(ext);
      await conv.turn(
        [
          { type: "image", source: { type: "base64", media_type: "image/png", data } },
          { type: "text", text: "what is this?", cache_control: { type: "ephemeral" } },
        ],
        [{ type: "tool_use", id: "toolu_img", name: "Read", input: { file_path: "/tmp/a.png" } }],
      );
      await conv.turn(
        [
          {
            type: "tool_result",
            tool_use_id: "toolu_img",
            content: [{ type: "image", source: { type: "base64", media_type: "image/jpeg", data } }],
          },
        ],
        [{ type: "text", text: "an image" }],
      );
      await ext.idle();
      const text = readFileSync(mirrorFiles(dir, SID)[0] as string, "utf8");
      expect(text).not.toContain(data);
      const records = readRecords(dir, SID);
      expect(records[0]?.message.content[0]).toEqual({
        type: "image",
        source: { type: "reference", sha256: sha, media_type: "image/png" },
      });
      expect(records[0]?.message.content[1]).toEqual({ type: "text", text: "what is this?" });
      expect(records[2]?.message.content[0].content[0]).toEqual({
        type: "image",
        source: { type: "reference", sha256: sha, media_type: "image/jpeg" },
      });
    });

    it("redacts a planted key in a user message and in assistant text by default", async () => {
      const { ext, dir } = setup();
      const key = plantedKey();
      await new Conversation(ext).turn(`deploy with ${key} please`, [
        { type: "text", text: `I will use ${key} for that.` },
        {
          type: "tool_use",
          id: "toolu_k",
          name: "Bash",
          input: { command: `curl -H "x-api-key: ${key}" x` },
        },
      ]);
      await ext.idle();
      const file = readFileSync(mirrorFiles(dir, SID)[0] as string, "utf8");
      expect(file).not.toContain(key);
      expect(file).not.toContain("sk-ant-dummy");
      const records = readRecords(dir, SID);
      expect(records[0]?.message.content).toContain("[REDACTED:");
      expect(records[1]?.message.content[0].text).toContain("[REDACTED:");
    });

    it("a credential in a session or agent header, the model or the reply's fields reaches no mirror file", async () => {
      const { ext, dir } = setup();
      const key = plantedKey();
      const token = ["gh", "p_", "Zq8xVb2LmN4pR7tW9yKc3Hd5Jf6Gs1Ae0BuXk"].join("");
      const conv = new Conversation(ext, {
        sessionId: token,
        // As a header: the helper would also spell it into the message ids, glued where no rule sees a key.
        headers: { "x-claude-code-agent-id": key },
        model: `claude ${key}`,
        requestId: `req ${key}`,
      });
      conv.messages.push({ role: "user", content: "hi" });
      await conv.reply([{ type: "text", text: "ok" }], `stop at ${key}`);
      await ext.idle();
      const files = readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"));
      expect(files.length).toBeGreaterThan(1);
      for (const text of files) {
        expect(text).not.toContain(key);
        expect(text).not.toContain(token);
      }
      const records = readRecords(dir, token, key);
      expect(records.map((r) => r.type)).toEqual(["user", "assistant"]);
      expect(records[0]).toMatchObject({ sessionId: expect.stringMatching(/^redacted-/) });
      expect(records[0]?.agentId).toMatch(/^redacted-/);
      expect(records[1]).toMatchObject({
        requestedModel: "claude [REDACTED:anthropic_key]",
        requestId: expect.stringMatching(/^redacted-/),
        message: { stop_reason: "stop at [REDACTED:anthropic_key]" },
      });
    });

    it("keeps content byte-faithful when redaction is off", async () => {
      const { ext, dir } = setup({ redact: false });
      const key = plantedKey();
      await new Conversation(ext).turn(`deploy with ${key} please`, [{ type: "text", text: `using ${key}` }]);
      await ext.idle();
      const records = readRecords(dir, SID);
      expect(records[0]?.message.content).toBe(`deploy with ${key} please`);
      expect(records[1]?.message.content[0].text).toBe(`using ${key}`);
      // Request headers never reach the mirror, redaction or not.
      expect(readFileSync(mirrorFiles(dir, SID)[0] as string, "utf8")).not.toContain("sk-ant-dummy");
    });
  });

  describe("state loss and rewritten history", () => {
    it("after a proxy restart, continues the file and the chain without re-mirroring the history", async () => {
      const first = setup();
      const conv = new Conversation(first.ext);
      await conv.turn("u1");
      await conv.turn("u2");
      await first.ext.idle();

      const { createMirrorExtension } = await import("../../../../src/providers/claude/mirror/extension.ts");
      const restarted = createMirrorExtension(first.settings);
      const conv2 = new Conversation(restarted);
      conv2.messages.push(...conv.messages);
      await conv2.turn("u3");
      await restarted.idle();

      const records = readRecords(first.dir, SID);
      expect(userTexts(records)).toEqual(["u1", "u2", "u3"]);
      expect(records).toHaveLength(6);
      expectLinearChain(records);
      expect(mirrorFiles(first.dir, SID)).toHaveLength(1);
    });

    it("a session evicted from the bounded dedup map does not re-mirror its history when it returns", async () => {
      const { ext, dir } = setup({ maxSessions: 1 });
      const a = new Conversation(ext, { sessionId: "session-a" });
      const b = new Conversation(ext, { sessionId: "session-b" });
      await a.turn("a1");
      await a.turn("a2");
      await b.turn("b1"); // evicts session-a's dedup state (and its cached chain head)
      await a.turn("a3");
      await ext.idle();
      const records = readRecords(dir, "session-a");
      expect(userTexts(records)).toEqual(["a1", "a2", "a3"]);
      expectLinearChain(records);
    });

    it("a history that shrank (compaction) stages only its newest user message", async () => {
      const { ext, dir } = setup();
      const conv = new Conversation(ext);
      for (let i = 1; i <= 4; i++) await conv.turn(`u${i}`);
      conv.messages.splice(0, conv.messages.length, { role: "user", content: "summary of u1..u4" });
      await conv.reply([{ type: "text", text: "ack summary" }]);
      await conv.turn("u5");
      await ext.idle();
      const texts = userTexts(readRecords(dir, SID));
      expect(texts).toEqual(["u1", "u2", "u3", "u4", "summary of u1..u4", "u5"]);
    });
  });

  describe("failure isolation", () => {
    it("a synchronously throwing disk write escapes no hook, leaks no rejection, is logged, and loses nothing", async () => {
      let fail = true;
      const { ext, dir } = setup(
        {},
        {
          io: {
            appendFile: (path, data) => {
              if (fail) throw Object.assign(new Error("boom"), { code: "EIO" });
              return import("node:fs/promises").then((fs) => fs.appendFile(path, data));
            },
          },
        },
      );
      const conv = new Conversation(ext);
      const rejections = await withRejectionWatch(async () => {
        await expect(conv.turn("first")).resolves.toBeDefined();
        await ext.idle();
      });
      expect(rejections).toEqual([]);
      expect(readRecords(dir, SID)).toEqual([]);
      const errors = readEvents(dir).filter((e) => e.action === "error");
      expect(errors).toEqual([expect.objectContaining({ stage: "write", code: "EIO", session: SID })]);

      fail = false;
      await conv.turn("second");
      await ext.idle();
      // Dedup did not advance on the failed write: the first prompt is written now, once.
      expect(userTexts(readRecords(dir, SID))).toEqual(["first", "second"]);
    });

    it("an asynchronously rejecting disk write leaks no unhandledRejection and is logged", async () => {
      const { ext, dir } = setup(
        {},
        {
          io: { appendFile: () => Promise.reject(Object.assign(new Error("disk full"), { code: "ENOSPC" })) },
        },
      );
      const rejections = await withRejectionWatch(async () => {
        const conv = new Conversation(ext);
        await conv.turn("a");
        await conv.turn("b");
        await ext.idle();
      });
      expect(rejections).toEqual([]);
      const errors = readEvents(dir).filter((e) => e.action === "error");
      expect(errors).toHaveLength(2);
      expect(errors.every((e) => e.code === "ENOSPC")).toBe(true);
      expect(JSON.stringify(readEvents(dir))).not.toContain('"a"');
    });

    it("a writer that throws synchronously from append escapes no hook and is logged", async () => {
      const { ext, dir } = setup();
      vi.spyOn(MirrorWriter.prototype, "append").mockImplementation(() => {
        throw new TypeError("writer exploded");
      });
      const ctx = makeCtx([{ role: "user", content: "x" }]);
      const rejections = await withRejectionWatch(async () => {
        await expect(
          runStream(ext, ctx, sseEvents({ id: "m", blocks: [{ type: "text", text: "y" }] })),
        ).resolves.toBeUndefined();
        await ext.idle();
      });
      expect(rejections).toEqual([]);
      expect(readEvents(dir)).toContainEqual(expect.objectContaining({ action: "error", code: "TypeError" }));
    });

    it("garbage events and bodies do not throw", async () => {
      const { ext } = setup();
      const ctx = makeCtx([{ role: "user", content: "x" }]);
      await ext.onRequest?.(ctx);
      expect(() => ext.onStreamEvent?.(ctx, { event: "x", data: "not json", json: undefined })).not.toThrow();
      expect(() => ext.onStreamEvent?.(ctx, { event: "x", data: "null", json: null })).not.toThrow();
      expect(() =>
        ext.onStreamEvent?.(ctx, {
          event: "content_block_delta",
          data: "{}",
          json: { type: "content_block_delta" },
        }),
      ).not.toThrow();
      const other = makeCtx([{ role: "user", content: "y" }], { stream: false });
      await ext.onRequest?.(other);
      expect(() => ext.onResponse?.(other, Buffer.from("{not json"))).not.toThrow();
      const weird = makeCtx([null, 5, { role: "user" }, { role: "user", content: [null, 3] }]);
      expect(() => ext.onRequest?.(weird)).not.toThrow();
      await ext.idle();
    });
  });

  it("the events log records open with no content", async () => {
    const { ext, dir } = setup();
    await new Conversation(ext).turn("a secret prompt text");
    await ext.idle();
    const events = readEvents(dir);
    expect(events[0]).toMatchObject({ action: "open", session: SID, bytes: 0 });
    expect(events[0]?.file).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z\.jsonl$/);
    expect(JSON.stringify(events)).not.toContain("secret prompt");
  });

  it("lazily sweeps expired files from the hooks at most once a minute", async () => {
    let clock = Date.now();
    const { ext, dir } = setup({ retentionDays: 1 }, { now: () => clock });
    await new Conversation(ext, { sessionId: "old-session" }).turn("old");
    await ext.idle();
    const { utimesSync } = await import("node:fs");
    const oldFile = mirrorFiles(dir, "old-session")[0] as string;
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    utimesSync(oldFile, twoDaysAgo, twoDaysAgo);

    await new Conversation(ext, { sessionId: "new-session" }).turn("new");
    await ext.idle();
    expect(existsSync(oldFile)).toBe(true); // throttled: the first sweep ran a moment ago

    clock += 61_000;
    await new Conversation(ext, { sessionId: "new-session-2" }).turn("newer");
    await ext.idle();
    expect(existsSync(oldFile)).toBe(false);
    expect(existsSync(join(dir, "old-session"))).toBe(false);
    expect(readEvents(dir)).toContainEqual(expect.objectContaining({ action: "sweep", files: 1 }));
  });
});
