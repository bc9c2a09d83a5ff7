// The other two signals beside the traces: content as operation-details log records to /v1/logs (the
// choice per endpoint, Langfuse refused), and the usage counters to /v1/metrics, the same points on every
// export of the same archive prefix; user-named resource attributes, and user.id only when named.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { EndpointError, resolveEndpoint } from "../../src/otel/endpoint.ts";
import { readManifest } from "../../src/otel/map.ts";
import { resolveRun } from "../../src/otel/run.ts";
import { exportSession } from "../../src/otel/spool.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { identity, spec, useTempProjects } from "../helpers/session.ts";
import { type Receiver, startReceiver } from "./receiver.ts";

const project = useTempProjects();
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver.close());

const clock = eventClock();
const { tick, ev } = clock;
const fast = { attempts: 2, baseDelayMs: 1, maxDelayMs: 2, sleep: async () => {} };

function turn(n: number): NormalizedEvent[] {
  const t = { turn_id: `t${n}` };
  return [
    ev("user_prompt", `p${n}`, { prompt: `secret plan ${n}` }, t),
    ev(
      "tool_call",
      `c${n}`,
      { tool_name: "Bash", tool_input: { command: `ls ${n}` }, tool_use_id: `tu${n}` },
      t,
    ),
    ev(
      "tool_result",
      `r${n}`,
      { tool_name: "Bash", tool_use_id: `tu${n}`, tool_response: { stdout: `out ${n}` } },
      t,
    ),
    ev(
      "turn_usage",
      `u${n}`,
      {},
      {
        ...t,
        usage: {
          source: "claude-transcript",
          message_id: `m${n}`,
          model: "claude-opus-5-5",
          input_tokens: 10,
          output_tokens: 2,
          cache_read_input_tokens: 100,
          cache_creation_input_tokens: 5,
        },
      },
    ),
    ev("assistant_message", `a${n}`, { text: `answer ${n}` }, t),
  ];
}

function session(events: NormalizedEvent[]) {
  const root = project();
  const s = spec(root, { identity: identity("sess-1", "claude") });
  const dir = recordEvents(s, events, tick).sessionDir;
  return { root, dir, s };
}

function context(
  root: string,
  opts: Parameters<typeof resolveRun>[2] = {},
  env: Record<string, string> = {},
) {
  const r = resolveRun(
    root,
    "9.9.9",
    { endpoint: receiver.tracesUrl, protocol: "http/json", retry: fast, ...opts },
    env,
  )!;
  r.context.now = clock.now;
  return r.context;
}

/** Every body this receiver kept since the test cleared it: the traces' and the other signals'. */
const received = () =>
  Buffer.concat([...receiver.requests.map((r) => r.body), ...receiver.signals.map((x) => x.body)]).toString(
    "latin1",
  );

const json = (i: number, path: string) =>
  receiver.signals.filter((x) => x.path.endsWith(path)).map((x) => JSON.parse(x.body.toString("utf8")))[i];

describe("content as log records", () => {
  it("--content-as logs: spans without content, one record per agent span to /v1/logs, same trace and span ids", async () => {
    receiver.requests.length = 0;
    receiver.signals.length = 0;
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    const r = await exportSession(context(root, { contentAs: "logs" }), dir, readManifest(dir)!);
    expect(r).toMatchObject({ error: null, log_records: 1 });
    expect(Buffer.concat(receiver.requests.map((q) => q.body)).toString("latin1")).not.toContain(
      "secret plan",
    );
    const req = json(0, "/v1/logs");
    const rec = req.resourceLogs[0].scopeLogs[0].logRecords[0];
    expect(rec.eventName).toBe("gen_ai.client.inference.operation.details");
    const root0 = receiver.spans()[0]!;
    // OTLP/JSON ids are hex.
    expect(rec.traceId).toBe(root0.traceId);
    expect(rec.spanId).toBe(root0.spanId);
    expect(JSON.stringify(rec)).toContain("secret plan 1");
    expect(JSON.stringify(rec)).toContain("out 1");
  });

  it("without --content nothing of the prompt goes anywhere; Langfuse takes content as attributes only", async () => {
    receiver.signals.length = 0;
    receiver.requests.length = 0;
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    await exportSession(context(root, { metrics: true }), dir, readManifest(dir)!);
    expect(received()).not.toContain("secret plan");
    expect(received()).toContain("claude-opus-5-5");
    expect(receiver.signals.every((x) => x.path.endsWith("/v1/metrics"))).toBe(true);
    const langfuse = { endpoint: "https://cloud.langfuse.com/api/public/otel/v1/traces" };
    expect(() => resolveRun(root, "1", { ...langfuse, contentAs: "logs" }, {})).toThrow(EndpointError);
    expect(() => resolveRun(root, "1", { ...langfuse, metrics: true }, {})).toThrow(EndpointError);
    expect(resolveRun(root, "1", { ...langfuse, content: true }, {})!.context.content).toBe("attributes");
    expect(() => resolveRun(root, "1", { endpoint: receiver.tracesUrl, contentAs: "events" }, {})).toThrow(
      EndpointError,
    );
  });

  it("the logs and metrics URLs sit beside the traces URL; the environment's signal variables win", () => {
    const e = resolveEndpoint({ endpoint: "http://c:4318/v1/traces" }, undefined, {})!;
    expect([e.logsUrl, e.metricsUrl]).toEqual(["http://c:4318/v1/logs", "http://c:4318/v1/metrics"]);
    const env = resolveEndpoint({}, undefined, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/otlp",
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: "http://loki:3100/otlp/v1/logs",
    })!;
    expect([env.url, env.logsUrl, env.metricsUrl]).toEqual([
      "http://c:4318/otlp/v1/traces",
      "http://loki:3100/otlp/v1/logs",
      "http://c:4318/otlp/v1/metrics",
    ]);
  });
});

describe("usage counters", () => {
  it("cumulative per model from the session's start; a re-export sends the very same points", async () => {
    receiver.signals.length = 0;
    const { root, dir, s } = session([...turn(1), ...turn(2)]);
    recordEvents(s, [ev("session_end", "end")], tick);
    const first = await exportSession(context(root, { metrics: true }), dir, readManifest(dir)!);
    expect(first).toMatchObject({ error: null, metric_points: 5 });
    const req = json(0, "/v1/metrics");
    expect(req.resourceMetrics[0].resource.attributes).toContainEqual({
      key: "service.instance.id",
      value: { stringValue: "claude:sess-1" },
    });
    const metrics = req.resourceMetrics[0].scopeMetrics[0].metrics;
    const input = metrics.find(
      (m: { name: string }) => m.name === "gen_ai.client.inference.usage.input_tokens",
    );
    expect(input.unit).toBe("{token}");
    expect(input.sum.isMonotonic).toBe(true);
    expect(input.sum.aggregationTemporality).toBe(2);
    // Two responses of 10 + 100 cached + 5 written input tokens each.
    expect(input.sum.dataPoints).toHaveLength(1);
    expect(Number(input.sum.dataPoints[0].asInt)).toBe(230);
    const write = metrics.find((m: { name: string }) => m.name.endsWith("cache_write.input_tokens"));
    expect(Number(write.sum.dataPoints[0].asInt)).toBe(10);
    expect(input.sum.dataPoints[0].attributes).toContainEqual({
      key: "gen_ai.request.model",
      value: { stringValue: "claude-opus-5-5" },
    });
    // Nothing new: nothing sent. --resend: the same bytes again, which a backend takes as the same point.
    expect(
      (await exportSession(context(root, { metrics: true }), dir, readManifest(dir)!)).metric_points,
    ).toBe(0);
    await exportSession(context(root, { metrics: true }), dir, readManifest(dir)!, { resend: true });
    const bodies = receiver.signals
      .filter((x) => x.path.endsWith("/v1/metrics"))
      .map((x) => x.body.toString());
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toBe(bodies[0]);
  });

  it("a collector without a metrics pipeline: the traces are in, the counters wait for the next run", async () => {
    receiver.signals.length = 0;
    receiver.refuseSignals(true);
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    const r = await exportSession(context(root, { metrics: true }), dir, readManifest(dir)!);
    expect(r.spans).toBeGreaterThan(0);
    expect(r.error).toMatch(/^metrics: .* HTTP 404/);
    receiver.refuseSignals(false);
    const again = await exportSession(context(root, { metrics: true }), dir, readManifest(dir)!, {
      force: true,
    });
    expect(again).toMatchObject({ spans: 0, metric_points: 5, error: null });
  });
});

describe("resource attributes the user names", () => {
  it("OTEL_RESOURCE_ATTRIBUTES and otel.resource_attributes reach the resource; tapedeck's own keys win; no user.id unless named", async () => {
    receiver.requests.length = 0;
    const { root, dir } = session([...turn(1), ev("session_end", "end")]);
    await exportSession(context(root), dir, readManifest(dir)!);
    expect(Object.keys(receiver.spans()[0]!.resource)).not.toContain("user.id");
    receiver.requests.length = 0;
    const env = { OTEL_RESOURCE_ATTRIBUTES: "user.id=alice%40example.com,service.name=evil,bad key=x" };
    await exportSession(context(root, {}, env), dir, readManifest(dir)!, { resend: true });
    expect(receiver.spans()[0]!.resource).toMatchObject({
      "user.id": "alice@example.com",
      "service.name": "tapedeck",
    });
    expect(Object.keys(receiver.spans()[0]!.resource)).not.toContain("bad key");
  });
});
