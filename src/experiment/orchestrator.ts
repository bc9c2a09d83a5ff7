// Runs replays: one run is the baseline's prompts through the provider's real CLI in a work tree and config
// root of its own, recorded by tapedeck's hooks into the run's own session root; an experiment is runs of
// several arms, repeated, one after another. See docs/experiments.md.
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { redactText } from "@tapedeck/redact";
import { loadRedactionRules } from "@tapedeck/redact/rules-file";
import { isInside, tapedeckDir } from "../core/archive/paths.ts";
import { ensureDir, nowIso } from "../core/base/fsutil.ts";
import type {
  ArmSettings,
  PreparedHome,
  ReplayDriver,
  Spawn,
  TurnOutcome,
} from "../core/ports/replay-driver.ts";
import { listSessions } from "../core/read/sessions.ts";
import { agentSessionEnv, installerFor } from "../providers/catalog.ts";
import type { Baseline } from "./baseline.ts";
import { installHookTimer } from "./hook-timing.ts";
import {
  createWorkTree,
  IsolationError,
  removeRunScratch,
  removeSecrets,
  runDirs,
  trackSecrets,
} from "./isolation.ts";
import { copyMemoryKey, copyMemoryStore } from "./memory-copy.ts";
import { makeSpawner } from "./process.ts";
import { type ArmSpec, type ExperimentRecord, type RunRecord, writeExperiment } from "./record.ts";

export const ARM_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/**
 * Variables of the caller's own session: a replay started from inside an agent must not inherit them. These
 * are the shell's and tapedeck's; each provider names its own (agentSessionEnv).
 */
const NOT_INHERITED = [
  /^HOME$/,
  /^PWD$/,
  /^OLDPWD$/,
  /^TAPEDECK_(PROJECT_DIR|REPLAY_OF|ARM|ARM_LABELS|EXPERIMENT_ID|NATIVE_MEMORY|RETRIEVAL)$/,
];

export function inheritedEnv(env: Record<string, string | undefined>): Record<string, string> {
  // Every provider's, not only the replayed one's: the caller may be inside any agent.
  const excluded = [...NOT_INHERITED, ...agentSessionEnv()];
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && !excluded.some((re) => re.test(k))) out[k] = v;
  }
  return out;
}

export interface Experiment {
  project: string;
  baseline: Baseline;
  driver: ReplayDriver;
  bin: string;
  /** dist/cli.js: installs tapedeck into each run's work tree. */
  cliJs: string;
  root: string;
  record: ExperimentRecord;
  keep: boolean;
  timeoutMs: number;
  userEnv: Record<string, string | undefined>;
  signal: AbortSignal;
  progress(line: string): void;
  /** Tests replace the spawner; production runs makeSpawner. */
  spawn?: Spawn;
}

/**
 * What a run's record keeps of the agent's own output (answers, errors): redacted with the project's policy
 * first, then cut, since a cut could split a credential the rules would no longer recognise.
 */
export function cleanText(project: string, text: string, max = 4000): string {
  return redactText(text, loadRedactionRules(project).rules).text.slice(0, max);
}

export function newExperimentId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-");
  return `exp-${stamp}-${randomBytes(3).toString("hex")}`;
}

/**
 * The experiment's directory: the one given, or `.tapedeck/experiments/<id>/` of the project. A directory
 * inside the project's tree (but outside .tapedeck) would put the runs' work trees in the user's tree.
 */
export function experimentRoot(project: string, id: string, given?: string): string {
  if (!given) return join(tapedeckDir(project), "experiments", id);
  const dir = resolve(given);
  if (isInside(project, dir) && !isInside(tapedeckDir(project), dir)) {
    throw new IsolationError(
      `--experiment-root ${dir} is inside the project's tree: choose a directory outside it (or under .tapedeck/)`,
    );
  }
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    throw new IsolationError(`--experiment-root ${dir} is not empty: give a new or empty directory`);
  }
  return dir;
}

export function cliVersion(bin: string, driver: ReplayDriver): string | null {
  try {
    const { command, args } = nodeScript(bin, ["--version"]);
    const out = execFileSync(command, args, {
      encoding: "utf8",
      timeout: 30_000,
      stdio: ["ignore", "pipe", "ignore"],
    });
    return out.trim().split("\n")[0]?.slice(0, 100) ?? null;
  } catch {
    return driver.cli.name;
  }
}

/** A CLI shipped as a node script (gemini) runs under this node: no `node` lookup on the agent's PATH. */
export function nodeScript(command: string, args: string[]): { command: string; args: string[] } {
  return /\.(c|m)?js$/.test(command)
    ? { command: process.execPath, args: [command, ...args] }
    : { command, args };
}

export function plannedRuns(arms: ArmSpec[], repeat: number): RunRecord[] {
  const runs: RunRecord[] = [];
  for (let rep = 1; rep <= repeat; rep++) {
    // The arm order rotates with the repetition: a drift in time (a warming cache, a busier machine) does
    // not always fall on the same arm.
    for (let i = 0; i < arms.length; i++) {
      const arm = arms[(i + rep - 1) % arms.length]!;
      runs.push({
        run_id: `${arm.name}-r${rep}`,
        arm: arm.name,
        repetition: rep,
        status: "planned",
        native_memory: arm.native_memory,
        retrieval: arm.retrieval,
        turns: [],
        notes: [],
      });
    }
  }
  return runs;
}

function spent(record: ExperimentRecord): number {
  return record.runs.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0);
}

/** Runs every planned run in order; a guard or Ctrl-C stops before the next one and says why. */
export async function runExperiment(x: Experiment): Promise<ExperimentRecord> {
  const record = x.record;
  ensureDir(x.root);
  let started = 0;
  for (const run of record.runs) {
    if (run.status !== "planned") continue;
    const stop = x.signal.aborted
      ? "interrupted (Ctrl-C)"
      : record.max_runs !== null && started >= record.max_runs
        ? `the run guard: --max-runs ${record.max_runs} reached`
        : record.max_cost_usd !== null && spent(record) >= record.max_cost_usd
          ? `the cost guard: $${spent(record).toFixed(4)} spent of --max-cost ${record.max_cost_usd}`
          : null;
    if (stop) {
      for (const r of record.runs) if (r.status === "planned") r.status = "skipped";
      record.stopped = { reason: stop };
      x.progress(`stopped: ${stop}`);
      break;
    }
    started += 1;
    await runOne(x, run);
    writeExperiment(x.root, record);
  }
  writeExperiment(x.root, record);
  return record;
}

/** What every record of the run is labelled with, so no figure is read without its setting. */
function armLabels(x: Experiment, run: RunRecord, prepared: PreparedHome): Record<string, string> {
  const labels: Record<string, string> = {
    provider: x.driver.provider,
    settings_root: prepared.settingsRoot,
    session_root: run.session_root ?? "",
    repetition: String(run.repetition),
  };
  if (x.record.cli_version) labels.cli_version = x.record.cli_version;
  if (x.record.model_requested) labels.model_requested = x.record.model_requested;
  if (x.baseline.revision) labels.revision = x.baseline.revision;
  return labels;
}

function armEnv(x: Experiment, run: RunRecord, home: string, prepared: PreparedHome): Record<string, string> {
  return {
    ...inheritedEnv(x.userEnv),
    HOME: home,
    ...prepared.env,
    TAPEDECK_REPLAY_OF: x.baseline.sessionId,
    TAPEDECK_ARM: run.arm,
    TAPEDECK_EXPERIMENT_ID: x.record.experiment_id,
    TAPEDECK_NATIVE_MEMORY: run.native_memory ? "on" : "off",
    TAPEDECK_RETRIEVAL: run.retrieval ? "on" : "off",
    TAPEDECK_ARM_LABELS: JSON.stringify(armLabels(x, run, prepared)),
  };
}

/** tapedeck's hooks in the run's work tree, recording into the run's own session root. */
async function install(
  x: Experiment,
  spawn: Spawn,
  work: string,
  sessions: string,
  env: Record<string, string>,
) {
  const args = [x.cliJs, "install", x.driver.provider, "--project", work, "--transport", "command"];
  args.push("--session-root", sessions, "--yes", "--json");
  const result = await spawn(process.execPath, args, { cwd: work, env });
  if (result.code !== 0) {
    throw new IsolationError(
      `installing tapedeck in the run's work tree failed: ${result.stderr.trim().slice(0, 300)}`,
    );
  }
}

function timeHooks(x: Experiment, run: RunRecord, dirs: { work: string; home: string }): boolean {
  const settings = installerFor(x.driver.provider)?.settingsPath(dirs.work);
  const timed = installHookTimer({
    home: dirs.home,
    runDir: run.run_dir!,
    hookJs: join(dirname(x.cliJs), "hook.cjs"),
    settingsFiles: settings ? [settings] : [],
  });
  if (!timed)
    run.notes.push("hook time per event not measured (the hook commands could not be pointed at the timer)");
  return timed;
}

/** tapedeck's retrieval in the run's work tree, over a copy of the project's memory store (never the store). */
async function retrievalOn(
  x: Experiment,
  spawn: Spawn,
  run: RunRecord,
  work: string,
  env: Record<string, string>,
) {
  const args = [x.cliJs, "retrieval", "on", "--project", work, "--provider", x.driver.provider];
  const result = await spawn(process.execPath, args, { cwd: work, env });
  if (result.code !== 0) {
    throw new IsolationError(
      `switching retrieval on in the run's work tree failed: ${result.stderr.trim().slice(0, 300)}`,
    );
  }
  if (!copyMemoryStore(x.project, work))
    run.notes.push("the project has no memory store: retrieval has nothing to add");
}

async function runOne(x: Experiment, run: RunRecord): Promise<void> {
  const spawn = x.spawn ?? makeSpawner({ timeoutMs: x.timeoutMs, signal: x.signal });
  const dirs = runDirs(join(x.root, "runs", run.run_id));
  const t0 = Date.now();
  run.status = "running";
  run.started_at = nowIso();
  run.work_dir = dirs.work;
  run.run_dir = join(x.root, "runs", run.run_id);
  run.session_root = dirs.sessions;
  writeExperiment(x.root, x.record);
  let secrets: string[] = [];
  try {
    const tree = createWorkTree(x.project, x.baseline.revision, dirs.work);
    run.work_kind = tree.kind;
    run.notes.push(...(x.baseline.notes ?? []), ...tree.notes);
    const settings: ArmSettings = {
      nativeMemory: run.native_memory,
      retrieval: run.retrieval,
      ...(x.record.model_requested ? { model: x.record.model_requested } : {}),
    };
    ensureDir(dirs.home);
    x.driver.prepareWork?.({ work: dirs.work, home: dirs.home }, settings);
    const prepared = x.driver.prepareHome(
      { work: dirs.work, home: dirs.home },
      { userHome: x.userEnv.HOME ?? "", userEnv: x.userEnv },
      settings,
    );
    secrets = prepared.secrets;
    trackSecrets(secrets);
    run.settings_root = prepared.settingsRoot;
    const env = armEnv(x, run, dirs.home, prepared);
    await install(x, spawn, dirs.work, dirs.sessions, env);
    run.hook_timing = timeHooks(x, run, dirs);
    if (run.retrieval) {
      const key = copyMemoryKey(x.userEnv, dirs.home);
      if (key) {
        secrets.push(key);
        trackSecrets([key]);
      }
      await retrievalOn(x, spawn, run, dirs.work, env);
    }
    await turns(x, run, spawn, dirs.work, env, settings);
  } catch (error) {
    run.status = x.signal.aborted ? "interrupted" : "failed";
    run.error = error instanceof Error ? cleanText(x.project, error.message, 500) : "failed";
  } finally {
    // A failed run's partial session is evidence too.
    if (run.provider_session_id) findArchive(x, run, dirs.work);
    removeSecrets(secrets);
    if (!x.keep) removeRunScratch(dirs);
    run.kept = x.keep;
    run.ended_at = nowIso();
    run.wall_ms = Date.now() - t0;
    run.agent_ms = run.turns.reduce((s, t) => s + t.duration_ms, 0);
  }
}

async function turns(
  x: Experiment,
  run: RunRecord,
  spawn: Spawn,
  work: string,
  env: Record<string, string>,
  settings: ArmSettings,
): Promise<void> {
  const prompts = x.baseline.prompts;
  const newSessionId = randomUUID();
  let sessionId: string | undefined;
  const t0 = Date.now();
  for (let i = 0; i < prompts.length; i++) {
    if (x.signal.aborted) throw new Error("interrupted (Ctrl-C)");
    x.progress(
      `${run.arm} · repetition ${run.repetition} · prompt ${i + 1}/${prompts.length} · ${Math.round((Date.now() - t0) / 1000)}s`,
    );
    const budget = x.record.max_cost_usd !== null ? x.record.max_cost_usd - spent(x.record) : undefined;
    const turn = { index: i, prompt: prompts[i]!, newSessionId, ...(sessionId ? { sessionId } : {}) };
    const turnSettings = budget !== undefined ? { ...settings, maxCostUsd: Math.max(0, budget) } : settings;
    const line = x.driver.command(x.bin, turn, turnSettings);
    const { command, args } = nodeScript(line.command, line.args);
    const input = line.input !== undefined ? { input: line.input } : {};
    const outcome: TurnOutcome = x.driver.parse(
      await spawn(command, args, { cwd: work, env, ...input }),
      turn,
    );
    run.turns.push({
      index: i,
      ok: outcome.ok,
      exit_code: outcome.exitCode,
      duration_ms: outcome.durationMs,
      ...(outcome.answer !== undefined ? { answer: cleanText(x.project, outcome.answer) } : {}),
      ...(outcome.costUsd !== undefined ? { cost_usd: outcome.costUsd } : {}),
      ...(outcome.ttftMs !== undefined ? { ttft_ms: outcome.ttftMs } : {}),
      ...(outcome.usage ? { usage: outcome.usage } : {}),
      ...(outcome.model ? { model: outcome.model } : {}),
      ...(outcome.error ? { error: cleanText(x.project, outcome.error, 500) } : {}),
    });
    if (outcome.costUsd !== undefined) run.cost_usd = (run.cost_usd ?? 0) + outcome.costUsd;
    sessionId ??= outcome.sessionId;
    if (!run.provider_session_id && sessionId) run.provider_session_id = sessionId;
    if (!outcome.ok) throw new Error(`prompt ${i + 1}/${prompts.length}: ${outcome.error ?? "failed"}`);
    if (!sessionId) throw new Error(`prompt ${i + 1}: ${x.driver.cli.name} reported no session id`);
    run.final_answer = outcome.answer !== undefined ? cleanText(x.project, outcome.answer) : undefined;
  }
  run.status = "complete";
}

/** The run's archive: the session of its own root whose provider id is the one the CLI reported. */
function findArchive(x: Experiment, run: RunRecord, work: string): void {
  const sessions = listSessions(work, x.driver.provider);
  const ref = sessions.find((s) => s.manifest.provider_session_id === run.provider_session_id);
  if (!ref) {
    run.notes.push("no recorded session was found for this run: its hooks did not record");
    return;
  }
  run.session_id = ref.manifest.session_id;
  run.archive = ref.dir;
}
