// @module-tag phoenix
// @module-tag jaeger
// @module-tag otelcol
/**
 * End to end against the real receivers a team runs (scripts/test-receivers.mjs installs them): a recorded
 * session exported by the built CLI to Arize Phoenix, and through an OpenTelemetry Collector (its file
 * exporter writing everything it got) to Jaeger v2. Asserted through each one's own API or store: every
 * turn, tool call and model response, with its parent; the prompt and answer with --content, where the
 * documented choice puts them (span attributes by default, log records with --content-as logs); the usage
 * counters through the Collector unchanged; no prompt text anywhere without --content (each receiver's
 * store grepped); a re-export with the same ids duplicating nothing.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NormalizedEvent } from "../../src/core/archive/event.ts";
import { recordEvents } from "../../src/core/archive/session-store.ts";
import { runCli } from "../helpers/cli-run.ts";
import { eventClock } from "../helpers/event-clock.ts";
import { identity, spec, tempProject } from "../helpers/session.ts";
import {
  type Collector,
  getJson,
  installed,
  type Jaeger,
  type Phoenix,
  startCollector,
  startJaeger,
  startPhoenix,
  stopAll,
} from "./receivers.ts";
import { useBuild } from "./sandboxes.ts";

useBuild();

const scratch = tempProject("tapedeck-receivers-");
const home = join(scratch.root, "home");
let phoenix: Phoenix;
let jaeger: Jaeger;
let collector: Collector;

beforeAll(async () => {
  const found = installed("phoenix", "jaeger", "otelcol");
  jaeger = await startJaeger(found.jaeger!.bin, join(scratch.root, "jaeger"));
  collector = await startCollector(found.otelcol!.bin, join(scratch.root, "otelcol"), jaeger.otlp);
  phoenix = await startPhoenix(found.phoenix!.python, join(scratch.root, "phoenix"));
}, 1_800_000);

afterAll(() => {
  stopAll();
  scratch.cleanup();
});

/** A Claude session of two turns: a tool call, a subagent, model responses with cache counts, an answer. */
function recordSession(name: string, words: { prompt: string; answer: string }) {
  const root = join(scratch.root, name);
  mkdirSync(root, { recursive: true });
  const { tick, ev } = eventClock();
  const id = `${name}-0000-4000-8000-000000000000`;
  const turn = (n: number): NormalizedEvent[] => {
    const t = { turn_id: `${name}-prompt-${n}` };
    return [
      ev("user_prompt", `p${n}`, { prompt: `${words.prompt} (turn ${n})` }, t),
      ev(
        "tool_call",
        `c${n}`,
        { tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: `tu${n}` },
        t,
      ),
      ev(
        "tool_result",
        `r${n}`,
        { tool_name: "Bash", tool_use_id: `tu${n}`, tool_response: { stdout: "a\nb" } },
        t,
      ),
      ev(
        "tool_call",
        `ac${n}`,
        { tool_name: "Agent", tool_input: { prompt: "look" }, tool_use_id: `ag${n}` },
        t,
      ),
      ev(
        "subagent_start",
        `ss${n}`,
        { agent_id: `sub${n}`, agent_type: "Explore" },
        { ...t, agent_id: `sub${n}` },
      ),
      ev("subagent_stop", `se${n}`, { agent_id: `sub${n}` }, { ...t, agent_id: `sub${n}` }),
      ev("tool_result", `ar${n}`, { tool_name: "Agent", tool_use_id: `ag${n}`, tool_response: "seen" }, t),
      ev(
        "turn_usage",
        `u${n}`,
        {},
        {
          ...t,
          usage: {
            source: "claude-transcript",
            message_id: `msg-${name}-${n}`,
            model: "claude-opus-5-5",
            input_tokens: 10,
            output_tokens: 7,
            cache_read_input_tokens: 100,
            cache_creation_input_tokens: 20,
          },
        },
      ),
      ev("assistant_message", `a${n}`, { text: `${words.answer} (turn ${n})` }, t),
    ];
  };
  recordEvents(
    spec(root, { identity: identity(id, "claude"), sessionRoot: join(root, ".tapedeck", "claude-sessions") }),
    [ev("session_start", "s", { source: "startup" }), ...turn(1), ...turn(2), ev("session_end", "end")],
    tick,
  );
  return { root, sessionId: id };
}

function tapedeck(root: string, args: string[]) {
  const r = runCli(["otel", ...args, "--project", root], home);
  expect(r.code, r.stderr).toBe(0);
  return r;
}

/** What the CLI would send: its dry run's spans, the ids and parents the receivers must show. */
function planned(
  root: string,
): Array<{ traceId: string; spanId: string; parentSpanId: string; name: string }> {
  const r = tapedeck(root, ["export", "--all", "--dry-run", "--quiet"]);
  const req = JSON.parse(r.stdout);
  return req.resourceSpans.flatMap((rs: { scopeSpans: Array<{ spans: unknown[] }> }) =>
    rs.scopeSpans.flatMap((ss) => ss.spans),
  ) as Array<{ traceId: string; spanId: string; parentSpanId: string; name: string }>;
}

const WITH = {
  prompt: "Ship the PELICAN-7731 migration tonight",
  answer: "Migrated, OSPREY-2208 checks pass",
};
const WITHOUT = { prompt: "Rotate the HERON-5519 keys", answer: "Rotated, KESTREL-9044 confirmed" };

interface PhoenixSpan {
  name: string;
  trace_id?: string;
  span_id?: string;
  parent_span_id?: string;
  context?: { trace_id: string; span_id: string };
  attributes?: unknown;
}

async function phoenixSpans(): Promise<PhoenixSpan[]> {
  const out: PhoenixSpan[] = [];
  let cursor: string | null = null;
  do {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const page = (await getJson(`${phoenix.url}/v1/projects/default/spans/otlpv1?limit=1000${q}`)) as {
      data: PhoenixSpan[];
      next_cursor: string | null;
    };
    out.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

/** Phoenix ingests asynchronously: waits until it shows `n` spans. */
async function phoenixHas(n: number): Promise<PhoenixSpan[]> {
  const end = Date.now() + 60_000;
  for (;;) {
    const spans = await phoenixSpans();
    if (spans.length >= n || Date.now() > end) return spans;
    await new Promise((r) => setTimeout(r, 500));
  }
}

const idOf = (s: PhoenixSpan) => s.span_id ?? s.context?.span_id ?? "";
const parentOf = (s: PhoenixSpan) => s.parent_span_id ?? "";

/** Every byte of a directory's files: a receiver's store, grepped. */
function storeBytes(dir: string): string {
  const parts: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) parts.push(readFileSync(p).toString("latin1"));
    }
  };
  if (existsSync(dir)) walk(dir);
  return parts.join("\n");
}

describe("Arize Phoenix", () => {
  const a = recordSession("phx-with", WITH);
  const b = recordSession("phx-without", WITHOUT);

  it("shows every turn, tool call and response with its parent; with --content the prompt and answer; again: no duplicate", async () => {
    const want = planned(a.root);
    // Per turn: the root, two tool calls, the subagent under one, a model response.
    expect(want).toHaveLength(10);
    tapedeck(a.root, ["export", "--all", "--content", "--endpoint", `${phoenix.url}/v1/traces`]);
    const spans = await phoenixHas(want.length);
    expect(spans).toHaveLength(want.length);
    const byId = new Map(spans.map((s) => [idOf(s), s]));
    for (const w of want) {
      const got = byId.get(w.spanId);
      expect(got, w.name).toBeDefined();
      expect(got!.name).toBe(w.name);
      expect(parentOf(got!)).toBe(w.parentSpanId ?? "");
    }
    expect(spans.filter((s) => s.name === "invoke_agent claude-code")).toHaveLength(2);
    expect(spans.filter((s) => s.name === "execute_tool Bash")).toHaveLength(2);
    expect(spans.filter((s) => s.name.startsWith("chat "))).toHaveLength(2);
    const text = JSON.stringify(spans);
    expect(text).toContain("PELICAN-7731");
    expect(text).toContain("OSPREY-2208");
    // The same ids sent again: Phoenix keeps one of each.
    tapedeck(a.root, ["export", "--all", "--content", "--resend", "--endpoint", `${phoenix.url}/v1/traces`]);
    await new Promise((r) => setTimeout(r, 3000));
    expect(await phoenixSpans()).toHaveLength(want.length);
  });

  it("without --content no prompt or answer text reaches Phoenix's API or its database", async () => {
    const before = (await phoenixSpans()).length;
    const n = planned(b.root).length;
    tapedeck(b.root, ["export", "--all", "--endpoint", `${phoenix.url}/v1/traces`]);
    const spans = await phoenixHas(before + n);
    expect(spans).toHaveLength(before + n);
    const api = JSON.stringify(spans);
    const db = storeBytes(phoenix.dir);
    // The grep can find what is there: the session exported with content is in the database.
    expect(db).toContain("PELICAN-7731");
    for (const word of ["HERON-5519", "KESTREL-9044"]) {
      expect(api).not.toContain(word);
      expect(db).not.toContain(word);
    }
  });
});

interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; spanID: string }>;
  tags: Array<{ key: string; value: unknown }>;
}

async function jaegerTraces(sessionId: string): Promise<Array<{ traceID: string; spans: JaegerSpan[] }>> {
  const tags = encodeURIComponent(JSON.stringify({ "session.id": sessionId }));
  const r = (await getJson(
    `${jaeger.query}/api/traces?service=tapedeck&tags=${tags}&limit=100&lookback=custom&start=0`,
  )) as {
    data: Array<{ traceID: string; spans: JaegerSpan[] }>;
  };
  return r.data ?? [];
}

async function jaegerSpans(sessionId: string, n: number): Promise<JaegerSpan[]> {
  const end = Date.now() + 60_000;
  for (;;) {
    const spans = (await jaegerTraces(sessionId)).flatMap((t) => t.spans);
    if (spans.length >= n || Date.now() > end) return spans;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The Collector's file output: one OTLP/JSON request a line. */
function collected(): Array<Record<string, unknown>> {
  if (!existsSync(collector.file)) return [];
  return readFileSync(collector.file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l));
}

async function collectedUntil(ok: (lines: Array<Record<string, unknown>>) => boolean) {
  const end = Date.now() + 30_000;
  for (;;) {
    const lines = collected();
    if (ok(lines) || Date.now() > end) return lines;
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe("an OpenTelemetry Collector, and Jaeger behind it", () => {
  const a = recordSession("col-with", WITH);
  const b = recordSession("col-without", WITHOUT);

  it("traces, logs and metrics pass through unchanged; Jaeger finds the trace by session.id with every span and parent", async () => {
    const want = planned(a.root);
    tapedeck(a.root, [
      "export",
      "--all",
      "--content-as",
      "logs",
      "--metrics",
      "--endpoint",
      `${collector.otlp}/v1/traces`,
    ]);
    const lines = await collectedUntil(
      (l) => l.some((x) => x.resourceMetrics) && l.some((x) => x.resourceLogs),
    );
    const spans = lines.flatMap((l) =>
      (
        (l.resourceSpans as Array<{ scopeSpans: Array<{ spans: Array<Record<string, unknown>> }> }>) ?? []
      ).flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans)),
    );
    // The Collector's file output has the same spans, ids and parents as the request tapedeck planned.
    expect(spans.map((s) => s.spanId).sort()).toEqual(want.map((w) => w.spanId).sort());
    for (const w of want) {
      const s = spans.find((x) => x.spanId === w.spanId)!;
      expect(s.name).toBe(w.name);
      expect(s.parentSpanId ?? "").toBe(w.parentSpanId ?? "");
    }
    // Content as log records (the documented choice for a Collector in front of Loki or otel_logs).
    const logText = JSON.stringify(lines.filter((l) => l.resourceLogs));
    expect(logText).toContain("PELICAN-7731");
    expect(logText).toContain("gen_ai.client.inference.operation.details");
    expect(JSON.stringify(spans)).not.toContain("PELICAN-7731");
    // The usage counters as sent: two responses of 10 + 100 + 20 input tokens.
    const metrics = JSON.stringify(lines.filter((l) => l.resourceMetrics));
    expect(metrics).toContain("gen_ai.client.inference.usage.input_tokens");
    expect(metrics).toContain('"asInt":"260"');
    // Behind it, Jaeger: the session's traces by session.id, every span with its parent.
    const js = await jaegerSpans(a.sessionId, want.length);
    expect(js).toHaveLength(want.length);
    expect(new Set(js.map((s) => s.traceID)).size).toBe(2);
    for (const w of want) {
      const s = js.find((x) => x.spanID === w.spanId);
      expect(s, w.name).toBeDefined();
      expect(s!.operationName).toBe(w.name);
      const parent = s!.references.find((r) => r.refType === "CHILD_OF")?.spanID ?? "";
      expect(parent).toBe(w.parentSpanId ?? "");
    }
  });

  it("a re-export sends the same ids: Jaeger keeps one copy of each span", async () => {
    const n = (await jaegerSpans(a.sessionId, 1)).length;
    tapedeck(a.root, ["export", "--all", "--resend", "--endpoint", `${collector.otlp}/v1/traces`]);
    await new Promise((r) => setTimeout(r, 3000));
    const spans = await jaegerSpans(a.sessionId, n);
    expect(new Set(spans.map((s) => s.spanID)).size).toBe(n);
    expect(spans).toHaveLength(n);
  });

  it("without --content no prompt or answer text in the Collector's output or Jaeger", async () => {
    const n = planned(b.root).length;
    tapedeck(b.root, ["export", "--all", "--metrics", "--endpoint", `${collector.otlp}/v1/traces`]);
    const js = await jaegerSpans(b.sessionId, n);
    expect(js).toHaveLength(n);
    const file = readFileSync(collector.file, "utf8");
    expect(file).toContain("PELICAN-7731");
    const all = `${file}${storeBytes(join(scratch.root, "otelcol"))}${JSON.stringify(await jaegerTraces(b.sessionId))}`;
    for (const word of ["HERON-5519", "KESTREL-9044"]) expect(all).not.toContain(word);
  });
});
