// One replay of a scenario through the experiment machinery (src/experiment/): its prompts through the
// provider's real CLI into a fresh, isolated, recorded session. Each arm and repetition is an experiment of
// one run, so its duration limit has a signal of its own: a run past it is stopped (its process group
// killed) and marked, the next one still starts. The work tree is kept until the validators ran in it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Manifest } from "../core/archive/schemas.ts";
import type { TurnUsage } from "../core/ports/replay-driver.ts";
import type { SessionRef } from "../core/read/sessions.ts";
import type { Baseline } from "../experiment/baseline.ts";
import { replayDriver } from "../experiment/drivers.ts";
import { removeRunScratch } from "../experiment/isolation.ts";
import { prepareExperiment, runWithInterrupt } from "../experiment/start.ts";
import type { ArmOption, ReplayOutcome, ReplayRunner } from "./run.ts";
import type { Scenario } from "./schema.ts";
import { readSource } from "./source.ts";

export class ReplayUnavailable extends Error {
  override name = "ReplayUnavailable";
}

/**
 * The baseline the orchestrator wants, from the scenario: its prompts (as edited), its revision, and the
 * source's identity. A source session that is gone still replays: the scenario holds all a replay needs.
 */
function baselineOf(project: string, s: Scenario, prompts: string[], source: SessionRef | null): Baseline {
  const src = s.source_session;
  const revision = s.workspace?.revision ?? src.repository_revision;
  const dir = source?.dir ?? join(project, src.archive ?? "");
  // Only the archive id, the revision and the prompts are read by the orchestrator (prepareExperiment and
  // runExperiment); a gone source has no manifest, so one stands in with the scenario's own values.
  const manifest = source?.manifest ?? ({ session_id: src.session_id, provider: src.provider } as Manifest);
  return {
    ref: source ?? { dir, root: dir, manifest, spooled_events: 0 },
    manifest,
    sessionId: src.session_id,
    provider: src.provider,
    projectRoot: project,
    revision,
    prompts,
  };
}

export interface ReplayRunnerOptions {
  project: string;
  keep: boolean;
  experimentRoot?: string;
  env: NodeJS.ProcessEnv;
  progress(line: string): void;
}

function usageSum(turns: Array<{ usage?: TurnUsage }>, key: keyof TurnUsage): number | null {
  let seen = false;
  let total = 0;
  for (const t of turns) {
    const v = t.usage?.[key];
    if (typeof v === "number") {
      seen = true;
      total += v;
    }
  }
  return seen ? total : null;
}

export function makeReplayRunner(o: ReplayRunnerOptions): ReplayRunner {
  return async (s, prompts, arm: ArmOption, repetition, source): Promise<ReplayOutcome> => {
    const driver = replayDriver(s.source_session.provider);
    if (!driver) throw new ReplayUnavailable(`tapedeck cannot replay ${s.source_session.provider} sessions`);
    const controller = new AbortController();
    const limitMs = (s.limits.max_duration_seconds ?? 0) * 1000;
    let timer: NodeJS.Timeout | undefined;
    let stoppedByDuration = false;
    const x = prepareExperiment(
      {
        kind: "experiment",
        project: o.project,
        baseline: baselineOf(o.project, s, prompts, source),
        driver,
        arms: [arm],
        repeat: 1,
        ...(s.limits.max_cost_usd ? { maxCostUsd: s.limits.max_cost_usd } : {}),
        ...(o.experimentRoot ? { experimentRoot: join(o.experimentRoot, `${arm.name}-r${repetition}`) } : {}),
        // Validators run in the work tree after the run: it is removed here once they did.
        keep: true,
        // A turn's own timeout comes after the run's duration, so the stop is always the duration's.
        ...(limitMs > 0 ? { timeoutMs: limitMs + 5000 } : {}),
        env: o.env,
        progress: (line) => {
          // The duration counts from the first prompt: cloning and installing are not the agent's time.
          if (limitMs > 0 && timer === undefined && / prompt 1\//.test(line)) {
            timer = setTimeout(() => {
              stoppedByDuration = true;
              controller.abort();
            }, limitMs);
          }
          o.progress(line);
        },
      },
      controller.signal,
    );
    let record: Awaited<ReturnType<typeof runWithInterrupt>>;
    try {
      record = await runWithInterrupt(x, controller);
    } finally {
      clearTimeout(timer);
    }
    const run = record.runs[0]!;
    const fromArchive = run.archive ? readSource(run.archive).finalAnswer : null;
    const workDir = run.work_dir && existsSync(run.work_dir) ? run.work_dir : null;
    const error = stoppedByDuration
      ? `stopped at max_duration_seconds (${s.limits.max_duration_seconds}s)`
      : run.status === "complete"
        ? null
        : (run.error ?? run.status);
    return {
      runSessionId: run.session_id ?? null,
      archive: run.archive ?? null,
      workDir,
      finalAnswer: fromArchive ?? run.final_answer ?? null,
      wallSeconds: run.wall_ms === undefined ? null : run.wall_ms / 1000,
      agentSeconds: run.agent_ms === undefined ? null : run.agent_ms / 1000,
      turns: run.turns.length,
      usage: {
        input: usageSum(run.turns, "input_tokens"),
        output: usageSum(run.turns, "output_tokens"),
        cacheRead: usageSum(run.turns, "cache_read_input_tokens"),
        cacheCreation: usageSum(run.turns, "cache_creation_input_tokens"),
      },
      costUsd: run.cost_usd ?? null,
      labels: {
        provider: record.provider,
        native_memory: arm.native_memory ? "on" : "off",
        retrieval: arm.retrieval ? "on" : "off",
        ...(record.cli_version ? { cli_version: record.cli_version } : {}),
        ...(record.baseline.revision ? { revision: record.baseline.revision } : {}),
        experiment_id: record.experiment_id,
      },
      stoppedByDuration,
      interrupted: run.status === "interrupted" && !stoppedByDuration,
      error,
      notes: run.notes,
      experimentRoot: x.root,
      cleanup: () => {
        if (!o.keep && run.work_dir) {
          removeRunScratch({ work: run.work_dir, home: join(run.work_dir, "..", "home") });
        }
      },
    };
  };
}
