// Export with a watermark against the in-repo OTLP receiver: each closed turn is accepted once, a failure
// (429, 503, connection cut, no answer in time, a permanent 400) loses nothing and moves nothing, and a
// rerun after a crash sends the same ids again.
import { appendFileSync, lstatSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { type Endpoint, resolveEndpoint } from "../../src/otel/endpoint.ts";
import { mapSession, readManifest } from "../../src/otel/map.ts";
import { encodeSpans } from "../../src/otel/otlp.ts";
import { exportRefs, progressLine, resolveRun } from "../../src/otel/run.ts";
import { exportSession } from "../../src/otel/spool.ts";
import { backlog, readWatermark } from "../../src/otel/watermark.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { identity, spec, useTempProjects } from "../helpers/session.ts";
import { decode, type Receiver, startReceiver } from "./receiver.ts";

const project = useTempProjects();
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const clock = eventClock();
const { tick, ev } = clock;

function turn(n: number): NormalizedEvent[] {
  return [
    ev("user_prompt", `p${n}`, { prompt: `prompt ${n}` }, { turn_id: `t${n}` }),
    ev("tool_call", `c${n}`, { tool_name: "Bash", tool_use_id: `tu${n}` }, { turn_id: `t${n}` }),
    ev("tool_result", `r${n}`, { tool_name: "Bash", tool_use_id: `tu${n}` }, { turn_id: `t${n}` }),
    ev(
      "turn_usage",
      `u${n}`,
      {},
      {
        turn_id: `t${n}`,
        usage: {
          source: "claude-transcript",
          message_id: `m${n}`,
          model: "claude-opus-5-5",
          input_tokens: 1,
          output_tokens: 2,
        },
      },
    ),
  ];
}

function session(events: NormalizedEvent[]) {
  const root = project();
  const s = spec(root, { identity: identity("sess-1", "claude") });
  const dir = recordEvents(s, events, tick).sessionDir;
  return { root, dir, s };
}

const waits: number[] = [];
const fast = { attempts: 3, baseDelayMs: 1, maxDelayMs: 4, sleep: async (ms: number) => void waits.push(ms) };

function run(root: string, extra: Partial<Endpoint> = {}) {
  const r = resolveRun(root, "9.9.9", { endpoint: receiver.tracesUrl, retry: fast })!;
  Object.assign(r.context.endpoint, extra);
  // The fixture's clock is its own: "now" is just after its last event.
  r.context.now = clock.now;
  return r.context;
}

async function exportNow(root: string, dir: string, extra: Partial<Endpoint> = {}, force = false) {
  return exportSession(run(root, extra), dir, readManifest(dir)!, force ? { force } : {});
}

/** An export of the session with options: content on, --resend, --content given by hand. */
async function exportWith(
  root: string,
  dir: string,
  opts: { content?: boolean; resend?: boolean; addContent?: boolean },
) {
  const ctx = run(root);
  ctx.content = opts.content === true ? "attributes" : "off";
  return exportSession(ctx, dir, readManifest(dir)!, {
    ...(opts.resend ? { resend: true } : {}),
    ...(opts.addContent ? { addContent: true } : {}),
  });
}

const withDetails = () => receiver.spans().filter((s) => s.attributes["gen_ai.input.messages"] !== undefined);

function received(): string[] {
  return receiver.spans().map((s) => s.spanId);
}

describe("export with a watermark", () => {
  it("sends each closed turn once: the open one waits, a rerun sends nothing, a new turn only itself", async () => {
    receiver.requests.length = 0;
    const { root, dir, s } = session([...turn(1), ...turn(2)]);
    const first = await exportNow(root, dir);
    expect(first).toMatchObject({ turns: 1, spans: 3, requests: 1, open_turn: true, error: null });
    const spans = receiver.spans();
    expect(spans.map((x) => x.name)).toEqual([
      "invoke_agent claude-code",
      "execute_tool Bash",
      "chat claude-opus-5-5",
    ]);
    expect(spans[1]!.parentSpanId).toBe(spans[0]!.spanId);
    expect(spans[0]!.scope).toMatchObject({
      name: "tapedeck",
      version: "9.9.9",
      schemaUrl: expect.stringContaining("gen-ai-dev"),
    });
    expect(spans[0]!.resource["service.name"]).toBe("tapedeck");
    expect(receiver.requests[0]!.contentType).toBe("application/x-protobuf");
    expect((await exportNow(root, dir)).spans).toBe(0);
    // The session ends: the second turn closes and goes alone.
    recordEvents(s, [ev("session_end", "end")], tick);
    expect(await exportNow(root, dir)).toMatchObject({ turns: 1, spans: 3, open_turn: false });
    expect(new Set(received()).size).toBe(6);
    expect((await exportNow(root, dir)).requests).toBe(0);
    // The state is private and never reached through a link.
    const otelDir = join(root, ".tapedeck", "otel");
    expect(lstatSync(otelDir).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(otelDir)) expect(lstatSync(join(otelDir, f)).mode & 0o777).toBe(0o600);
    expect(readWatermark(root, "claude:sess-1", { url: receiver.tracesUrl })).toMatchObject({
      turns: 2,
      spans: 6,
      in_flight: null,
    });
  });

  it("a crash after the send but before the watermark moved sends the same ids again (the backend keeps one)", async () => {
    receiver.requests.length = 0;
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    await exportNow(root, dir);
    const once = received();
    // What a crash leaves: the request range written down as in flight, the watermark where it was.
    const stateDir = join(root, ".tapedeck", "otel");
    const [file] = readdirSync(stateDir);
    const w = readWatermark(root, "claude:sess-1", { url: receiver.tracesUrl });
    writeFileSync(
      join(stateDir, file!),
      JSON.stringify({ ...w, offset: 0, turns: 0, spans: 0, in_flight: { from: 0, to: w.offset, turns: 1 } }),
    );
    await exportNow(root, dir);
    expect(received()).toEqual([...once, ...once]);
    expect(new Set(received()).size).toBe(once.length);
  });

  it("429 then 503: retried with the server's Retry-After, every span accepted once", async () => {
    receiver.requests.length = 0;
    waits.length = 0;
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    receiver.behave({ kind: "status", status: 429, times: 1, retryAfter: "2" });
    const before = receiver.attempts;
    const r = await exportNow(root, dir);
    receiver.behave({ kind: "ok" });
    expect(r).toMatchObject({ spans: 3, error: null });
    expect(receiver.attempts - before).toBe(2);
    expect(waits[0]).toBe(2000);
    receiver.behave({ kind: "status", status: 503, times: 2 });
    const { root: root2, dir: dir2 } = session([...turn(1), ev("session_end", "end")]);
    expect(await exportNow(root2, dir2)).toMatchObject({ spans: 3, error: null });
    receiver.behave({ kind: "ok" });
  });

  for (const [label, behaviour, extra] of [
    ["answering 503 past every retry", { kind: "status", status: 503, times: 99 }, {}],
    ["down (connection cut)", { kind: "down" }, {}],
    ["too slow to answer in time", { kind: "slow", ms: 300 }, { timeoutMs: 50 }],
  ] as const) {
    it(`the endpoint ${label}: nothing lost, the watermark unmoved, the next run sends it all`, async () => {
      receiver.requests.length = 0;
      const { root, dir } = session([...turn(1), ...turn(2), ev("session_end", "end")]);
      receiver.behave({ ...behaviour });
      const failed = await exportNow(root, dir, extra);
      receiver.behave({ kind: "ok" });
      expect(failed.error).toBeTruthy();
      expect(failed.error).not.toContain("prompt");
      expect(failed.backlog_turns).toBe(2);
      const w = readWatermark(root, "claude:sess-1", { url: receiver.tracesUrl });
      expect(w).toMatchObject({ offset: 0, failures: 1, in_flight: null });
      expect(w.next_attempt_at).not.toBeNull();
      // Backing off: a run before the time skips it; --force (or the time passing) sends it.
      expect((await exportNow(root, dir)).skipped).toBe("backing off");
      expect(backlog(root, { url: receiver.tracesUrl }, [{ manifest: readManifest(dir)! }])).toMatchObject({
        pending_sessions: 1,
        last_error: failed.error,
      });
      const slowAccepted = receiver.spans().length;
      const again = await exportNow(root, dir, {}, true);
      expect(again).toMatchObject({ turns: 2, spans: 6, error: null });
      // A slow server may have accepted the first attempt after the client gave up: the same ids again.
      const ids = received();
      expect(new Set(ids).size).toBe(6);
      expect(ids.length).toBe(slowAccepted + 6);
      expect(
        backlog(root, { url: receiver.tracesUrl }, [{ manifest: readManifest(dir)! }]).pending_sessions,
      ).toBe(0);
    });
  }

  it("a permanent 400 is not retried", async () => {
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    receiver.behave({ kind: "status", status: 400, times: 1 });
    const before = receiver.attempts;
    const r = await exportNow(root, dir);
    receiver.behave({ kind: "ok" });
    expect(receiver.attempts - before).toBe(1);
    expect(r.error).toContain("HTTP 400");
  });

  it("http/json with gzip, and a chunked protobuf body, decode to the same spans", async () => {
    receiver.requests.length = 0;
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    await exportNow(root, dir, { protocol: "http/json", gzip: true });
    const req = receiver.requests.at(-1)!;
    expect(req).toMatchObject({ contentType: "application/json", contentEncoding: "gzip" });
    const mapped = mapSession(dir, readManifest(dir)!).turns[0]!.spans;
    expect(req.spans.map((s) => s.spanId)).toEqual(mapped.map((s) => s.spanId));
    const body = Buffer.from(
      encodeSpans({ resource: {}, scopeVersion: "1", spans: mapped }, "http/protobuf"),
    );
    await new Promise<void>((resolve, reject) => {
      const r = http.request(
        receiver.tracesUrl,
        { method: "POST", headers: { "content-type": "application/x-protobuf" } },
        (res) => {
          res.resume();
          res.on("end", () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      // Two writes and no length: Node sends it chunked.
      r.write(body.subarray(0, 10));
      r.end(body.subarray(10));
    });
    expect(receiver.requests.at(-1)!.chunked).toBe(true);
    expect(receiver.requests.at(-1)!.spans.map((s) => s.spanId)).toEqual(mapped.map((s) => s.spanId));
    expect(decode("application/x-protobuf", body)[0]!.attributes["gen_ai.operation.name"]).toBe(
      "invoke_agent",
    );
  });

  it("an archive line torn mid-write is not read; the turn before it is exported whole", async () => {
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    appendFileSync(join(dir, "events.jsonl"), '{"sequence":99,"kind":"user_pro');
    expect((await exportNow(root, dir)).spans).toBe(3);
  });
});

describe("sending again", () => {
  it("--resend repeats every accepted turn with the same trace and span ids; the watermark stays", async () => {
    receiver.requests.length = 0;
    const { root, dir, s } = session([...turn(1), ...turn(2), ev("session_end", "end")]);
    await exportNow(root, dir);
    const once = receiver.spans().map((x) => `${x.traceId}/${x.spanId}`);
    expect(once).toHaveLength(6);
    const before = readWatermark(root, "claude:sess-1", { url: receiver.tracesUrl });
    // A wiped backend: nothing new in the archive, so a plain export sends nothing; --resend all of it.
    expect((await exportNow(root, dir)).spans).toBe(0);
    const again = await exportWith(root, dir, { resend: true });
    expect(again).toMatchObject({ turns: 2, spans: 6, resent_turns: 2, resent_spans: 6, error: null });
    const all = receiver.spans().map((x) => `${x.traceId}/${x.spanId}`);
    expect(all.slice(6)).toEqual(once);
    // The same spans, attribute for attribute (turn numbers included).
    expect(
      receiver
        .spans()
        .slice(6)
        .map((x) => x.attributes),
    ).toEqual(
      receiver
        .spans()
        .slice(0, 6)
        .map((x) => x.attributes),
    );
    const after = readWatermark(root, "claude:sess-1", { url: receiver.tracesUrl });
    expect(after).toMatchObject({ offset: before.offset, turns: 2, spans: 6, in_flight: null });
    // New turns after a resend are sent once, numbered on.
    recordEvents(s, turn(3), tick);
    recordEvents(s, [ev("session_end", "end2")], tick);
    const next = await exportWith(root, dir, { resend: true });
    expect(next).toMatchObject({ spans: 9, resent_spans: 6 });
    expect(receiver.spans().at(-3)!.attributes["tapedeck.turn.index"]).toBe(3);
  });

  it("--content for turns sent without it sends them again with it, same ids, once", async () => {
    receiver.requests.length = 0;
    const { root, dir } = session([...turn(1), ...turn(2), ev("session_end", "end")]);
    await exportNow(root, dir);
    const ids = received();
    expect(withDetails()).toHaveLength(0);
    const added = await exportWith(root, dir, { content: true, addContent: true });
    expect(added).toMatchObject({ spans: 6, resent_spans: 6, error: null });
    expect(received().slice(6)).toEqual(ids);
    expect(withDetails().length).toBeGreaterThan(0);
    expect(String(withDetails()[0]!.attributes["gen_ai.input.messages"])).toContain("prompt 1");
    // They have their content now: asking again sends nothing.
    expect(await exportWith(root, dir, { content: true, addContent: true })).toMatchObject({ spans: 0 });
    // Content from the config alone (the hook server's run) never resends by itself.
    const other = session([...turn(1), ev("session_end", "end")]);
    await exportNow(other.root, other.dir);
    expect(await exportWith(other.root, other.dir, { content: true })).toMatchObject({ spans: 0 });
  });

  it("turns sent with content, then without, then --content: only the ones that lacked it go again", async () => {
    receiver.requests.length = 0;
    const { root, dir, s } = session([...turn(1)]);
    recordEvents(s, [...turn(2)], tick);
    // Turn 1 closes (turn 2 opened) and goes with content; turn 2 goes later without.
    await exportWith(root, dir, { content: true });
    recordEvents(s, [ev("session_end", "end")], tick);
    await exportWith(root, dir, {});
    expect(received()).toHaveLength(6);
    const r = await exportWith(root, dir, { content: true, addContent: true });
    expect(r).toMatchObject({ resent_turns: 1, resent_spans: 3 });
    expect(receiver.spans().at(-3)!.attributes["tapedeck.turn.index"]).toBe(2);
  });

  it("a watermark written before the content prefix was kept counts as sent without content", async () => {
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    await exportNow(root, dir);
    const stateDir = join(root, ".tapedeck", "otel");
    const [file] = readdirSync(stateDir);
    const { content: _dropped, ...legacy } = readWatermark(root, "claude:sess-1", {
      url: receiver.tracesUrl,
    });
    writeFileSync(join(stateDir, file!), JSON.stringify(legacy));
    expect(await exportWith(root, dir, { content: true, addContent: true })).toMatchObject({
      resent_spans: 3,
    });
  });

  it("a resend to an endpoint that is down fails first and moves nothing", async () => {
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    await exportNow(root, dir);
    const before = readWatermark(root, "claude:sess-1", { url: receiver.tracesUrl });
    receiver.behave({ kind: "down" });
    const r = await exportWith(root, dir, { resend: true });
    receiver.behave({ kind: "ok" });
    expect(r).toMatchObject({ spans: 0, resent_spans: 0 });
    expect(r.error).toContain("connection failed");
    expect(progressLine(r)).toMatch(/^claude:sess-1: failed, nothing sent: .*connection failed/);
    expect(readWatermark(root, "claude:sess-1", { url: receiver.tracesUrl }).offset).toBe(before.offset);
  });
});

describe("progress lines", () => {
  const base = {
    session_id: "claude:s",
    turns: 0,
    spans: 0,
    resent_turns: 0,
    resent_spans: 0,
    requests: 0,
    bytes: 0,
    log_records: 0,
    metric_points: 0,
    backlog_turns: 2,
    open_turn: false,
    error: "http://127.0.0.1:9: connection failed",
  };
  it("say a failure before the counts when nothing went out, and what waits", () => {
    expect(progressLine(base)).toBe(
      "claude:s: failed, nothing sent: http://127.0.0.1:9: connection failed; 2 turn(s) stay in the backlog",
    );
    expect(progressLine({ ...base, turns: 1, spans: 3, backlog_turns: 1 })).toBe(
      "claude:s: failed after 1 turn(s), 3 span(s): http://127.0.0.1:9: connection failed; 1 turn(s) stay in the backlog",
    );
    expect(progressLine({ ...base, error: null, turns: 2, spans: 6, resent_spans: 6 })).toBe(
      "claude:s: 2 turn(s), 6 span(s) (6 sent again)",
    );
  });
});

describe("long sessions and broken ones", () => {
  it("a session longer than a round is mapped and sent in rounds of whole turns, all of it once", async () => {
    receiver.requests.length = 0;
    const { root, dir } = session([
      ...turn(1),
      ...turn(2),
      ...turn(3),
      ...turn(4),
      ...turn(5),
      ev("session_end", "end"),
    ]);
    const ctx = run(root);
    ctx.maxSpansPerRound = 4;
    expect(mapSession(dir, readManifest(dir)!, { maxSpans: 4, now: clock.now() })).toMatchObject({
      more: true,
      turns: [{}, {}],
    });
    const r = await exportSession(ctx, dir, readManifest(dir)!);
    expect(r).toMatchObject({ turns: 5, spans: 15, error: null });
    expect(receiver.requests.length).toBeGreaterThanOrEqual(3);
    expect(new Set(received()).size).toBe(15);
  });

  it("one session that cannot be read does not stop the others", async () => {
    receiver.requests.length = 0;
    const a = session([...turn(1), ev("session_end", "end")]);
    const b = session([...turn(1), ev("session_end", "end")]);
    rmSync(join(a.dir, "events.jsonl"));
    const refs = [a, b].map((x) => ({
      dir: x.dir,
      root: x.root,
      manifest: readManifest(x.dir)!,
      spooled_events: 0,
    }));
    const results = await exportRefs({ endpoint: run(b.root).endpoint, context: run(b.root) }, refs);
    expect(results[0]!.error).toMatch(/^cannot export/);
    expect(results[1]).toMatchObject({ spans: 3, error: null });
  });
});

describe("the endpoint", () => {
  it("reads the standard variables, adds /v1/traces to the generic one, and refuses grpc and credentials in the URL", () => {
    expect(resolveEndpoint({}, undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" })!.url).toBe(
      "http://c:4318/v1/traces",
    );
    const e = resolveEndpoint({}, undefined, {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://x/api/public/otel/v1/traces",
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20abc,x-a=1",
      OTEL_EXPORTER_OTLP_COMPRESSION: "gzip",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    })!;
    expect(e).toMatchObject({
      url: "https://x/api/public/otel/v1/traces",
      protocol: "http/json",
      gzip: true,
    });
    // Langfuse's endpoint gets its ingestion version header.
    expect(e.headers).toEqual({
      authorization: "Basic abc",
      "x-a": "1",
      "x-langfuse-ingestion-version": "4",
    });
    expect(() =>
      resolveEndpoint({ protocol: "grpc" }, undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c" }),
    ).toThrow(/grpc/);
    expect(() => resolveEndpoint({ endpoint: "http://u:p@c/v1/traces" }, undefined, {})).toThrow(
      /credentials/,
    );
    expect(resolveEndpoint({}, undefined, {})).toBeUndefined();
  });

  it("sends each source's headers only to the URL that source names", () => {
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://mine.example",
      OTEL_EXPORTER_OTLP_HEADERS: "Authorization=Basic%20users-own",
    };
    // A project's config (which can come with a cloned repository) names another endpoint: the user's
    // environment credentials stay home.
    const planted = resolveEndpoint({}, { endpoint: "https://planted.example/v1/traces" }, env)!;
    expect(planted).toMatchObject({ source: "config", headers: {} });
    // So does a flag's endpoint, and the config's own headers go only to the config's endpoint.
    const config = { endpoint: "https://team.example/v1/traces", headers: { Authorization: "Basic team" } };
    expect(
      resolveEndpoint({ endpoint: "https://elsewhere.example/v1/traces" }, config, env)!.headers,
    ).toEqual({});
    expect(resolveEndpoint({ endpoint: config.endpoint }, config, env)!.headers).toEqual({
      authorization: "Basic team",
    });
    expect(resolveEndpoint({}, undefined, env)).toMatchObject({
      source: "env",
      headers: { authorization: "Basic users-own" },
    });
  });
});
