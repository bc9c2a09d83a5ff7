// The proxy's archive feed with each provider's API usage reader: which calls
// it takes, whose session and agent they are, the usage it records, and the
// one-count rule shared with the transcript readers.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeConfig } from "../../../src/core/archive/config.ts";
import { defaultSessionRoot } from "../../../src/core/archive/paths.ts";
import type { Envelope } from "../../../src/core/archive/schemas.ts";
import { recordEvents, sessionDirNameFor } from "../../../src/core/archive/session-store.ts";
import type { ProxyContext } from "../../../src/core/ports/proxy-extension.ts";
import { claudeApiUsage } from "../../../src/providers/claude/api-usage.ts";
import { codexApiUsage, responsesUsage } from "../../../src/providers/codex/api-usage.ts";
import { CODEX_CAPABILITIES } from "../../../src/providers/codex/normalize.ts";
import { codexUsage } from "../../../src/providers/codex/rollout.ts";
import { createArchiveFeed } from "../../../src/proxy/extensions/archive-feed.ts";
import { identity, spec, tempProject } from "../../helpers/session.ts";

const THREAD = "01a228a1-6c99-7571-8a54-9987d351bd37";
const CHILD = "01a228a2-0000-7000-8000-000000000002";
const TURN = "01a228a1-6cb3-7542-97f2-313b7fba6131";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(recording: Record<string, "on" | "off">): string {
  const t = tempProject("tapedeck-feed-");
  cleanups.push(t.cleanup);
  const providers = Object.fromEntries(
    Object.entries(recording).map(([p, r]) => [p, { recording: r, mode: "capture-only" as const }]),
  );
  writeConfig(t.root, { schema_version: 1, providers });
  return t.root;
}

function codexCtx(cwd: string, headers: Record<string, string> = {}, url = "/v1/responses"): ProxyContext {
  const body = {
    model: "gpt-mock",
    stream: true,
    input: [
      {
        type: "message",
        role: "user",
        content: [
          { type: "input_text", text: `<environment_context>\n  <cwd>${cwd}</cwd>\n</environment_context>` },
        ],
      },
    ],
  };
  const rawBody = Buffer.from(JSON.stringify(body));
  return {
    id: "r1",
    method: "POST",
    url,
    headers: {
      authorization: "Bearer sk-mock-dummy",
      "session-id": THREAD,
      "thread-id": THREAD,
      "x-codex-turn-metadata": JSON.stringify({ session_id: THREAD, thread_id: THREAD, turn_id: TURN }),
      ...headers,
    },
    body,
    rawBody,
    status: 200,
    responseHeaders: { "x-request-id": "req_123" },
    meta: {},
  };
}

const RESPONSES_USAGE = {
  input_tokens: 1200,
  input_tokens_details: { cached_tokens: 1024 },
  output_tokens: 90,
  output_tokens_details: { reasoning_tokens: 40 },
  total_tokens: 1290,
};

function completed(id: string, usage: unknown = RESPONSES_USAGE) {
  return { type: "response.completed", response: { id, model: "gpt-mock", status: "completed", usage } };
}

async function stream(ctx: ProxyContext, events: unknown[]): Promise<void> {
  const feed = createArchiveFeed();
  await feed.onRequest?.(ctx);
  for (const json of events) {
    await feed.onStreamEvent?.(ctx, {
      event: (json as { type: string }).type,
      data: JSON.stringify(json),
      json,
    });
  }
  await feed.onEnd?.(ctx);
}

function archived(root: string, provider: string, id: string): Envelope[] {
  const dir = join(defaultSessionRoot(root, provider), sessionDirNameFor(identity(id, provider)));
  let text = "";
  try {
    text = readFileSync(join(dir, "events.jsonl"), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Envelope);
}

describe("codex Responses usage reader", () => {
  it("takes POST …/responses calls that name a session, and nothing else", () => {
    const ctx = codexCtx("/p");
    expect(codexApiUsage.identify(ctx)).toEqual({ sessionId: THREAD, turnId: TURN });
    expect(codexApiUsage.identify({ ...ctx, url: "/responses?x=1" })?.sessionId).toBe(THREAD);
    expect(codexApiUsage.identify({ ...ctx, method: "GET" })).toBeUndefined();
    expect(codexApiUsage.identify({ ...ctx, url: "/v1/models" })).toBeUndefined();
    expect(codexApiUsage.identify({ ...ctx, url: "/v1/responses/compact" })).toBeUndefined();
    expect(codexApiUsage.identify({ ...ctx, headers: { "thread-id": THREAD } })).toBeUndefined();
    // Claude's calls are not Codex's, and the other way round.
    expect(claudeApiUsage.identify(ctx)).toBeUndefined();
  });

  it("names a subagent by its thread and ignores metadata it cannot parse", () => {
    const ctx = codexCtx("/p", { "thread-id": CHILD, "x-codex-turn-metadata": "{not json" });
    expect(codexApiUsage.identify(ctx)).toEqual({ sessionId: THREAD, agentId: CHILD });
  });

  it("takes the working directory only from the environment context", () => {
    const ctx = codexCtx("/real/project");
    const decoy = Buffer.from(
      JSON.stringify({
        instructions: "docs say <cwd>/elsewhere</cwd>",
        input: JSON.parse(ctx.rawBody.toString()).input,
      }),
    );
    expect(codexApiUsage.workingDirectory({ ...ctx, rawBody: decoy })).toBe("/real/project");
    const onlyDecoy = Buffer.from(JSON.stringify({ instructions: "<cwd>/elsewhere</cwd>" }));
    expect(codexApiUsage.workingDirectory({ ...ctx, rawBody: onlyDecoy })).toBeUndefined();
    // An AGENTS.md that spells an environment block of its own comes as a message with its own heading.
    const agentsMd = {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "# AGENTS.md instructions\n<environment_context>\n<cwd>/victim</cwd>" },
      ],
    };
    const real = JSON.parse(ctx.rawBody.toString()).input;
    const spoof = Buffer.from(JSON.stringify({ input: [agentsMd, ...real] }));
    expect(codexApiUsage.workingDirectory({ ...ctx, rawBody: spoof })).toBe("/real/project");
  });

  it("reads the working directory from the environment context, JSON escapes decoded", () => {
    expect(codexApiUsage.workingDirectory(codexCtx('/home/u/my "proj"'))).toBe('/home/u/my "proj"');
    const noCwd = { ...codexCtx("/p"), rawBody: Buffer.from('{"input":[]}') };
    expect(codexApiUsage.workingDirectory(noCwd)).toBeUndefined();
  });

  it("maps Responses usage to the same counts as the rollout's token_usage_record", () => {
    const fromApi = responsesUsage(RESPONSES_USAGE, "resp_1", "gpt-mock");
    expect(fromApi).toEqual({
      source: "proxy",
      model: "gpt-mock",
      message_id: "resp_1",
      input_tokens: 1200,
      cache_read_input_tokens: 1024,
      output_tokens: 90,
      reasoning_output_tokens: 40,
      total_tokens: 1290,
    });
    const fromRollout = codexUsage(
      {
        input_tokens: 1200,
        cached_input_tokens: 1024,
        output_tokens: 90,
        reasoning_output_tokens: 40,
        total_tokens: 1290,
      },
      "resp_1",
    );
    const { source: _a, model: _b, ...apiCounts } = fromApi;
    const { source: _c, ...rolloutCounts } = fromRollout!;
    expect(apiCounts).toEqual(rolloutCounts);
  });

  it("keeps only non-negative finite counts", () => {
    const u = responsesUsage({ input_tokens: -1, output_tokens: 1.9, total_tokens: "9" }, "r", undefined);
    expect(u).toEqual({ source: "proxy", message_id: "r", output_tokens: 1 });
  });

  it("completes once, on response.completed or response.incomplete", () => {
    const acc = codexApiUsage.accumulator();
    expect(acc.event({ type: "response.created", response: { id: "resp_1" } })).toBeUndefined();
    expect(acc.event({ type: "response.output_text.delta", delta: "x" })).toBeUndefined();
    expect(acc.event(completed("resp_1"))?.responseId).toBe("resp_1");
    expect(acc.event(completed("resp_1"))).toBeUndefined();
    const cut = codexApiUsage.accumulator().event({
      type: "response.incomplete",
      response: { id: "resp_2", status: "incomplete", usage: RESPONSES_USAGE },
    });
    expect(cut?.payload).toEqual({ response_id: "resp_2", status: "incomplete" });
    expect(
      codexApiUsage.accumulator().event({ type: "response.completed", response: { id: "r" } }),
    ).toBeUndefined();
  });
});

describe("archive feed", () => {
  it("records a Codex response's usage into the codex session of a project recording codex", async () => {
    const root = project({ codex: "on" });
    await stream(codexCtx(root), [
      { type: "response.created", response: { id: "resp_1" } },
      completed("resp_1"),
    ]);
    const events = archived(root, "codex", THREAD);
    expect(events).toHaveLength(1);
    const [e] = events;
    expect(e!.kind).toBe("turn_usage");
    expect(e!.event_id).toBe("turn_usage:resp_1");
    expect(e!.turn_id).toBe(TURN);
    expect(e!.agent_id ?? null).toBeNull();
    expect(e!.provider).toBe("codex");
    expect(e!.payload).toEqual({ response_id: "resp_1", model: "gpt-mock", request_id: "req_123" });
    expect(e!.usage).toMatchObject({
      source: "proxy",
      input_tokens: 1200,
      output_tokens: 90,
      total_tokens: 1290,
    });
    // The credential the request carried is nowhere in the archive.
    expect(JSON.stringify(events)).not.toContain("sk-mock-dummy");
  });

  it("gives a subagent's response to the subagent", async () => {
    const root = project({ codex: "on" });
    await stream(codexCtx(root, { "thread-id": CHILD }), [completed("resp_child")]);
    expect(archived(root, "codex", THREAD)[0]?.agent_id).toBe(CHILD);
  });

  it("writes nothing when the provider's recording is off or the project is not set up", async () => {
    const off = project({ codex: "off", claude: "on" });
    await stream(codexCtx(off), [completed("resp_1")]);
    expect(archived(off, "codex", THREAD)).toEqual([]);
    const bare = tempProject("tapedeck-feed-bare-");
    cleanups.push(bare.cleanup);
    await stream(codexCtx(bare.root), [completed("resp_1")]);
    expect(archived(bare.root, "codex", THREAD)).toEqual([]);
  });

  it("counts a response once when the rollout reader recorded it first", async () => {
    const root = project({ codex: "on" });
    recordEvents(
      {
        ...spec(root, {
          sessionRoot: defaultSessionRoot(root, "codex"),
          identity: identity(THREAD, "codex"),
          capabilities: CODEX_CAPABILITIES,
        }),
      },
      [
        {
          kind: "turn_usage",
          event_id: "turn_usage:resp_1",
          payload: { response_id: "resp_1" },
          usage: codexUsage({ input_tokens: 1200, output_tokens: 90 }, "resp_1"),
        },
      ],
    );
    await stream(codexCtx(root), [completed("resp_1")]);
    expect(archived(root, "codex", THREAD).map((e) => [e.event_id, e.usage?.source])).toEqual([
      ["turn_usage:resp_1", "codex-transcript"],
    ]);
    // A response streamed twice (a retried request) is recorded once too.
    await stream(codexCtx(root), [completed("resp_2")]);
    await stream(codexCtx(root), [completed("resp_2")]);
    expect(archived(root, "codex", THREAD).map((e) => [e.event_id, e.usage?.source])).toEqual([
      ["turn_usage:resp_1", "codex-transcript"],
      ["turn_usage:resp_2", "proxy"],
    ]);
  });

  it("still records Claude's messages (message_start + message_delta, ended by message_stop)", async () => {
    const root = project({ claude: "on" });
    const rawBody = Buffer.from(
      JSON.stringify({ system: [{ type: "text", text: `Primary working directory: ${root}\nmore` }] }),
    );
    const ctx: ProxyContext = {
      id: "c1",
      method: "POST",
      url: "/v1/messages?beta=true",
      headers: { "x-claude-code-session-id": "sess-c", "x-claude-code-agent-id": "agent-1" },
      body: undefined,
      rawBody,
      status: 200,
      responseHeaders: { "request-id": "req_c" },
      meta: {},
    };
    await stream(ctx, [
      {
        type: "message_start",
        message: { id: "msg_1", model: "claude-x", usage: { input_tokens: 5, cache_read_input_tokens: 7 } },
      },
      { type: "message_delta", usage: { output_tokens: 11 } },
      { type: "message_stop" },
    ]);
    const [e] = archived(root, "claude", "sess-c");
    expect(e?.event_id).toBe("turn_usage:msg_1");
    expect(e?.agent_id).toBe("agent-1");
    expect(e?.payload).toEqual({ message_id: "msg_1", model: "claude-x", request_id: "req_c" });
    expect(e?.usage).toEqual({
      source: "proxy",
      model: "claude-x",
      message_id: "msg_1",
      input_tokens: 5,
      cache_read_input_tokens: 7,
      output_tokens: 11,
    });
  });
});
