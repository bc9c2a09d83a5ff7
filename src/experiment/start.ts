// Setting up an experiment (or a single replay) from the CLI's options, and running it with Ctrl-C handled:
// the current run is ended and recorded as interrupted, work trees go unless --keep, the file stays whole.
import { existsSync } from "node:fs";
import { isInside, tapedeckDir } from "../core/archive/paths.ts";
import { builtFile } from "../core/base/built-file.ts";
import { ensureRealDirUnder, nowIso } from "../core/base/fsutil.ts";
import type { Fact } from "../core/ports/facts.ts";
import type { ReplayDriver } from "../core/ports/replay-driver.ts";
import { writeExperimentLink } from "../core/read/experiment-links.ts";
import type { Baseline } from "./baseline.ts";
import { driverBinary } from "./drivers.ts";
import { checkRevision, ensurePrivateRoot, removeLiveSecrets } from "./isolation.ts";
import {
  cliVersion,
  type Experiment,
  experimentRoot,
  newExperimentId,
  plannedRuns,
  runExperiment,
} from "./orchestrator.ts";
import { type ArmSpec, type ExperimentRecord, writeExperiment } from "./record.ts";

export interface StartOptions {
  kind: ExperimentRecord["kind"];
  project: string;
  baseline: Baseline;
  driver: ReplayDriver;
  arms: ArmSpec[];
  repeat: number;
  maxRuns?: number;
  maxCostUsd?: number;
  model?: string;
  experimentRoot?: string;
  keep: boolean;
  timeoutMs?: number;
  progress(line: string): void;
  env?: Record<string, string | undefined>;
  /** The facts each run's final answer is graded on (a scenario file's: scenario/experiment-input.ts). */
  scenario?: { id: string; path: string; expectedFacts: Fact[]; forbiddenFacts: Fact[] };
}

export function prepareExperiment(o: StartOptions, signal: AbortSignal): Experiment {
  const env = o.env ?? process.env;
  const bin = driverBinary(o.driver, env);
  checkRevision(o.project, o.baseline.revision);
  const id = newExperimentId();
  const root = experimentRoot(o.project, id, o.experimentRoot);
  const cliJs = builtFile("cli.js");
  if (!existsSync(cliJs)) throw new Error(`${cliJs} is missing: run npm run build`);
  // Under the project's .tapedeck every component must be a real directory: a planted symlink there would
  // send work trees and credentials elsewhere.
  if (isInside(tapedeckDir(o.project), root)) ensureRealDirUnder(o.project, root, true);
  else ensurePrivateRoot(root);
  const record: ExperimentRecord = {
    schema_version: 1,
    experiment_id: id,
    kind: o.kind,
    created_at: nowIso(),
    provider: o.driver.provider,
    cli_version: cliVersion(bin, o.driver),
    model_requested: o.model ?? null,
    baseline: {
      session_id: o.baseline.sessionId,
      archive: o.baseline.ref.dir,
      project_root: o.project,
      revision: o.baseline.revision,
    },
    prompt_count: o.baseline.prompts.length,
    scenario: o.scenario
      ? {
          id: o.scenario.id,
          path: o.scenario.path,
          expected_facts: o.scenario.expectedFacts,
          forbidden_facts: o.scenario.forbiddenFacts,
        }
      : null,
    arms: o.arms,
    repeat: o.repeat,
    max_runs: o.maxRuns ?? null,
    max_cost_usd: o.maxCostUsd ?? null,
    runs: plannedRuns(o.arms, o.repeat),
    stopped: null,
  };
  writeExperiment(root, record);
  // Made elsewhere, it is still this project's: a link under .tapedeck/experiments lets list, show and the
  // viewer find its sessions.
  if (!isInside(tapedeckDir(o.project), root)) writeExperimentLink(o.project, id, root);
  if (o.maxCostUsd !== undefined && !o.driver.reportsCost) {
    o.progress(
      `${o.driver.cli.name} reports no cost: --max-cost cannot stop this experiment (--max-runs can)`,
    );
  }
  return {
    project: o.project,
    baseline: o.baseline,
    driver: o.driver,
    bin,
    cliJs,
    root,
    record,
    keep: o.keep,
    timeoutMs: o.timeoutMs ?? 10 * 60_000,
    userEnv: env,
    signal,
    progress: o.progress,
  };
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * Runs it; the first Ctrl-C (or SIGTERM, or the terminal closing) stops cleanly, a second signal leaves at
 * once. Either way the copied credentials go first, synchronously: Node's default for a signal (a second
 * Ctrl-C, a `kill`, a closed terminal) exited without running any finally, and left the user's
 * .credentials.json or auth.json in the run's config root, --keep or not.
 */
export async function runWithInterrupt(
  x: Experiment,
  controller: AbortController,
): Promise<ExperimentRecord> {
  const onSignal = (signal: NodeJS.Signals) => {
    removeLiveSecrets();
    if (controller.signal.aborted) process.exit(signal === "SIGINT" ? 130 : 128 + 15);
    x.progress("interrupted: ending the current run (Ctrl-C again to leave at once)");
    controller.abort();
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  try {
    return await runExperiment(x);
  } finally {
    for (const s of STOP_SIGNALS) process.off(s, onSignal);
  }
}
