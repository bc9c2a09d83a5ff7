// OpenTelemetry export sizing: spans/s and bytes per session, for docs/team.md.
// Run: npx tsx bench/otel.bench.ts [turns]  ->  JSON
//
// A synthetic Claude session (each turn: a prompt, four tool calls with results, four model responses, an
// answer; a subagent with two calls every fifth turn) is recorded through the real store, then:
// - map: archive -> spans, and map + protobuf encoding, CPU only (median of 5);
// - export: `exportSession` end to end to a local OTLP sink that reads the body and answers 200, per protocol
//   (a fresh watermark each pass), against the floor of POSTing the same pre-encoded bodies with fetch;
// - bytes: request bytes per session and per span, protobuf / JSON / JSON gzip, without and with content.

import { rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { DEFAULT_LIMITS } from "../src/core/archive/bound.ts";
import type { NormalizedEvent } from "../src/core/archive/event.ts";
import { recordEvents } from "../src/core/archive/session-store.ts";
import type { Endpoint, Protocol } from "../src/otel/endpoint.ts";
import { mapSession, readManifest } from "../src/otel/map.ts";
import { encodeSpans } from "../src/otel/otlp.ts";
import { closedTurns, exportSession } from "../src/otel/spool.ts";
import { median, round, tempDir } from "./lib.ts";

function session(root: string, turns: number): string {
  let clock = Date.parse("2026-12-01T10:00:00.000Z");
  const at = () => {
    clock += 50;
    return new Date(clock).toISOString();
  };
  const events: NormalizedEvent[] = [
    { kind: "session_start", event_id: "start", payload: { source: "startup" }, timestamp: at() },
  ];
  for (let t = 0; t < turns; t += 1) {
    const turn_id = `turn-${t}`;
    const e = (
      kind: NormalizedEvent["kind"],
      id: string,
      payload: Record<string, unknown>,
      extra: Partial<NormalizedEvent> = {},
    ) => events.push({ kind, event_id: `${id}-${t}`, payload, turn_id, timestamp: at(), ...extra });
    e("user_prompt", "p", {
      prompt: `Refactor module ${t}: split the parser and add tests for the edge cases`,
    });
    for (let c = 0; c < 4; c += 1) {
      e("tool_call", `c${c}`, {
        tool_name: "Bash",
        tool_use_id: `tu-${t}-${c}`,
        tool_input: { command: `npm test -- parser${c}` },
      });
      e("tool_result", `r${c}`, {
        tool_name: "Bash",
        tool_use_id: `tu-${t}-${c}`,
        tool_response: { stdout: "ok ".repeat(200) },
      });
    }
    if (t % 5 === 0) {
      e("tool_call", "agent", {
        tool_name: "Agent",
        tool_use_id: `ta-${t}`,
        tool_input: { prompt: "review the diff" },
      });
      e(
        "subagent_start",
        "sa",
        { agent_id: `ag-${t}`, agent_type: "general-purpose" },
        { agent_id: `ag-${t}` },
      );
      for (let c = 0; c < 2; c += 1) {
        e(
          "tool_call",
          `sc${c}`,
          { tool_name: "Read", tool_use_id: `ts-${t}-${c}`, tool_input: { file_path: "src/parser.ts" } },
          { agent_id: `ag-${t}` },
        );
        e(
          "tool_result",
          `sr${c}`,
          { tool_name: "Read", tool_use_id: `ts-${t}-${c}`, tool_response: "x".repeat(400) },
          { agent_id: `ag-${t}` },
        );
      }
      e(
        "subagent_stop",
        "ss",
        { agent_id: `ag-${t}`, last_assistant_message: "looks fine" },
        { agent_id: `ag-${t}` },
      );
      e("tool_result", "ar", { tool_name: "Agent", tool_use_id: `ta-${t}`, tool_response: "looks fine" });
    }
    e("assistant_message", "a", { text: "Split the parser into two modules; the tests pass." });
    for (let u = 0; u < 4; u += 1) {
      e(
        "turn_usage",
        `u${u}`,
        {},
        {
          usage: {
            source: "claude-transcript",
            model: "claude-opus-5-5",
            message_id: `msg-${t}-${u}`,
            input_tokens: 1200,
            output_tokens: 300,
            cache_read_input_tokens: 40_000,
            cache_creation_input_tokens: 900,
          },
        },
      );
    }
  }
  events.push({
    kind: "session_end",
    event_id: "end",
    payload: { reason: "exit" },
    terminal: true,
    timestamp: at(),
  });
  return recordEvents(
    {
      projectRoot: root,
      sessionRoot: join(root, ".tapedeck", "claude-sessions"),
      identity: {
        provider: "claude",
        provider_session_id: "bench",
        session_id: "claude:bench",
        identity_source: "provider",
      },
      mode: "capture-only",
      capabilities: [],
      agentPid: null,
      limits: DEFAULT_LIMITS,
    },
    events,
  ).sessionDir;
}

async function sink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on("data", (c: Buffer) => {
      bytes += c.length;
    });
    req.on("end", () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    bytes: () => bytes,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

export async function runOtelBench(turns = Number(process.argv[2] ?? 200)) {
  const { dir: root, cleanup } = tempDir("tapedeck-otel-bench-");
  try {
    const dir = session(root, turns);
    const manifest = readManifest(dir)!;
    const resource = { "service.name": "tapedeck", "service.version": "bench" };
    const spans = mapSession(dir, manifest).turns.flatMap((t) => t.spans);
    const contentSpans = mapSession(dir, manifest, { content: true }).turns.flatMap((t) => t.spans);
    const timed = (f: () => void) => {
      const runs: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const t0 = performance.now();
        f();
        runs.push(performance.now() - t0);
      }
      return median(runs);
    };
    const mapMs = timed(() => mapSession(dir, manifest));
    const mapEncodeMs = timed(() =>
      encodeSpans(
        { resource, scopeVersion: "bench", spans: mapSession(dir, manifest).turns.flatMap((t) => t.spans) },
        "http/protobuf",
      ),
    );
    const size = (s: typeof spans, p: Protocol) =>
      encodeSpans({ resource, scopeVersion: "bench", spans: s }, p);
    const proto = size(spans, "http/protobuf");
    const json = size(spans, "http/json");
    const protoContent = size(contentSpans, "http/protobuf");
    const s = await sink();
    const rows = [];
    try {
      for (const [name, protocol, gzip] of [
        ["http/protobuf", "http/protobuf", false],
        ["http/json", "http/json", false],
        ["http/json + gzip", "http/json", true],
      ] as const) {
        const endpoint: Endpoint = {
          url: s.url,
          logsUrl: s.url.replace(/\/v1\/traces$/, "/v1/logs"),
          metricsUrl: s.url.replace(/\/v1\/traces$/, "/v1/metrics"),
          backend: "otlp",
          source: "flag",
          protocol,
          headers: {},
          gzip,
          timeoutMs: 10_000,
        };
        const exportRuns: number[] = [];
        const floorRuns: number[] = [];
        // The floor: the same requests' bodies, encoded beforehand, POSTed one after another.
        const batches = closedTurns(mapSession(dir, manifest));
        const bodies = [
          encodeSpans({ resource, scopeVersion: "bench", spans: batches.flatMap((t) => t.spans) }, protocol),
        ];
        // One pass more than measured: the first warms the JIT and the connection.
        for (let i = -1; i < 5; i += 1) {
          rmSync(join(root, ".tapedeck", "otel"), { recursive: true, force: true });
          const t0 = performance.now();
          const r = await exportSession(
            { projectRoot: root, endpoint, resource: () => resource, scopeVersion: "bench", content: "off" },
            dir,
            manifest,
          );
          if (i >= 0) exportRuns.push(performance.now() - t0);
          if (r.spans !== spans.length) throw new Error(`exported ${r.spans} of ${spans.length} spans`);
          const f0 = performance.now();
          for (const b of bodies) {
            const payload = gzip ? gzipSync(b) : b;
            await (
              await fetch(s.url, {
                method: "POST",
                body: new Uint8Array(payload),
                headers: { "content-type": "x" },
              })
            ).arrayBuffer();
          }
          if (i >= 0) floorRuns.push(performance.now() - f0);
        }
        const ms = median(exportRuns);
        rows.push({
          name,
          spans_per_s: Math.round(spans.length / (ms / 1000)),
          export_ms: round(ms),
          floor_post_ms: round(median(floorRuns)),
          vs_floor: round(ms / median(floorRuns)),
        });
      }
    } finally {
      await s.close();
    }
    return {
      name: "otel",
      turns,
      events: manifest.event_count,
      archive_bytes: manifest.byte_count,
      spans: spans.length,
      map_spans_per_s: Math.round(spans.length / (mapMs / 1000)),
      map_encode_spans_per_s: Math.round(spans.length / (mapEncodeMs / 1000)),
      bytes_per_session: {
        protobuf: proto.length,
        json: json.length,
        json_gzip: gzipSync(json).length,
        protobuf_with_content: protoContent.length,
      },
      bytes_per_span: {
        protobuf: round(proto.length / spans.length, 1),
        json: round(json.length / spans.length, 1),
        json_gzip: round(gzipSync(json).length / spans.length, 1),
      },
      export: rows,
    };
  } finally {
    cleanup();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(JSON.stringify(await runOtelBench(), null, 2));
}
