// Runs every benchmark in one process, side by side, and prints the results
// as JSON (bench/out/results.json) and as the Markdown tables of docs/benchmarks.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { runRedactBench } from "../packages/redact/bench/redact.bench.ts";
import { cliTable, runCliBench } from "./cli.bench.ts";
import { runHookBench, runHttpBench } from "./hook.bench.ts";
import { runHookStartBench } from "./hook-start.bench.ts";
import { runImportBench } from "./import.bench.ts";
import { runMcpBench } from "./mcp.bench.ts";
import { runIndexBuildBench, runSearchBench } from "./memory-index.bench.ts";
import { runPromoteBench } from "./memory-promote.bench.ts";
import { runOtelBench } from "./otel.bench.ts";
import { runProxyBench } from "./proxy.bench.ts";
import { runRetrievalBench } from "./retrieval.bench.ts";
import { runClaudeSessionBench, runCodexSessionBench } from "./session.bench.ts";
import { runAppendBench, runInspectBench, runListBench, runScanBench } from "./store.bench.ts";
import { runViewerBench } from "./viewer.bench.ts";

const scanMb = Number(process.env.TAPEDECK_BENCH_SCAN_MB ?? 200);
const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
const hook = await runHookBench();
const hookStart = runHookStartBench();
const httpHook = await runHttpBench();
const append = runAppendBench();
const scan = runScanBench(scanMb);
const inspect = runInspectBench(scanMb);
const list = runListBench();
const redact = (await runRedactBench()) as Record<string, unknown>;
const proxy = await runProxyBench();
const mcp = await runMcpBench();
const cli = runCliBench();
const sessions = [await runClaudeSessionBench(), await runCodexSessionBench()];
const indexBuild = runIndexBuildBench(scanMb);
const search = runSearchBench(Number(process.env.TAPEDECK_BENCH_SEARCH_EVENTS ?? 1_000_000));
const promote = runPromoteBench(Number(process.env.TAPEDECK_BENCH_MEMORY_ITEMS ?? 100_000));
const retrieval = await runRetrievalBench();
const otel = await runOtelBench(Number(process.env.TAPEDECK_BENCH_OTEL_TURNS ?? 200));
const importBench = await runImportBench();
const viewer = await runViewerBench(Number(process.env.TAPEDECK_BENCH_VIEWER_EVENTS ?? 100_000));
const results = {
  machine,
  date: new Date().toISOString(),
  hook,
  hook_start: hookStart,
  http: httpHook,
  append,
  scan,
  list,
  redact,
  proxy,
  mcp,
  inspect,
  cli,
  sessions,
  index_build: indexBuild,
  search,
  memory_promote: promote,
  retrieval,
  viewer,
  otel,
  import: importBench,
};
mkdirSync("bench/out", { recursive: true });
writeFileSync("bench/out/results.json", `${JSON.stringify(results, null, 2)}\n`);

const md: string[] = [];
md.push(`Machine: ${machine}`, "");
md.push("| hook transport: command | median ms | p90 ms | × `node -e 0` |", "|---|---|---|---|");
for (const r of hook.rows) md.push(`| ${r.name} | ${r.median_ms} | ${r.p90_ms} | ${r.vs_node} |`);
md.push(
  "",
  "| command hook start-up, a recorded PostToolUse | wall median ms | × `node -e 0` | CPU median ms | × `node -e 0` |",
  "|---|---|---|---|---|",
);
for (const r of hookStart.rows) {
  md.push(
    `| ${r.name} | ${r.wall_median_ms} | ${r.wall_vs_node} | ${r.cpu_median_ms ?? "—"} | ${r.cpu_vs_node ?? "—"} |`,
  );
}
md.push(
  "",
  "| hook transport: http, per event (spawn to exit, event appended) | median ms | p90 ms |",
  "|---|---|---|",
);
for (const r of httpHook.rows) md.push(`| ${r.name} | ${r.median_ms} | ${r.p90_ms} |`);
md.push("", "| append | value |", "|---|---|");
md.push(`| events/s (one event per call, lock + state + manifest) | ${append.events_per_s} |`);
md.push(`| ms per event, first ${append.events} | ${append.ms_per_event_first} |`);
md.push(`| ms per event, after ${append.events} | ${append.ms_per_event_after} |`);
md.push("", "| scan of events.jsonl | MB/s |", "|---|---|");
md.push(
  `| tapedeck recovery scan (${scan.mb} MB, ${scan.events} events, every line parsed) | ${scan.tapedeck_mb_per_s} |`,
);
md.push(`| \`wc -l\` on the same file | ${scan.wc_l_mb_per_s} |`);
md.push("", "| list | value |", "|---|---|");
md.push(
  `| \`tapedeck list\` over ${list.sessions} sessions (manifests only) | ${list.ms} ms (${list.us_per_session} µs per session) |`,
);
md.push("", "| redaction | MB/s |", "|---|---|");
md.push(`| redactText | ${redact.mb_per_s} |`, `| redactValue | ${redact.value_mb_per_s} |`);
md.push("", "| proxy vs direct (same mock upstream) | value |", "|---|---|");
for (const row of proxy.latency as Array<Record<string, number | string>>) {
  md.push(
    `| added time to first byte, ${row.size}: proxy / proxy+SSE extension | ${row.proxy_added_ttfb_ms} ms / ${row["proxy+ext_added_ttfb_ms"]} ms |`,
  );
  md.push(`| added total time, ${row.size}: proxy | ${row.proxy_added_total_ms} ms |`);
}
const tp = proxy.throughput;
md.push(
  `| throughput, ${tp.concurrency} concurrent streams: direct / raw TCP relay / proxy / proxy+ext | ${tp.direct_mb_s} / ${tp.relay_mb_s} / ${tp.proxy_mb_s} / ${tp["proxy+ext_mb_s"]} MB/s |`,
);
md.push(`| proxy throughput vs direct (relay vs direct) | ${tp.proxy_vs_direct} (${tp.relay_vs_direct}) |`);
md.push(`| memory per open stream (RSS) | ${JSON.stringify(proxy.memory)} |`);
md.push("", "| MCP server and CLI start-up | median ms | × `node -e 0` |", "|---|---|---|");
md.push(`| \`node -e 0\` | ${mcp.node_ms} | 1 |`);
md.push(`| \`tapedeck --version\` (CLI start-up) | ${mcp.cli_version_ms} | ${mcp.cli_vs_node} |`);
md.push(
  `| \`tapedeck mcp\`: spawn to first tools/list answer (p90 ${mcp.mcp_start_p90_ms}) | ${mcp.mcp_start_to_tools_ms} | ${mcp.mcp_start_vs_node} |`,
);
md.push(`| one tapedeck_status call, round trip (p90 ${mcp.tool_call_p90_ms}) | ${mcp.tool_call_ms} | |`);
md.push("", "| inspect of a sealed session | ms |", "|---|---|");
md.push(`| first inspect (no checkpoint yet), ${scanMb} MB | ${inspect.without_checkpoint_ms} |`);
md.push(`| again (validated prefix from the checkpoint) | ${inspect.again_ms} |`);
md.push(
  `| the whole \`tapedeck inspect\` command, again (\`node -e 0\`: ${inspect.command_node_ms}) | ${inspect.command_ms} |`,
);
md.push(`| after 1 MB more was appended | ${inspect.after_1mb_append_ms} |`);
md.push("", cliTable(cli));
for (const session of sessions) {
  md.push(
    "",
    `| ${session.name}: ${session.turns} turns, ${session.rounds} interleaved rounds | median ms | p90 ms | × not installed |`,
    "|---|---|---|---|",
  );
  for (const r of session.rows)
    md.push(`| ${r.arm} | ${r.median_ms} | ${r.p90_ms} | ${r.vs_not_installed} |`);
}
md.push("", "| memory: index and search | value |", "|---|---|");
md.push(
  `| index build, ${indexBuild.mb} MB (${indexBuild.events} events): index / recovery scan | ${indexBuild.index_mb_per_s} / ${indexBuild.scan_mb_per_s} MB/s (${indexBuild.index_vs_scan}×; per CPU second ${indexBuild.index_cpu_mb_per_s} / ${indexBuild.scan_cpu_mb_per_s}) |`,
);
md.push(`| index size / archive size | ${indexBuild.index_mb} MB (${indexBuild.index_vs_archive}×) |`);
md.push(
  `| RSS of the process: before the build / peak while building | ${indexBuild.rss_before_build_mb} / ${indexBuild.build_peak_rss_mb} MB |`,
);
md.push(`| 1,000 events appended, indexed from the offset | ${indexBuild.append_1000_events_ms} ms |`);
md.push(`| update with nothing new (what \`search\` pays first) | ${indexBuild.noop_update_ms} ms |`);
md.push(
  `| \`tapedeck search WORD\` on that project, spawn to exit (\`tapedeck --version\`) | ${indexBuild.cli_search_ms} ms (${indexBuild.cli_version_ms} ms) |`,
);
md.push(
  `| one in-process batch (what a hook would wait behind): p50 / p99 / max | ${indexBuild.slice_p50_ms} / ${indexBuild.slice_p99_ms} / ${indexBuild.slice_max_ms} ms |`,
);
md.push(
  `| search over ${search.events} events (${search.archive_mb} MB), ${search.queries} queries: p50 / p99 | ${search.p50_ms} / ${search.p99_ms} ms (CPU ${search.p50_cpu_ms} / ${search.p99_cpu_ms} ms) |`,
);
md.push(
  `| \`grep -c\` on the same events.jsonl, p50 | ${search.grep_c_p50_ms} ms (${search.grep_vs_search_p50}× search) |`,
);
md.push("", "| memory: promotion and memory search | value |", "|---|---|");
md.push(
  `| promote ${promote.events} events (${promote.archive_mb} MB) into ${promote.items} items: events/s / MB/s | ${promote.events_per_s} / ${promote.mb_per_s} (plan ${promote.plan_s} s, write ${promote.write_s} s) |`,
);
md.push(`| the same promotion again (every item existing) | ${promote.again_s} s |`);
md.push(
  `| memory search over ${promote.items} items, ${promote.queries} queries: p50 / p99 | ${promote.search_p50_ms} / ${promote.search_p99_ms} ms |`,
);
md.push(
  `| \`grep -c\` on the same items' text (${promote.export_mb} MB of JSONL), p50 | ${promote.grep_c_p50_ms} ms (${promote.grep_vs_search_p50}× search) |`,
);
md.push(
  "",
  `| retrieval on a prompt hook, ${retrieval.items} memory items | median ms | p90 ms |`,
  "|---|---|---|",
);
for (const r of retrieval.rows) md.push(`| ${r.name} | ${r.median_ms} | ${r.p90_ms} |`);
md.push(
  "",
  "| retrieval | value |",
  "|---|---|",
  `| added to an http hook (hook client, median on − off) | ${retrieval.added_median_ms} ms |`,
  `| added to the hook path in process (runHook, median on − off) | ${retrieval.run_hook_added_median_ms} ms |`,
  `| the step alone (query, search, block): p50 / p99 | ${retrieval.retrieve_p50_ms} / ${retrieval.retrieve_p99_ms} ms |`,
  `| prompts given context / mean bytes | ${retrieval.prompts_with_context} / ${retrieval.mean_injected_bytes} |`,
);
md.push(
  "",
  `| \`tapedeck import claude\`, one ${importBench.mb} MB transcript (${importBench.turns} turns, ${importBench.events} events) | value |`,
  "|---|---|",
  `| import, spawn to exit: MB/s (per CPU second) | ${importBench.import_mb_per_s} (${importBench.import_mb_per_cpu_s}) |`,
  `| \`wc -l\` on the same file: MB/s | ${importBench.wc_l_mb_per_s} (${importBench.import_vs_wc}× the import's time) |`,
  `| peak RSS of the import | ${importBench.peak_rss_mib} MiB |`,
  `| a second import of the unchanged file | ${importBench.again_ms} ms, ${importBench.again_events} events, ${importBench.again_peak_rss_mib} MiB |`,
);
md.push(
  "",
  "| viewer | value |",
  "|---|---|",
  `| \`tapedeck view\`: navigation to the first event row, ${viewer.events} events (Chromium) | ${viewer.first_render_ms} ms (${viewer.vs_floor}× a 10-event session, ${viewer.floor_10_events_ms} ms) |`,
);
md.push(
  "",
  `| OpenTelemetry export, a ${otel.turns}-turn session (${otel.spans} spans) | spans/s | ms | × POSTing the same bytes |`,
  "|---|---|---|---|",
  `| map (archive → spans) / map + protobuf encoding, CPU | ${otel.map_spans_per_s} / ${otel.map_encode_spans_per_s} | — | — |`,
);
for (const r of otel.export)
  md.push(
    `| export, ${r.name} (watermark, fsync per request) | ${r.spans_per_s} | ${r.export_ms} | ${r.vs_floor} |`,
  );
md.push(
  `| bytes per session: protobuf / JSON / JSON gzip / protobuf with content | ${otel.bytes_per_session.protobuf} / ${otel.bytes_per_session.json} / ${otel.bytes_per_session.json_gzip} / ${otel.bytes_per_session.protobuf_with_content} | — | — |`,
);
console.log(md.join("\n"));
