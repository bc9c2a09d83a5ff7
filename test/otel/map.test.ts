// The archive → GenAI spans mapping, one fixture per span type, recorded through the real store (so the
// archive text is the redacted one, as a real session's is).
import { appendFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import type { Manifest } from "../../src/core/archive/schemas.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { mapSession, readManifest, sessionAttributes } from "../../src/otel/map.ts";
import type { Span } from "../../src/otel/model.ts";
import { encodeSpans } from "../../src/otel/otlp.ts";
import { SCHEMA_URL, stabilityMode } from "../../src/otel/semconv.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { identity, spec, useTempProjects } from "../helpers/session.ts";

const project = useTempProjects();
const AWS_KEY = `AKIA${"Q".repeat(12)}7XYZ`;

const clock = eventClock();
const { tick, ev } = clock;

function record(
  events: NormalizedEvent[],
  provider = "claude",
  id = "sess-1",
): { dir: string; manifest: Manifest } {
  const root = project();
  const dir = recordEvents(
    spec(root, {
      identity: identity(id, provider),
      sessionRoot: join(root, ".tapedeck", `${provider}-sessions`),
    }),
    events,
    tick,
  ).sessionDir;
  return { dir, manifest: readManifest(dir)! };
}

function spansOf(dir: string, manifest: Manifest, content = false): Span[] {
  return mapSession(dir, manifest, { content }).turns.flatMap((t) => t.spans);
}

const byName = (spans: Span[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

function claudeTurn(turn: string, n: number): NormalizedEvent[] {
  return [
    ev("user_prompt", `p${n}`, { prompt: `deploy with ${AWS_KEY}` }, { turn_id: turn }),
    ev(
      "tool_call",
      `c${n}`,
      { tool_name: "Bash", tool_input: { command: `echo ${AWS_KEY}` }, tool_use_id: `tu${n}` },
      { turn_id: turn },
    ),
    ev(
      "tool_result",
      `r${n}`,
      { tool_name: "Bash", tool_use_id: `tu${n}`, tool_response: { stdout: AWS_KEY } },
      { turn_id: turn },
    ),
    ev("assistant_message", `a${n}`, { text: `done ${AWS_KEY}` }, { turn_id: turn }),
    ev(
      "turn_usage",
      `u${n}`,
      { model: "claude-opus-5-5" },
      {
        turn_id: turn,
        usage: {
          source: "claude-transcript",
          model: "claude-opus-5-5",
          message_id: `msg${n}`,
          input_tokens: 10,
          output_tokens: 5,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 20,
        },
      },
    ),
  ];
}

describe("invoke_agent: one trace per turn", () => {
  it("a root per user prompt, with the agent, conversation, session, model and the turn's usage", () => {
    const { dir, manifest } = record([
      ev("session_start", "s1", { source: "startup" }),
      ...claudeTurn("t1", 1),
      ...claudeTurn("t2", 2),
      ev("session_end", "e1"),
    ]);
    const turns = mapSession(dir, manifest).turns;
    expect(turns).toHaveLength(2);
    expect(new Set(turns.map((t) => t.traceId)).size).toBe(2);
    const root = turns[0]!.spans[0]!;
    expect(root.parentSpanId).toBeUndefined();
    expect(root.name).toBe("invoke_agent claude-code");
    expect(root.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "claude-code",
      "gen_ai.conversation.id": "sess-1",
      "session.id": "sess-1",
      "prompt.id": "t1",
      "gen_ai.request.model": "claude-opus-5-5",
      "gen_ai.usage.input_tokens": 130,
      "gen_ai.usage.output_tokens": 5,
      "tapedeck.turn.index": 1,
      "tapedeck.turn.id": "t1",
    });
    // An internal invoke_agent span: no vendor, no agent id (a hosted agent's), no cache counts (#242,
    // #289, #469); the chat span under it names the vendor.
    for (const gone of [
      "gen_ai.provider.name",
      "gen_ai.agent.id",
      "gen_ai.usage.cache_read.input_tokens",
      "gen_ai.usage.cache_creation.input_tokens",
      "gen_ai.usage.cache_write.input_tokens",
    ])
      expect(root.attributes).not.toHaveProperty(gone);
    expect(byName(turns[0]!.spans, "chat ")[0]!.attributes["gen_ai.provider.name"]).toBe("anthropic");
    // Every span of the session carries both grouping keys, and Claude's prompt id: its native events'.
    for (const [i, s] of turns.flatMap((t, i) => t.spans.map((s) => [i, s] as const))) {
      expect(s.attributes["gen_ai.conversation.id"]).toBe("sess-1");
      expect(s.attributes["session.id"]).toBe("sess-1");
      expect(s.attributes["prompt.id"]).toBe(`t${i + 1}`);
      expect(s.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(s.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(root.events.map((e) => e.name)).toEqual(["tapedeck.session.start"]);
    // Event ids stay home (some hash the unredacted payload); spans name the archive line by its sequence.
    expect(JSON.stringify(turns)).not.toContain('"p1"');
    expect(root.attributes["tapedeck.event.sequence"]).toBe(2);
    expect(turns[1]!.spans[0]!.events.map((e) => e.name)).toEqual(["tapedeck.session.end"]);
  });

  it("the same archive maps to the same trace and span ids every time; another session to others", () => {
    const events = claudeTurn("t1", 1);
    const a = record(events, "claude", "sess-1");
    const b = record(events, "claude", "sess-2");
    const ids = (x: { dir: string; manifest: Manifest }) =>
      spansOf(x.dir, x.manifest).map((s) => `${s.traceId}/${s.spanId}`);
    expect(ids(a)).toEqual(ids(a));
    expect(ids(a).some((id) => ids(b).includes(id))).toBe(false);
  });

  it("the last turn of an active session stays open; a session_end closes it; a watermark continues", () => {
    const open = record(claudeTurn("t1", 1));
    // The fixture's clock is its own: "now" is just after its last event.
    expect(mapSession(open.dir, open.manifest, { now: clock.now() }).turns.map((t) => t.closed)).toEqual([
      false,
    ]);
    // Idle past the limit: over.
    expect(mapSession(open.dir, open.manifest, { now: clock.now() + 31 * 60_000 }).turns[0]!.closed).toBe(
      true,
    );
    const two = record([...claudeTurn("t1", 1), ...claudeTurn("t2", 2)]);
    const all = mapSession(two.dir, two.manifest, { now: clock.now() }).turns;
    expect(all.map((t) => t.closed)).toEqual([true, false]);
    const rest = mapSession(two.dir, two.manifest, {
      fromOffset: all[0]!.endOffset,
      turnsBefore: 1,
      now: clock.now(),
    }).turns;
    expect(rest).toHaveLength(1);
    expect(rest[0]!.spans.map((s) => s.spanId)).toEqual(all[1]!.spans.map((s) => s.spanId));
    expect(rest[0]!.spans[0]!.attributes["tapedeck.turn.index"]).toBe(2);
  });

  it("replay and experiment runs carry their arm, experiment and baseline on every span", () => {
    const { manifest } = record(claudeTurn("t1", 1));
    const attrs = sessionAttributes({
      ...manifest,
      run_type: "experiment",
      arm: "memory-off",
      experiment_id: "exp-7",
      replay_of_session_id: "claude:base",
    });
    expect(attrs).toMatchObject({
      "tapedeck.run.type": "experiment",
      "tapedeck.arm.name": "memory-off",
      "tapedeck.experiment.id": "exp-7",
      "session.previous_id": "claude:base",
    });
  });
});

describe("chat {model}: one per model response", () => {
  it("Anthropic input tokens include cache reads and writes; a response reported twice counts once", () => {
    const turn = claudeTurn("t1", 1);
    const dup = ev(
      "turn_usage",
      "u1-proxy",
      {},
      { turn_id: "t1", usage: { source: "proxy", message_id: "msg1", input_tokens: 10, output_tokens: 5 } },
    );
    const { dir, manifest } = record([...turn, dup]);
    const chats = byName(spansOf(dir, manifest), "chat ");
    expect(chats).toHaveLength(1);
    expect(chats[0]!.name).toBe("chat claude-opus-5-5");
    expect(chats[0]!.kind).toBe("client");
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.response.id": "msg1",
      "gen_ai.response.model": "claude-opus-5-5",
      "gen_ai.usage.input_tokens": 130,
      "gen_ai.usage.cache_read.input_tokens": 100,
      "gen_ai.usage.cache_write.input_tokens": 20,
      "gen_ai.usage.output_tokens": 5,
    });
    // The name before the conventions' rename only in the dup mode, for one release.
    expect(chats[0]!.attributes).not.toHaveProperty("gen_ai.usage.cache_creation.input_tokens");
    const dupChat = byName(
      mapSession(dir, manifest, { legacyNames: true }).turns.flatMap((t) => t.spans),
      "chat ",
    )[0]!;
    expect(dupChat.attributes).toMatchObject({
      "gen_ai.usage.cache_write.input_tokens": 20,
      "gen_ai.usage.cache_creation.input_tokens": 20,
    });
  });

  it("Codex: input as reported (cached is a subset); a record without a response id is never read as a response's usage", () => {
    const { dir, manifest } = record(
      [
        ev("user_prompt", "p1", { prompt: "go", model: "gpt-mock" }, { turn_id: "t1" }),
        ev(
          "turn_usage",
          "u1",
          {},
          {
            turn_id: "t1",
            usage: {
              source: "codex-transcript",
              message_id: "resp1",
              model: "gpt-mock",
              input_tokens: 1000,
              cache_read_input_tokens: 300,
              output_tokens: 40,
              total_tokens: 1040,
            },
          },
        ),
        ev(
          "turn_usage",
          "u2",
          {},
          {
            turn_id: "t1",
            usage: {
              source: "codex-transcript",
              model: "gpt-mock",
              input_tokens: 90000,
              output_tokens: 4000,
              total_tokens: 94000,
            },
          },
        ),
      ],
      "codex",
    );
    const spans = spansOf(dir, manifest);
    const chats = byName(spans, "chat ");
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.provider.name": "openai",
      "gen_ai.usage.input_tokens": 1000,
      "gen_ai.usage.cache_read.input_tokens": 300,
    });
    expect(chats[1]!.attributes["gen_ai.usage.input_tokens"]).toBeUndefined();
    expect(spans[0]!.attributes["gen_ai.usage.input_tokens"]).toBe(1000);
  });

  it("Gemini: the chat file's cache and reasoning counts fill the hook's responses in order", () => {
    const hook = (id: string, input: number) =>
      ev(
        "turn_usage",
        id,
        { finish_reason: "STOP", model: "gemini-3.8-flash" },
        {
          turn_id: "t1",
          usage: { source: "gemini-hook", model: "gemini-3.8-flash", input_tokens: input, output_tokens: 7 },
        },
      );
    const chat = (id: string, cache: number) =>
      ev(
        "turn_usage",
        id,
        {},
        {
          turn_id: "t1",
          usage: {
            source: "gemini-chat",
            message_id: `m-${id}`,
            model: "gemini-3.8-flash",
            cache_read_input_tokens: cache,
            reasoning_output_tokens: 3,
          },
        },
      );
    const { dir, manifest } = record(
      [
        ev("user_prompt", "p1", { prompt: "hi" }, { turn_id: "t1" }),
        hook("h1", 1000),
        hook("h2", 1100),
        chat("c1", 200),
        chat("c2", 300),
      ],
      "gemini",
    );
    const spans = spansOf(dir, manifest);
    const chats = byName(spans, "chat ");
    expect(chats).toHaveLength(2);
    expect(chats.map((c) => c.attributes["gen_ai.usage.cache_read.input_tokens"])).toEqual([200, 300]);
    expect(chats[0]!.attributes).toMatchObject({
      "gen_ai.provider.name": "gcp.gemini",
      "gen_ai.usage.input_tokens": 1000,
      "gen_ai.response.finish_reasons": ["stop"],
    });
    expect(spans[0]!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 2100 });
    expect(chats.map((c) => c.attributes["gen_ai.usage.reasoning.output_tokens"] ?? 0)).toEqual([
      expect.any(Number),
      expect.any(Number),
    ]);
    // The turn's usage per model, for the usage counters: the filled-in counts included, once.
    const usage = mapSession(dir, manifest).turns[0]!.usage;
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ input: 2100, cacheRead: 500, reasoning: 6 });
  });
});

describe("execute_tool {tool}: a call closed by its result or error", () => {
  it("paired by tool_use_id, failed with error.type, a second report only adds facts; Gemini pairs without an id", () => {
    const { dir, manifest } = record([
      ev("user_prompt", "p1", { prompt: "go" }, { turn_id: "t1" }),
      ev("tool_call", "c1", { tool_name: "Bash", tool_use_id: "tu1", tool_input: { command: "exit 3" } }),
      ev("tool_call", "c2", { tool_name: "Read", tool_input: { file_path: "a" } }),
      ev("tool_result", "r1", { tool_name: "Bash", tool_use_id: "tu1", tool_response: "" }),
      ev("tool_result", "r2", { tool_name: "Read", tool_response: "text" }),
      ev("tool_error", "r1b", { tool_name: "Bash", tool_use_id: "tu1", exit_code: 3, error: "Exit code 3" }),
    ]);
    const tools = byName(spansOf(dir, manifest), "execute_tool ");
    expect(tools.map((t) => t.name)).toEqual(["execute_tool Bash", "execute_tool Read"]);
    const [bash, read] = tools;
    expect(bash!.parentSpanId).toBe(spansOf(dir, manifest)[0]!.spanId);
    expect(bash!.attributes).toMatchObject({
      "gen_ai.tool.name": "Bash",
      "gen_ai.tool.call.id": "tu1",
      "error.type": "tool_error",
      "tapedeck.tool.exit_code": 3,
    });
    expect(bash!.status.code).toBe("error");
    expect(read!.status.code).toBe("unset");
    expect(read!.endMs).toBeGreaterThan(read!.startMs);
    expect(read!.attributes["error.type"]).toBeUndefined();
  });
});

describe("subagents: a nested invoke_agent under the call that spawned it", () => {
  it("Claude's Agent call is the parent; the subagent's own calls and responses are its children", () => {
    const { dir, manifest } = record([
      ev("user_prompt", "p1", { prompt: "go" }, { turn_id: "t1" }),
      ev("tool_call", "c1", { tool_name: "Agent", tool_use_id: "tu1", tool_input: { prompt: "sub task" } }),
      ev("subagent_start", "sa", { agent_id: "ag1", agent_type: "general-purpose" }, { agent_id: "ag1" }),
      ev("tool_call", "c2", { tool_name: "Bash", tool_use_id: "tu2" }, { agent_id: "ag1" }),
      ev("tool_result", "r2", { tool_name: "Bash", tool_use_id: "tu2" }, { agent_id: "ag1" }),
      ev("subagent_stop", "ss", { agent_id: "ag1", last_assistant_message: "sub done" }, { agent_id: "ag1" }),
      ev(
        "turn_usage",
        "u1",
        {},
        {
          agent_id: "ag1",
          usage: {
            source: "claude-transcript",
            message_id: "m1",
            model: "claude-opus-5-5",
            input_tokens: 4,
            output_tokens: 2,
          },
        },
      ),
      ev("tool_result", "r1", { tool_name: "Agent", tool_use_id: "tu1" }),
    ]);
    const spans = spansOf(dir, manifest);
    const agentCall = spans.find((s) => s.name === "execute_tool Agent")!;
    const sub = spans.find((s) => s.name === "invoke_agent general-purpose")!;
    expect(sub.parentSpanId).toBe(agentCall.spanId);
    expect(sub.attributes).not.toHaveProperty("gen_ai.agent.id");
    expect(sub.attributes).toMatchObject({
      "tapedeck.agent.id": "ag1",
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.usage.input_tokens": 4,
    });
    expect(spans.find((s) => s.name === "execute_tool Bash")!.parentSpanId).toBe(sub.spanId);
    expect(spans.find((s) => s.name.startsWith("chat "))!.parentSpanId).toBe(sub.spanId);
    // The subagent's usage counts for the turn too.
    expect(spans[0]!.attributes["gen_ai.usage.input_tokens"]).toBe(4);
  });

  it("Codex's spawn_agent returns before the child starts: the finished spawner is still the parent", () => {
    const { dir, manifest } = record(
      [
        ev("user_prompt", "p1", { prompt: "go" }, { turn_id: "t1" }),
        ev("tool_call", "c1", { tool_name: "spawn_agent", tool_use_id: "tu1" }),
        ev("tool_result", "r1", { tool_name: "spawn_agent", tool_use_id: "tu1" }),
        ev(
          "subagent_start",
          "sa",
          { agent_id: "th2", agent_type: "default" },
          { agent_id: "th2", turn_id: "child" },
        ),
        ev("user_prompt", "p2", { prompt: "child task" }, { agent_id: "th2", turn_id: "child" }),
      ],
      "codex",
    );
    const turns = mapSession(dir, manifest).turns;
    expect(turns).toHaveLength(1);
    const spawn = turns[0]!.spans.find((s) => s.name === "execute_tool spawn_agent")!;
    expect(turns[0]!.spans.find((s) => s.name === "invoke_agent default")!.parentSpanId).toBe(spawn.spanId);
  });
});

describe("compactions and content", () => {
  it("a compaction is an event on its turn's span; the responses after it say the conversation was compacted", () => {
    const usage = (id: string) =>
      ev(
        "turn_usage",
        `u-${id}`,
        {},
        { turn_id: "t1", usage: { source: "transcript", message_id: id, input_tokens: 1, output_tokens: 1 } },
      );
    const { dir, manifest } = record([
      ev("user_prompt", "p1", { prompt: "go" }, { turn_id: "t1" }),
      usage("before"),
      ev("compaction", "k1", { trigger: "auto", phase: "pre" }),
      usage("after"),
    ]);
    const spans = spansOf(dir, manifest);
    expect(spans[0]!.events).toContainEqual(
      expect.objectContaining({
        name: "tapedeck.compaction",
        attributes: { "tapedeck.compaction.trigger": "auto", "tapedeck.compaction.phase": "pre" },
      }),
    );
    const chats = byName(spans, "chat ");
    expect(chats.map((c) => c.attributes["gen_ai.conversation.compacted"])).toEqual([undefined, true]);
  });

  it("content only with the opt-in, as JSON-string span attributes of redacted text (not span events); redaction counts either way", () => {
    const { dir, manifest } = record(claudeTurn("t1", 1));
    expect(readFileSync(join(dir, "events.jsonl"), "utf8")).not.toContain(AWS_KEY);
    const without = mapSession(dir, manifest).turns;
    const text = JSON.stringify(without);
    expect(text).not.toContain("deploy with");
    expect(text).not.toContain("echo");
    expect(without[0]!.logs).toEqual([]);
    expect(without[0]!.spans[0]!.attributes["tapedeck.turn.redaction.count"]).toBeGreaterThanOrEqual(4);
    const withContent = spansOf(dir, manifest, true);
    // Langfuse ingests no span events and Phoenix reads attributes: the content is where they read.
    expect(withContent.flatMap((s) => s.events).map((e) => e.name)).not.toContain(
      "gen_ai.client.inference.operation.details",
    );
    const root = withContent[0]!;
    expect(JSON.parse(root.attributes["gen_ai.input.messages"] as string)[0].parts[0].content).toMatch(
      /^deploy with \[REDACTED:/,
    );
    expect(JSON.parse(root.attributes["gen_ai.output.messages"] as string)[0].parts[0].content).toMatch(
      /^done \[REDACTED:/,
    );
    const tool = byName(withContent, "execute_tool ")[0]!;
    expect(String(tool.attributes["gen_ai.tool.call.arguments"])).toContain("echo [REDACTED:");
    expect(String(tool.attributes["gen_ai.tool.call.result"])).toMatch(/^\[REDACTED:/);
    expect(JSON.stringify(withContent)).not.toContain(AWS_KEY);
  });

  it("content as logs: one operation-details record per agent span, structured, correlated, bounded; no content on spans", () => {
    const { dir, manifest } = record(claudeTurn("t1", 1));
    const turn = mapSession(dir, manifest, { content: "logs" }).turns[0]!;
    expect(JSON.stringify(turn.spans)).not.toContain("deploy with");
    expect(turn.logs).toHaveLength(1);
    const log = turn.logs[0]!;
    expect(log.eventName).toBe("gen_ai.client.inference.operation.details");
    expect(log.traceId).toBe(turn.traceId);
    expect(log.spanId).toBe(turn.spans[0]!.spanId);
    expect(log.attributes["prompt.id"]).toBe("t1");
    const input = log.attributes["gen_ai.input.messages"] as Array<{ role: string; parts: unknown[] }>;
    expect(input.map((m) => m.role)).toEqual(["user", "tool"]);
    expect(JSON.stringify(input)).toContain("deploy with [REDACTED:");
    const output = log.attributes["gen_ai.output.messages"] as Array<{ parts: Array<{ type: string }> }>;
    expect(output[0]!.parts.map((p) => p.type)).toEqual(["tool_call", "text"]);
    expect(JSON.stringify(turn)).not.toContain(AWS_KEY);
    // A turn of many large tool results: the record stays bounded and says what it left out.
    const big = "x".repeat(20_000);
    const many = Array.from({ length: 40 }, (_, i) => [
      ev(
        "tool_call",
        `bc${i}`,
        { tool_name: "Read", tool_input: { path: `f${i}` }, tool_use_id: `b${i}` },
        { turn_id: "t9" },
      ),
      ev(
        "tool_result",
        `br${i}`,
        { tool_name: "Read", tool_use_id: `b${i}`, tool_response: big },
        { turn_id: "t9" },
      ),
    ]).flat();
    const large = record(
      [ev("user_prompt", "p9", { prompt: "read all" }, { turn_id: "t9" }), ...many],
      "claude",
      "sess-big",
    );
    const bounded = mapSession(large.dir, large.manifest, { content: "logs", now: Number.POSITIVE_INFINITY })
      .turns[0]!.logs[0]!;
    expect(JSON.stringify(bounded).length).toBeLessThan(300 * 1024);
    expect(bounded.attributes["tapedeck.content.tool_calls_left_out"]).toBeGreaterThan(0);
  });
});

describe("semconv pin", () => {
  it("the schema URL is stamped on the instrumentation scope and the resource; the opt-in variable is read", () => {
    const { dir, manifest } = record(claudeTurn("t1", 1));
    const body = encodeSpans(
      { resource: { "service.name": "tapedeck" }, scopeVersion: "1.0.0", spans: spansOf(dir, manifest) },
      "http/json",
    );
    const req = JSON.parse(Buffer.from(body).toString("utf8"));
    expect(req.resourceSpans[0].scopeSpans[0].schemaUrl).toBe(SCHEMA_URL);
    expect(req.resourceSpans[0].scopeSpans[0].scope.name).toBe("tapedeck");
    expect(SCHEMA_URL).toBe("https://opentelemetry.io/schemas/gen-ai-dev/1.42.0-dev");
    expect(stabilityMode({ OTEL_SEMCONV_STABILITY_OPT_IN: " gen_ai_latest_experimental ,http" })).toEqual({
      genai: "latest",
      requested: ["gen_ai_latest_experimental", "http"],
    });
    expect(stabilityMode({ OTEL_SEMCONV_STABILITY_OPT_IN: "gen_ai_latest_experimental/dup" }).genai).toBe(
      "dup",
    );
  });
});

describe("hostile archives", () => {
  it("lines that are not events are skipped; a huge tool name is cut in the span name and attribute", () => {
    const { dir, manifest } = record([
      ev("user_prompt", "p1", { prompt: "go" }, { turn_id: "t1" }),
      ev("tool_call", "c1", { tool_name: "X".repeat(10_000), tool_use_id: "tu1" }),
    ]);
    appendFileSync(join(dir, "events.jsonl"), 'not json\n{"sequence":"x"}\n\u0000\u0001binary\n[]\n');
    const spans = spansOf(dir, manifest);
    expect(spans.map((s) => s.name.length)).toEqual([24, 256]);
    expect(String(spans[1]!.attributes["gen_ai.tool.name"]).length).toBe(256);
  });
});
