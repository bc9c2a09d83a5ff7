// `tapedeck experiment run|list|report`: replays of one baseline (or scenario) in several arms, repeated,
// compared (docs/experiments.md).
import { existsSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { Command } from "commander";
import { fields, printable } from "../../core/base/printable.ts";
import { readEvents } from "../../core/read/sessions.ts";
import { type Baseline, loadBaseline } from "../../experiment/baseline.ts";
import { replayDriver } from "../../experiment/drivers.ts";
import { ARM_NAME, plannedRuns } from "../../experiment/orchestrator.ts";
import { type ArmSpec, listExperiments, readExperiment } from "../../experiment/record.ts";
import { renderMarkdown, renderReport } from "../../experiment/render.ts";
import { buildReport } from "../../experiment/report.ts";
import { prepareExperiment, runWithInterrupt } from "../../experiment/start.ts";
import { loadScenario, type Scenario, ScenarioError } from "../../scenario/experiment-input.ts";
import { CliError, EXIT } from "../cli-error.ts";
import { checkProvider, note, printJson, projectFromOption, say } from "../common.ts";
import { setExitCode } from "../io.ts";
import { costOption, onOff, runOptions, setupError } from "../replay-options.ts";

interface RunOpts {
  project?: string;
  provider?: string;
  session?: string;
  scenario?: string;
  arm: string[];
  repeat: string;
  maxRuns?: string;
  maxCost?: string;
  dryRun?: boolean;
  aa?: boolean;
  experimentRoot?: string;
  model?: string;
  keep?: boolean;
  json?: boolean;
}

/** `NAME:native-memory=on|off,retrieval=on|off`; a setting left out is native memory on, retrieval off. */
export function parseArm(spec: string): ArmSpec {
  const colon = spec.indexOf(":");
  const name = colon < 0 ? spec : spec.slice(0, colon);
  if (!ARM_NAME.test(name))
    throw new CliError(`--arm "${spec}": the name is letters, digits, . _ - (at most 64)`, EXIT.usage);
  const arm: ArmSpec = { name, native_memory: true, retrieval: false };
  const settings = colon < 0 ? "" : spec.slice(colon + 1);
  for (const part of settings.split(",").filter((p) => p !== "")) {
    const [key, value = ""] = part.split("=");
    if (key === "native-memory") arm.native_memory = onOff(value, `--arm ${name}: native-memory`);
    else if (key === "retrieval") arm.retrieval = onOff(value, `--arm ${name}: retrieval`);
    else
      throw new CliError(`--arm "${spec}": unknown setting "${key}" (native-memory, retrieval)`, EXIT.usage);
  }
  return arm;
}

/**
 * `--aa`: the first arm once more under `<name>-aa`, the same settings: the flips between the two are the
 * flap rate, what a difference between real arms must be read against.
 */
export function withAa(arms: ArmSpec[], aa: boolean): ArmSpec[] {
  const first = arms[0];
  if (!aa || !first) return arms;
  return [first, { ...first, name: `${first.name.slice(0, 61)}-aa` }, ...arms.slice(1)];
}

function positiveInt(value: string | undefined, flag: string, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d{1,6}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new CliError(`${flag} takes a whole number from 1 to ${max}`, EXIT.usage);
  return n;
}

function baselineTokens(b: Baseline): { input: number; output: number } {
  let input = 0;
  let output = 0;
  for (const e of readEvents(b.ref.dir).events) {
    input += e.usage?.input_tokens ?? 0;
    output += e.usage?.output_tokens ?? 0;
  }
  return { input, output };
}

function loadInputs(project: string, opts: RunOpts): { baseline: Baseline; scenario?: Scenario } {
  if (!opts.session === !opts.scenario)
    throw new CliError("give --session or --scenario (one of them)", EXIT.usage);
  const provider = checkProvider(opts.provider);
  if (opts.session) return { baseline: loadBaseline(project, opts.session, provider) };
  let scenario: Scenario;
  try {
    scenario = loadScenario(resolve(opts.scenario!));
  } catch (error) {
    if (error instanceof ScenarioError) throw new CliError(error.message, EXIT.usage);
    throw error;
  }
  const baseline = loadBaseline(project, scenario.sourceSession, provider ?? scenario.provider ?? undefined);
  return { baseline: { ...baseline, prompts: scenario.prompts }, scenario };
}

async function runCommand(opts: RunOpts): Promise<void> {
  const project = projectFromOption(opts.project);
  const arms = withAa((opts.arm ?? []).map(parseArm), opts.aa ?? false);
  if (arms.length === 0)
    throw new CliError("give at least one --arm NAME:native-memory=on|off,retrieval=on|off", EXIT.usage);
  const names = new Set(arms.map((a) => a.name));
  if (names.size !== arms.length)
    throw new CliError("arm names must differ (an A/A check: the same settings under two names)", EXIT.usage);
  const repeat = positiveInt(opts.repeat, "--repeat", 1000) ?? 1;
  const maxRuns = positiveInt(opts.maxRuns, "--max-runs", 100_000);
  const maxCostUsd = costOption(opts.maxCost);
  let inputs: ReturnType<typeof loadInputs>;
  try {
    inputs = loadInputs(project, opts);
  } catch (error) {
    setupError(error);
  }
  const driver = replayDriver(inputs.baseline.provider);
  if (!driver) throw new CliError(`tapedeck cannot replay ${inputs.baseline.provider} sessions`, EXIT.failed);
  if (opts.dryRun) {
    dryRun(inputs.baseline, arms, repeat, maxRuns, maxCostUsd, opts.json);
    return;
  }
  const controller = new AbortController();
  let x: ReturnType<typeof prepareExperiment>;
  try {
    x = prepareExperiment(
      {
        kind: "experiment",
        project,
        baseline: inputs.baseline,
        driver,
        arms,
        repeat,
        ...(maxRuns !== undefined ? { maxRuns } : {}),
        ...(inputs.scenario ? { scenario: inputs.scenario } : {}),
        ...runOptions(opts, maxCostUsd),
      },
      controller.signal,
    );
  } catch (error) {
    setupError(error);
  }
  note(fields`experiment ${x.record.experiment_id}: ${x.record.runs.length} run(s) in ${x.root}\n`);
  const record = await runWithInterrupt(x, controller);
  const report = buildReport(record);
  if (opts.json) printJson({ experiment_root: x.root, ...report });
  else say(renderReport(report));
  if (controller.signal.aborted) setExitCode(130);
  else if (record.runs.some((r) => r.status === "failed")) setExitCode(EXIT.failed);
}

function dryRun(
  baseline: Baseline,
  arms: ArmSpec[],
  repeat: number,
  maxRuns: number | undefined,
  maxCostUsd: number | undefined,
  json: boolean | undefined,
): void {
  const runs = plannedRuns(arms, repeat);
  const count = Math.min(runs.length, maxRuns ?? runs.length);
  const tokens = baselineTokens(baseline);
  const plan = {
    baseline: baseline.sessionId,
    provider: baseline.provider,
    revision: baseline.revision,
    arms,
    repeat,
    prompts: baseline.prompts.length,
    runs: runs.slice(0, count).map((r) => r.run_id),
    agent_processes: count * baseline.prompts.length,
    worst_case_cost_usd: maxCostUsd ?? null,
    baseline_tokens_per_run: tokens,
    worst_case_tokens: { input: tokens.input * count, output: tokens.output * count },
  };
  if (json) {
    printJson(plan);
    return;
  }
  say(
    `Plan: ${arms.length} arm(s) × ${repeat} repetition(s) × ${baseline.prompts.length} prompt(s) = ${plan.agent_processes} agent run(s)${count < runs.length ? ` (--max-runs ${count} of ${runs.length})` : ""}\n` +
      fields`Baseline ${baseline.sessionId} · ${baseline.provider} · revision ${baseline.revision ?? "none"}\n` +
      arms
        .map(
          (a) =>
            `  arm ${a.name}: native memory ${a.native_memory ? "on" : "off"}, retrieval ${a.retrieval ? "on" : "off"}\n`,
        )
        .join("") +
      `Runs in order: ${plan.runs.join(", ")}\n` +
      `Worst-case cost: ${maxCostUsd !== undefined ? `$${maxCostUsd} (--max-cost stops it there)` : "unbounded (no --max-cost)"}; ` +
      `the baseline used ${tokens.input} input / ${tokens.output} output tokens, so about ${plan.worst_case_tokens.input} / ${plan.worst_case_tokens.output} in all\n`,
  );
}

function listCommand(opts: { project?: string; json?: boolean }): void {
  const project = projectFromOption(opts.project);
  const all = listExperiments(project);
  const rows = all.map(({ dir, record }) => ({
    experiment_id: record.experiment_id,
    kind: record.kind,
    created_at: record.created_at,
    provider: record.provider,
    baseline: record.baseline.session_id,
    arms: record.arms.map((a) => a.name),
    runs: record.runs.length,
    complete: record.runs.filter((r) => r.status === "complete").length,
    stopped: record.stopped?.reason ?? null,
    path: dir,
  }));
  if (opts.json) {
    printJson(rows);
    return;
  }
  if (rows.length === 0) {
    say("No experiments in this project.\n");
    return;
  }
  say(
    rows
      .map(
        // Every field is an experiment record's (a file in the project): one experiment a line.
        (r) =>
          printable(
            `${r.experiment_id}  ${r.kind}  ${r.provider}  ${r.complete}/${r.runs} runs  arms ${r.arms.join(",")}  of ${r.baseline}${r.stopped ? `  (stopped: ${r.stopped})` : ""}`,
          ),
      )
      .join("\n") + "\n",
  );
}

function reportCommand(id: string, opts: { project?: string; json?: boolean; md?: boolean }): void {
  const project = projectFromOption(opts.project);
  // An id names one of the project's experiments wherever it was made (a link follows --experiment-root).
  const record =
    isAbsolute(id) || id.includes("/")
      ? existsSync(resolve(id))
        ? readExperiment(resolve(id))
        : undefined
      : listExperiments(project).find((e) => e.record.experiment_id === id)?.record;
  if (!record)
    throw new CliError(`no experiment "${id}" (tapedeck experiment list shows them)`, EXIT.notFound);
  const report = buildReport(record);
  if (opts.json) printJson(report);
  else if (opts.md) say(renderMarkdown(report));
  else say(renderReport(report));
}

export function register(program: Command): void {
  const experiment = program
    .command("experiment")
    .description("run, list and compare A/B replays of a recorded session");
  experiment
    .command("run")
    .description("replay a baseline (or scenario) in each arm, repeated, and compare the arms")
    .option("--project <dir>", "the project the baseline was recorded in")
    .option("--provider <name>", "the provider the baseline must be")
    .option("--session <session>", "the baseline session")
    .option("--scenario <file>", "a scenario file: its prompts, source session and expected facts")
    .option(
      "--arm <spec>",
      "NAME:native-memory=on|off,retrieval=on|off (repeatable)",
      (v: string, all: string[]) => [...all, v],
      [],
    )
    .option("--repeat <n>", "repetitions of every arm", "1")
    .option("--max-runs <n>", "stop after this many runs")
    .option("--max-cost <usd>", "stop once the runs have cost this much (as the CLIs report it)")
    .option("--aa", "also run the first arm a second time under NAME-aa (an A/A check: the flap rate)")
    .option("--dry-run", "print the plan and the worst-case cost, run nothing")
    .option("--experiment-root <dir>", "where everything goes (default: .tapedeck/experiments/<id>/)")
    .option("--model <model>", "the model every arm asks for")
    .option("--keep", "keep the work trees and config roots")
    .option("--json", "the report as JSON")
    .action(runCommand);
  experiment
    .command("list")
    .description("the experiments and replays of this project")
    .option("--project <dir>", "the project")
    .option("--json", "machine-readable output")
    .action(listCommand);
  experiment
    .command("report <id>")
    .description("compare an experiment's arms (an id from experiment list, or the experiment's directory)")
    .option("--project <dir>", "the project")
    .option("--json", "the report as JSON")
    .option("--md", "the report as Markdown")
    .action(reportCommand);
}
