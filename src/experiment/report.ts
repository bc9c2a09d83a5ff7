// The comparison of an experiment's arms: per run, what its archive and the CLI's results say; per arm, the
// figures that decide; between arms, paired by repetition, whether a difference is evidence or noise.
// Read only: experiment.json and each run's archive (manifest and events), never written.
import { join } from "node:path";
import type { Envelope, Manifest } from "../core/archive/schemas.ts";
import { readJsonOrUndefined } from "../core/base/fsutil.ts";
import { addCount } from "../core/base/json.ts";
import { checkFacts } from "../core/ports/facts.ts";
import { injectionOf } from "../core/ports/injection.ts";
import { readEvents } from "../core/read/sessions.ts";
import { type HookTimings, readHookTimings } from "./hook-timing.ts";
import type { ExperimentRecord, RunRecord } from "./record.ts";
import {
  type FlipTable,
  flipTable,
  type Interval,
  metricVerdict,
  pairedBootstrap,
  passVerdict,
  type Verdict,
  wilson,
} from "./statistics.ts";

export interface RunMetrics {
  run_id: string;
  arm: string;
  repetition: number;
  status: RunRecord["status"];
  error: string | null;
  final_answer: string | null;
  /** The scenario's checks on the final answer; null without a scenario. */
  passed: boolean | null;
  missing_facts: string[];
  wall_ms: number | null;
  agent_ms: number | null;
  /** The experiment's own time around the agents (set-up, install, clean-up). */
  overhead_ms: number | null;
  /** The mean over the run's turns of the CLI's own figure (Claude's ttft_ms); Codex and Gemini report none. */
  time_to_first_token_ms: number | null;
  turns: number;
  tokens: { input: number; output: number; cache_read: number; cache_creation: number; sources: string[] };
  cost_usd: number | null;
  events: number;
  events_by_kind: Record<string, number>;
  tool_calls: number;
  tool_errors: number;
  compactions: number;
  redactions: number;
  injected_bytes: number;
  injections: number;
  /** Each hook process timed: recording's cost per event, Node's start-up apart (hook-timing.ts). */
  hooks: HookTimings | null;
  /** The hooks' total time over the events recorded: what recording cost per event. */
  hook_ms_per_event: number | null;
  labels: {
    provider: string;
    cli_version: string | null;
    model_requested: string | null;
    model_served: string | null;
    revision: string | null;
    settings_root: string | null;
    session_root: string | null;
    session_id: string | null;
    archive: string | null;
  };
}

export interface ArmSummary {
  arm: string;
  native_memory: boolean;
  retrieval: boolean;
  runs: number;
  complete: number;
  failed: number;
  pass: { passes: number; n: number; wilson: Interval | null } | null;
  median: Record<MetricName, number | null>;
  final_answers: string[];
}

export const METRICS = [
  "wall_ms",
  "ttft_ms",
  "input_tokens",
  "output_tokens",
  "cache_read_tokens",
  "cost_usd",
  "tool_calls",
  "tool_errors",
  "injected_bytes",
  "events",
  "hook_ms",
] as const;
export type MetricName = (typeof METRICS)[number];

export interface Comparison {
  arm: string;
  against: string;
  /** Both runs of a repetition complete. */
  pairs: number;
  /** The two arms have the same settings: their flips measure the flap rate, not an effect. */
  same_settings: boolean;
  flips: FlipTable | null;
  pass: { verdict: Verdict; p: number | null } | null;
  metrics: Record<MetricName, { pairs: number; mean_difference: Interval | null; verdict: Verdict }>;
}

export interface ExperimentReport {
  experiment_id: string;
  kind: ExperimentRecord["kind"];
  provider: string;
  cli_version: string | null;
  model_requested: string | null;
  baseline: ExperimentRecord["baseline"];
  scenario: string | null;
  prompt_count: number;
  repeat: number;
  stopped: string | null;
  runs: RunMetrics[];
  arms: ArmSummary[];
  comparisons: Comparison[];
}

function usageSums(events: Envelope[]): RunMetrics["tokens"] {
  const t = { input: 0, output: 0, cache_read: 0, cache_creation: 0, sources: new Set<string>() };
  for (const e of events) {
    const u = e.usage;
    if (!u) continue;
    t.input += u.input_tokens ?? 0;
    t.output += u.output_tokens ?? 0;
    t.cache_read += u.cache_read_input_tokens ?? 0;
    t.cache_creation += u.cache_creation_input_tokens ?? 0;
    t.sources.add(u.source);
  }
  return { ...t, sources: [...t.sources].sort() };
}

function countKinds(events: Envelope[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of events) addCount(out, e.kind);
  return out;
}

function injections(events: Envelope[]): { bytes: number; count: number } {
  let bytes = 0;
  let count = 0;
  for (const e of events) {
    const injection = injectionOf(e);
    if (injection?.outcome !== "injected" || injection.bytes <= 0) continue;
    bytes += injection.bytes;
    count += 1;
  }
  return { bytes, count };
}

function meanOf(xs: number[]): number | null {
  return xs.length === 0 ? null : Math.round(xs.reduce((s, x) => s + x, 0) / xs.length);
}

export function runMetrics(record: ExperimentRecord, run: RunRecord): RunMetrics {
  const events = run.archive ? readEvents(run.archive).events : [];
  const manifest = run.archive
    ? readJsonOrUndefined<Manifest>(join(run.archive, "manifest.json"))
    : undefined;
  const kinds = countKinds(events);
  const inj = injections(events);
  const check = record.scenario
    ? checkFacts(
        run.status === "complete" ? run.final_answer : undefined,
        record.scenario.expected_facts,
        record.scenario.forbidden_facts,
      )
    : null;
  const hooks = run.run_dir ? readHookTimings(run.run_dir) : null;
  const served = run.turns.map((t) => t.model).find((m) => m !== undefined) ?? null;
  const cost = run.turns.some((t) => t.cost_usd !== undefined) ? (run.cost_usd ?? 0) : null;
  return {
    run_id: run.run_id,
    arm: run.arm,
    repetition: run.repetition,
    status: run.status,
    error: run.error ?? null,
    final_answer: run.final_answer ?? null,
    passed: check ? check.passed : null,
    missing_facts: check?.missing ?? [],
    wall_ms: run.wall_ms ?? null,
    agent_ms: run.agent_ms ?? null,
    overhead_ms: run.wall_ms !== undefined && run.agent_ms !== undefined ? run.wall_ms - run.agent_ms : null,
    time_to_first_token_ms: meanOf(
      run.turns.map((t) => t.ttft_ms).filter((v): v is number => v !== undefined),
    ),
    turns: run.turns.filter((t) => t.ok).length,
    tokens: usageSums(events),
    cost_usd: cost,
    events: events.length,
    events_by_kind: kinds,
    tool_calls: kinds.tool_call ?? 0,
    tool_errors: kinds.tool_error ?? 0,
    compactions: kinds.compaction ?? 0,
    redactions: manifest?.redaction_count ?? 0,
    injected_bytes: inj.bytes,
    injections: inj.count,
    hooks,
    hook_ms_per_event:
      hooks && events.length > 0 ? Math.round((hooks.total_ms / events.length) * 10) / 10 : null,
    labels: {
      provider: record.provider,
      cli_version: record.cli_version,
      model_requested: record.model_requested,
      model_served: served,
      revision: manifest?.repository_revision ?? record.baseline.revision,
      settings_root: run.settings_root ?? null,
      session_root: run.session_root ?? null,
      session_id: run.session_id ?? null,
      archive: run.archive ?? null,
    },
  };
}

function metricOf(m: RunMetrics, name: MetricName): number | null {
  switch (name) {
    case "wall_ms":
      return m.wall_ms;
    case "ttft_ms":
      return m.time_to_first_token_ms;
    case "input_tokens":
      return m.tokens.input;
    case "output_tokens":
      return m.tokens.output;
    case "cache_read_tokens":
      return m.tokens.cache_read;
    case "cost_usd":
      return m.cost_usd;
    case "hook_ms":
      return m.hook_ms_per_event;
    default:
      return m[name];
  }
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

function armSummary(
  record: ExperimentRecord,
  runs: RunMetrics[],
  arm: ExperimentRecord["arms"][number],
): ArmSummary {
  const mine = runs.filter((r) => r.arm === arm.name);
  const done = mine.filter((r) => r.status === "complete");
  const judged = mine.filter((r) => r.passed !== null && r.status !== "skipped" && r.status !== "planned");
  const passes = judged.filter((r) => r.passed).length;
  const med = Object.fromEntries(
    METRICS.map((name) => [
      name,
      median(done.map((r) => metricOf(r, name)).filter((v): v is number => v !== null)),
    ]),
  ) as Record<MetricName, number | null>;
  return {
    arm: arm.name,
    native_memory: arm.native_memory,
    retrieval: arm.retrieval,
    runs: mine.length,
    complete: done.length,
    failed: mine.filter((r) => r.status === "failed" || r.status === "interrupted").length,
    pass: record.scenario ? { passes, n: judged.length, wilson: wilson(passes, judged.length) } : null,
    median: med,
    final_answers: [...new Set(done.map((r) => r.final_answer ?? ""))],
  };
}

function compare(record: ExperimentRecord, runs: RunMetrics[], a: string, b: string): Comparison {
  const specA = record.arms.find((x) => x.name === a)!;
  const specB = record.arms.find((x) => x.name === b)!;
  const pairs: Array<[RunMetrics, RunMetrics]> = [];
  for (let rep = 1; rep <= record.repeat; rep++) {
    const ra = runs.find((r) => r.arm === a && r.repetition === rep);
    const rb = runs.find((r) => r.arm === b && r.repetition === rep);
    if (ra?.status === "complete" && rb?.status === "complete") pairs.push([ra, rb]);
  }
  const flips = record.scenario
    ? flipTable(pairs.map(([x, y]) => [x.passed === true, y.passed === true]))
    : null;
  const metrics = Object.fromEntries(
    METRICS.map((name) => {
      const diffs = pairs
        .map(([x, y]) => [metricOf(x, name), metricOf(y, name)] as const)
        .filter((d): d is readonly [number, number] => d[0] !== null && d[1] !== null)
        .map(([x, y]) => y - x);
      const interval = pairedBootstrap(diffs);
      return [
        name,
        { pairs: diffs.length, mean_difference: interval, verdict: metricVerdict(diffs, interval) },
      ];
    }),
  ) as Comparison["metrics"];
  return {
    arm: b,
    against: a,
    pairs: pairs.length,
    same_settings: specA.native_memory === specB.native_memory && specA.retrieval === specB.retrieval,
    flips,
    pass: flips ? passVerdict(pairs.length, flips) : null,
    metrics,
  };
}

export function buildReport(record: ExperimentRecord): ExperimentReport {
  const runs = record.runs.map((r) => runMetrics(record, r));
  const first = record.arms[0]?.name;
  return {
    experiment_id: record.experiment_id,
    kind: record.kind,
    provider: record.provider,
    cli_version: record.cli_version,
    model_requested: record.model_requested,
    baseline: record.baseline,
    scenario: record.scenario?.id ?? null,
    prompt_count: record.prompt_count,
    repeat: record.repeat,
    stopped: record.stopped?.reason ?? null,
    runs,
    arms: record.arms.map((arm) => armSummary(record, runs, arm)),
    comparisons: first ? record.arms.slice(1).map((arm) => compare(record, runs, first, arm.name)) : [],
  };
}
