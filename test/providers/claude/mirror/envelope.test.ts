import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../../../src/core/base/json.ts";
import type { AccumulatedMessage } from "../../../../src/providers/claude/mirror/accumulator.ts";
import {
  MIRROR_SOURCE,
  prepareAssistantContent,
  prepareSystemRendering,
  prepareUserContent,
  type RecordContext,
  referenceBlocks,
  shapeAssistantRecord,
  shapeSystemAttachment,
  shapeUserRecord,
  syntheticUuid,
  userTypeFromUserAgent,
} from "../../../../src/providers/claude/mirror/envelope.ts";
import {
  AGENT_ASSISTANT_KEYS,
  AGENT_ATTACHMENT_KEYS,
  AGENT_USER_PROMPT_KEYS,
  AGENT_USER_TOOL_RESULT_KEYS,
  ASSISTANT_KEYS,
  ASSISTANT_MESSAGE_KEYS,
  ATTACHMENT_KEYS,
  USER_PROMPT_KEYS,
  USER_TOOL_RESULT_KEYS,
} from "../../../../src/providers/claude/transcript-keys.ts";
import { type AnyRecord, plantedKey } from "./helpers.ts";

const PACKAGE_VERSION = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

// Claude Code 2.1.332's own transcripts (the same files as reference/claude/transcript*.sample.jsonl).
function fixture(name: string): AnyRecord[] {
  return readFileSync(new URL(`../../../fixtures/claude/${name}`, import.meta.url), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as AnyRecord);
}
const main = fixture("transcript.sample.jsonl");
const sub = fixture("transcript.subagent.sample.jsonl");

const isToolResult = (r: AnyRecord) =>
  Array.isArray(r.message.content) && r.message.content.some((b: AnyRecord) => b.type === "tool_result");

/** Keys present on every record of the set, in the order the first record has them. */
function alwaysKeys(records: AnyRecord[]): string[] {
  const first = Object.keys(records[0] as AnyRecord);
  return first.filter((k) => records.every((r) => k in r));
}

/** Claude Code-internal keys the proxy cannot rebuild from the wire (see envelope.ts). */
const ENRICHED_TOOL_RESULT_KEYS = [
  "toolUseResult",
  "sourceToolAssistantUUID",
  "sandboxed",
  "permissionDecision",
];

const withSource = (keys: string[]) => [...keys, "source"];

const ctx: RecordContext = {
  sessionId: "2b78a515-1a4e-4949-93a8-4a58deaec546",
  agentId: null,
  userType: "external",
  requestedModel: "claude-opus-5-5",
  effort: "medium",
};
const agentCtx: RecordContext = { ...ctx, agentId: "aaffe666145fc9347" };

const message: AccumulatedMessage = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-opus-5-5",
  content: [{ type: "text", text: "hi" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  stop_details: null,
  usage: { input_tokens: 1, output_tokens: 2 },
  extra: {},
};

const userRec = (c: RecordContext, content: unknown) =>
  shapeUserRecord(c, {
    content: content as never,
    ordinal: 0,
    timestamp: "2026-11-29T18:40:22.726Z",
    sentAtMs: 1,
    parentUuid: null,
  });
const assistantRec = (c: RecordContext) =>
  shapeAssistantRecord(c, {
    message,
    requestId: "req_1",
    timestamp: "2026-11-29T18:40:22.865Z",
    parentUuid: "p",
  });
const attachmentRec = (c: RecordContext) =>
  shapeSystemAttachment(c, {
    rendered: [{ content: "# Environment" }],
    ordinal: 0,
    index: 0,
    timestamp: "2026-11-29T18:40:22.726Z",
    parentUuid: "p",
  });

describe("envelope key-set parity with Claude Code 2.1.332 transcripts", () => {
  const mainUsers = main.filter((r) => r.type === "user");
  const mainPrompt = mainUsers.filter((r) => !isToolResult(r));
  const mainTool = mainUsers.filter(isToolResult);
  const mainAssistant = main.filter((r) => r.type === "assistant");
  const subPrompt = sub.filter((r) => r.type === "user" && !isToolResult(r));
  const subTool = sub.filter((r) => r.type === "user" && isToolResult(r));
  const subAssistant = sub.filter((r) => r.type === "assistant");
  const renderedAttachments = (rs: AnyRecord[]) =>
    rs.filter((r) => r.type === "attachment" && r.renderedRole === "system");

  it("the fixtures hold each record kind", () => {
    for (const set of [mainPrompt, mainTool, mainAssistant, subPrompt, subTool, subAssistant]) {
      expect(set.length).toBeGreaterThan(0);
    }
  });

  it("assistant records: every always-present key, in order, plus source", () => {
    expect([...ASSISTANT_KEYS]).toEqual(withSource(alwaysKeys(mainAssistant)));
    expect(Object.keys(assistantRec(ctx))).toEqual(withSource(alwaysKeys(mainAssistant)));
    expect([...AGENT_ASSISTANT_KEYS]).toEqual(withSource(alwaysKeys(subAssistant)));
    expect(Object.keys(assistantRec(agentCtx))).toEqual(withSource(alwaysKeys(subAssistant)));
    // The keys left out are the per-block timing ones some real records carry.
    const optional = new Set(mainAssistant.flatMap((r) => Object.keys(r)));
    for (const k of ASSISTANT_KEYS) optional.delete(k);
    expect([...optional].sort()).toEqual(["thinkingDisplay", "thinkingDurationMs", "toolInputStreamMs"]);
  });

  it("assistant message: the real nested key set", () => {
    const real = Object.keys((mainAssistant[0] as AnyRecord).message).sort();
    expect([...ASSISTANT_MESSAGE_KEYS].sort()).toEqual(real);
    expect(Object.keys(assistantRec(ctx).message as object).sort()).toEqual(real);
  });

  it("user prompt records: the real prompt record's keys plus source", () => {
    expect([...USER_PROMPT_KEYS]).toEqual(withSource(alwaysKeys(mainPrompt)));
    expect(Object.keys(userRec(ctx, "hello"))).toEqual(withSource(alwaysKeys(mainPrompt)));
    expect([...AGENT_USER_PROMPT_KEYS]).toEqual(withSource(alwaysKeys(subPrompt)));
    expect(Object.keys(userRec(agentCtx, "task"))).toEqual(withSource(alwaysKeys(subPrompt)));
    expect(Object.keys(userRec(ctx, "x").message as object)).toEqual(
      Object.keys((mainPrompt[0] as AnyRecord).message),
    );
  });

  it("tool-result records: the real keys minus Claude Code's enriched ones, plus source", () => {
    const minus = (keys: string[]) => keys.filter((k) => !ENRICHED_TOOL_RESULT_KEYS.includes(k));
    const result = [{ type: "tool_result", tool_use_id: "t", content: "hello", is_error: false }];
    expect([...USER_TOOL_RESULT_KEYS]).toEqual(withSource(minus(alwaysKeys(mainTool))));
    expect(Object.keys(userRec(ctx, result))).toEqual(withSource(minus(alwaysKeys(mainTool))));
    expect([...AGENT_USER_TOOL_RESULT_KEYS]).toEqual(withSource(minus(alwaysKeys(subTool))));
    expect(Object.keys(userRec(agentCtx, result))).toEqual(withSource(minus(alwaysKeys(subTool))));
  });

  it("system-context attachments: the real rendered attachment's keys plus source", () => {
    expect([...ATTACHMENT_KEYS]).toEqual(withSource(alwaysKeys(renderedAttachments(main))));
    expect(Object.keys(attachmentRec(ctx))).toEqual(withSource(alwaysKeys(renderedAttachments(main))));
    expect([...AGENT_ATTACHMENT_KEYS]).toEqual(withSource(alwaysKeys(renderedAttachments(sub))));
    expect(Object.keys(attachmentRec(agentCtx))).toEqual(withSource(alwaysKeys(renderedAttachments(sub))));
  });

  it("fills what the wire carries and marks the provenance", () => {
    const a = assistantRec(ctx);
    expect(a).toMatchObject({
      type: "assistant",
      isSidechain: false,
      requestId: "req_1",
      requestedModel: "claude-opus-5-5",
      effort: "medium",
      perTurnEffort: "medium",
      madeBy: "model",
      userType: "external",
      entrypoint: "tapedeck-mirror",
      // package.json's version, the one the CLI reports: a constant of the mirror's own drifted from it.
      version: `tapedeck/${PACKAGE_VERSION}`,
      source: MIRROR_SOURCE,
      cwd: null,
      gitBranch: null,
      parentUuid: "p",
    });
    expect(assistantRec(agentCtx)).toMatchObject({ isSidechain: true, agentId: "aaffe666145fc9347" });
    expect(userRec(ctx, "x")).toMatchObject({
      type: "user",
      sentAtMs: 1,
      promptId: null,
      source: "tapedeck-mirror",
    });
  });
});

describe("synthetic uuids", () => {
  it("are sha256(sessionId + timestamp + messageId) as 8-4-4-4-12, deterministic", () => {
    const h = createHash("sha256")
      .update("s1" + "2026-01-01T00:00:00.000Z" + "msg_1")
      .digest("hex");
    const u = syntheticUuid("s1", "2026-01-01T00:00:00.000Z", "msg_1");
    expect(u).toBe(
      `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`,
    );
    expect(syntheticUuid("s1", "2026-01-01T00:00:00.000Z", "msg_1")).toBe(u);
    expect(syntheticUuid("s1", "2026-01-01T00:00:00.001Z", "msg_1")).not.toBe(u);
    expect(assistantRec(ctx).uuid).toBe(syntheticUuid(ctx.sessionId, "2026-11-29T18:40:22.865Z", "msg_1"));
  });

  it("differ between user records of one request and between main thread and agent", () => {
    const a = shapeUserRecord(ctx, {
      content: "a",
      ordinal: 0,
      timestamp: "t",
      sentAtMs: 0,
      parentUuid: null,
    });
    const b = shapeUserRecord(ctx, {
      content: "a",
      ordinal: 1,
      timestamp: "t",
      sentAtMs: 0,
      parentUuid: null,
    });
    const c = shapeUserRecord(agentCtx, {
      content: "a",
      ordinal: 0,
      timestamp: "t",
      sentAtMs: 0,
      parentUuid: null,
    });
    expect(new Set([a.uuid, b.uuid, c.uuid]).size).toBe(3);
  });
});

describe("content preparation", () => {
  const opts = { redact: false, includeThinking: true };
  const bytes = Buffer.from("fake image bytes");
  const data = bytes.toString("base64");
  const sha = createHash("sha256").update(bytes).digest("hex");

  it("replaces base64 images and documents by sha256 references, also inside tool results", () => {
    const out = referenceBlocks([
      { type: "image", source: { type: "base64", media_type: "image/png", data } },
      { type: "document", source: { type: "base64", media_type: "application/pdf", data }, title: "spec" },
      { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      {
        type: "tool_result",
        tool_use_id: "t",
        content: [
          { type: "text", text: "screenshot" },
          { type: "image", source: { type: "base64", media_type: "image/webp", data } },
        ],
      },
    ]);
    expect(out).toEqual([
      { type: "image", source: { type: "reference", sha256: sha, media_type: "image/png" } },
      {
        type: "document",
        source: { type: "reference", sha256: sha, media_type: "application/pdf" },
        title: "spec",
      },
      { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
      {
        type: "tool_result",
        tool_use_id: "t",
        content: [
          { type: "text", text: "screenshot" },
          { type: "image", source: { type: "reference", sha256: sha, media_type: "image/webp" } },
        ],
      },
    ]);
    expect(JSON.stringify(out)).not.toContain(data);
  });

  it("drops cache_control markers on blocks but never touches tool inputs", () => {
    const out = prepareAssistantContent(
      [
        { type: "text", text: "x", cache_control: { type: "ephemeral" } },
        { type: "tool_use", id: "t", name: "Write", input: { cache_control: "user data" } },
      ],
      opts,
    );
    expect(out).toEqual([
      { type: "text", text: "x" },
      { type: "tool_use", id: "t", name: "Write", input: { cache_control: "user data" } },
    ]);
    expect(prepareUserContent("plain string", opts)).toBe("plain string");
  });

  it("leaves out thinking and redacted_thinking blocks when thinking is excluded", () => {
    const blocks: JsonObject[] = [
      { type: "thinking", thinking: "secret plan", signature: "s" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "text", text: "answer" },
    ];
    expect(prepareAssistantContent(blocks, { redact: false, includeThinking: false })).toEqual([
      { type: "text", text: "answer" },
    ]);
    expect(prepareAssistantContent(blocks, opts)).toHaveLength(3);
  });

  it("redacts credentials when asked, keeping signatures, ids and image hashes intact", () => {
    const key = plantedKey();
    const on = { redact: true, includeThinking: true };
    const user = prepareUserContent(
      [
        { type: "text", text: `my key is ${key}` },
        { type: "image", source: { type: "base64", media_type: "image/png", data } },
        {
          type: "tool_result",
          tool_use_id: "toolu_01XFDUDYJgAACzvnptvVoYEL",
          content: `export API_KEY=${key}`,
        },
      ],
      on,
    );
    const text = JSON.stringify(user);
    expect(text).not.toContain(key);
    expect(text).toContain("[REDACTED:");
    expect(text).toContain(sha);
    expect(text).toContain("toolu_01XFDUDYJgAACzvnptvVoYEL");
    const sig =
      "EsUBCkYIBxgCKkCQ0Hq5rN1zXw2bYcDqG8cV+Z7GqOq8Hc3vU5dL2EoXBBaYyKz9C0mY1zQ8y0CJh0K7sT3J4pFfWlRvYqHlEgx";
    const assistant = prepareAssistantContent(
      [
        { type: "thinking", thinking: "ok", signature: sig },
        {
          type: "tool_use",
          id: "t",
          name: "Bash",
          input: { command: `curl -H 'x-api-key: ${key}'`, password: "hunter2" },
        },
      ],
      on,
    );
    expect(assistant[0]?.signature).toBe(sig);
    expect(JSON.stringify(assistant)).not.toContain(key);
    expect(JSON.stringify(assistant)).not.toContain("hunter2");
    expect(JSON.stringify(prepareUserContent(`my key is ${key}`, opts))).toContain(key);
  });

  it("turns a system message into attachment renderings", () => {
    expect(prepareSystemRendering("# Environment", opts)).toEqual([{ content: "# Environment" }]);
    expect(
      prepareSystemRendering(
        [
          { type: "text", text: "a", cache_control: { type: "ephemeral" } },
          { type: "text", text: "b" },
        ],
        opts,
      ),
    ).toEqual([{ content: "a" }, { content: "b" }]);
    expect(prepareSystemRendering(undefined, opts)).toEqual([]);
  });

  it("reads the user type from Claude Code's user-agent", () => {
    expect(userTypeFromUserAgent("claude-cli/2.1.332 (external, sdk-cli)")).toBe("external");
    expect(userTypeFromUserAgent("claude-cli/2.1.332 (ant, cli)")).toBe("ant");
    expect(userTypeFromUserAgent("curl/8")).toBe("external");
    expect(userTypeFromUserAgent(undefined)).toBe("external");
  });
});
