// experiment.json: the plan and, per run, what happened. Written whole (atomically, 0600) after every
// change, so an interrupted experiment leaves a consistent file; it references archives, never copies them.
import { join } from "node:path";
import { readJsonOrUndefined, writeJsonAtomicSync } from "../core/base/fsutil.ts";
import type { Fact } from "../core/ports/facts.ts";
import type { TurnUsage } from "../core/ports/replay-driver.ts";
import { experimentRoots } from "../core/read/experiment-links.ts";

export const EXPERIMENT_FILE = "experiment.json";

export interface ArmSpec {
  name: string;
  native_memory: boolean;
  retrieval: boolean;
}

export interface TurnRecord {
  index: number;
  ok: boolean;
  exit_code: number | null;
  duration_ms: number;
  answer?: string;
  cost_usd?: number;
  ttft_ms?: number;
  usage?: TurnUsage;
  model?: string;
  error?: string;
}

export type RunStatus = "planned" | "running" | "complete" | "failed" | "interrupted" | "skipped";

export interface RunRecord {
  run_id: string;
  arm: string;
  repetition: number;
  status: RunStatus;
  native_memory: boolean;
  retrieval: boolean;
  started_at?: string;
  ended_at?: string;
  wall_ms?: number;
  /** The agents' own time: the sum of the turns' process times. */
  agent_ms?: number;
  /** The new session: the archive id and the provider's id. */
  session_id?: string;
  provider_session_id?: string;
  archive?: string;
  settings_root?: string;
  session_root?: string;
  /** The run's directory: its sessions and hook timings stay there. */
  run_dir?: string;
  /** Each hook process was timed (hook-timing.ts). */
  hook_timing?: boolean;
  work_dir?: string;
  work_kind?: "clone" | "copy";
  kept?: boolean;
  turns: TurnRecord[];
  final_answer?: string;
  cost_usd?: number;
  error?: string;
  notes: string[];
}

export interface ExperimentRecord {
  schema_version: 1;
  experiment_id: string;
  kind: "replay" | "experiment";
  created_at: string;
  provider: string;
  cli_version: string | null;
  model_requested: string | null;
  baseline: { session_id: string; archive: string; project_root: string; revision: string | null };
  prompt_count: number;
  /** The scenario the prompts and checks came from, when the experiment runs one. */
  scenario: { id: string; path: string; expected_facts: Fact[]; forbidden_facts: Fact[] } | null;
  arms: ArmSpec[];
  repeat: number;
  max_runs: number | null;
  max_cost_usd: number | null;
  runs: RunRecord[];
  stopped: { reason: string } | null;
}

export function writeExperiment(root: string, record: ExperimentRecord): void {
  writeJsonAtomicSync(join(root, EXPERIMENT_FILE), record);
}

export function readExperiment(root: string): ExperimentRecord | undefined {
  const value = readJsonOrUndefined<ExperimentRecord>(join(root, EXPERIMENT_FILE));
  return value && typeof value === "object" && value.schema_version === 1 && Array.isArray(value.runs)
    ? value
    : undefined;
}

/** A project's experiments and replays, those made with --experiment-root elsewhere included; newest first. */
export function listExperiments(project: string): Array<{ dir: string; record: ExperimentRecord }> {
  const out: Array<{ dir: string; record: ExperimentRecord }> = [];
  for (const dir of experimentRoots(project)) {
    const record = readExperiment(dir);
    if (record) out.push({ dir, record });
  }
  return out.sort((a, b) => b.record.created_at.localeCompare(a.record.created_at));
}
