// Running a scenario: `recorded` grades the source session's own final answer and figures (no agent runs);
// `replay` runs the setup messages then the continuation prompt through the replay machinery, one fresh
// isolated session per arm and repetition, and grades each the same way; `both` does the two. Nothing here
// writes to an archive or to the scenario file: results go to their own artifact.
import { join } from "node:path";
import { redactText } from "@tapedeck/redact";
import { nowIso } from "../core/base/fsutil.ts";
import { resolveSession } from "../core/read/session-resolve.ts";
import { SessionNotFound, type SessionRef } from "../core/read/sessions.ts";
import { factChecks, limitChecks, limitHit, type Observation, scoresOf, validatorChecks } from "./checks.ts";
import type { LoadedScenario } from "./load.ts";
import type { Check, Sample, Scenario, ScenarioResult } from "./schema.ts";
import { prefixHash, readSource } from "./source.ts";
import { copyWorkspaceFiles } from "./workspace.ts";

export type Against = "recorded" | "replay" | "both";

export interface ArmOption {
  name: string;
  native_memory: boolean;
  retrieval: boolean;
}

export interface RunOptions {
  project: string;
  against: Against;
  arms: ArmOption[];
  repeat: number;
  keep: boolean;
  experimentRoot?: string;
  env: NodeJS.ProcessEnv;
  progress(line: string): void;
  /** The replay of one arm and repetition: the experiment machinery's, injected by the command. */
  replay?: ReplayRunner;
}

export interface ReplayOutcome {
  runSessionId: string | null;
  archive: string | null;
  workDir: string | null;
  finalAnswer: string | null;
  wallSeconds: number | null;
  agentSeconds: number | null;
  turns: number;
  usage: {
    input: number | null;
    output: number | null;
    cacheRead: number | null;
    cacheCreation: number | null;
  };
  costUsd: number | null;
  labels: Record<string, string>;
  stoppedByDuration: boolean;
  /** Ctrl-C: the remaining runs are not started. */
  interrupted: boolean;
  error: string | null;
  notes: string[];
  experimentRoot: string;
  /** Removes the work tree (after the validators ran in it) unless the user keeps it. */
  cleanup(): void;
}

export type ReplayRunner = (
  scenario: Scenario,
  prompts: string[],
  arm: ArmOption,
  repetition: number,
  source: SessionRef | null,
) => Promise<ReplayOutcome>;

const EXCERPT_CHARS = 2000;

function answerExcerpt(answer: string | null): string | null {
  if (answer === null) return null;
  return answer.length > EXCERPT_CHARS ? `${answer.slice(0, EXCERPT_CHARS)}…` : answer;
}

function findSource(project: string, s: Scenario): SessionRef | null {
  try {
    // A scenario may come from a replay's session as well as from a recording.
    return resolveSession(
      { project, ...(s.source_session.provider ? { provider: s.source_session.provider } : {}) },
      s.source_session.session_id,
    );
  } catch (error) {
    if (error instanceof SessionNotFound) return null;
    throw error;
  }
}

function sample(
  base: Pick<Sample, "against" | "arm" | "repetition" | "labels" | "run_session_id" | "archive">,
  checks: Check[],
  o: Observation,
  extra: Pick<Sample, "total_time" | "working_time" | "error" | "notes"> & {
    usage: Sample["model_usage"];
  },
): Sample {
  return {
    ...base,
    passed: extra.error === null && checks.every((c) => c.outcome !== "fail"),
    scores: scoresOf(checks),
    checks,
    final_answer_excerpt: answerExcerpt(o.finalAnswer),
    model_usage: extra.usage,
    turn_count: o.turns,
    injected_bytes: o.injectedBytes,
    total_time: extra.total_time,
    working_time: extra.working_time,
    limit: limitHit(checks),
    error: extra.error,
    notes: extra.notes,
  };
}

const seconds = (a: string | null, b: string | null): number | null => {
  const d = a && b ? Date.parse(b) - Date.parse(a) : Number.NaN;
  return Number.isFinite(d) ? Math.max(0, d) / 1000 : null;
};

async function gradeRecorded(loaded: LoadedScenario, o: RunOptions): Promise<Sample> {
  const s = loaded.scenario;
  const base = {
    against: "recorded" as const,
    arm: "recorded",
    repetition: 0,
    labels: { provider: s.source_session.provider },
    run_session_id: s.source_session.session_id,
    archive: null,
  };
  const none: Observation = {
    finalAnswer: null,
    durationSeconds: null,
    inputTokens: null,
    outputTokens: null,
    turns: null,
    injectedBytes: null,
    costUsd: null,
  };
  const nullUsage = {
    input_tokens: null,
    output_tokens: null,
    cache_read_input_tokens: null,
    cache_creation_input_tokens: null,
    cost_usd: null,
  };
  const ref = findSource(o.project, s);
  if (!ref) {
    const error = `the source session ${s.source_session.session_id} is not in this project's archive any more: there is no recorded answer to grade (--against replay still runs it)`;
    return sample(base, [], none, {
      total_time: null,
      working_time: null,
      error,
      notes: [],
      usage: nullUsage,
    });
  }
  const notes: string[] = [];
  const src = s.source_session;
  if (src.events_sha256 && typeof src.events_bytes === "number") {
    const now = prefixHash(ref.dir, src.events_bytes);
    if (now !== src.events_sha256)
      notes.push("the source archive's events differ from those the scenario was derived from");
  }
  const r = readSource(ref.dir, src.events ?? undefined);
  const duration = seconds(r.firstTimestamp, r.lastTimestamp);
  const input = r.usage.seen ? r.usage.input_tokens + r.usage.cache_read + r.usage.cache_creation : null;
  const obs: Observation = {
    finalAnswer: r.finalAnswer,
    durationSeconds: duration,
    inputTokens: input,
    outputTokens: r.usage.seen ? r.usage.output_tokens : null,
    turns: r.prompts.length,
    injectedBytes: r.injectedBytes,
    costUsd: r.costUsd,
  };
  const checks = [
    ...factChecks(s, r.finalAnswer),
    // The recorded session worked in the project itself: its validators run there.
    ...(await validatorChecks(s, o.project, o.env, o.progress)),
    ...limitChecks(s.limits, obs),
  ];
  return sample({ ...base, archive: ref.dir }, checks, obs, {
    total_time: duration,
    working_time: null,
    error: r.finalAnswer === null ? "the source session has no recorded final answer in its range" : null,
    notes,
    usage: {
      input_tokens: input,
      output_tokens: obs.outputTokens,
      cache_read_input_tokens: r.usage.seen ? r.usage.cache_read : null,
      cache_creation_input_tokens: r.usage.seen ? r.usage.cache_creation : null,
      cost_usd: r.costUsd,
    },
  });
}

async function gradeReplay(
  loaded: LoadedScenario,
  o: RunOptions,
  arm: ArmOption,
  repetition: number,
): Promise<{ sample: Sample; root: string; interrupted: boolean }> {
  const s = loaded.scenario;
  const prompts = [...s.setup_messages.map((m) => m.prompt), s.continuation_prompt];
  if (!o.replay) throw new Error("no replay runner");
  const r = await o.replay(s, prompts, arm, repetition, findSource(o.project, s));
  try {
    // The archive's answer is the recorded, redacted one; the CLI's own is redacted here before it is evidence.
    const answer = r.finalAnswer === null ? null : redactText(r.finalAnswer).text;
    const input =
      r.usage.input === null ? null : r.usage.input + (r.usage.cacheRead ?? 0) + (r.usage.cacheCreation ?? 0);
    const obs: Observation = {
      finalAnswer: answer,
      durationSeconds: r.agentSeconds,
      inputTokens: input,
      outputTokens: r.usage.output,
      turns: r.turns,
      injectedBytes: r.archive ? readSource(r.archive).injectedBytes : null,
      costUsd: r.costUsd,
    };
    const files = s.workspace?.files ?? [];
    if (r.workDir && files.length > 0) r.notes.push(...copyWorkspaceFiles(o.project, r.workDir, files));
    const checks = [
      ...factChecks(s, answer),
      ...(await validatorChecks(s, r.workDir, o.env, o.progress)),
      ...limitChecks(s.limits, obs),
    ];
    if (r.stoppedByDuration) {
      const c = checks.find((k) => k.id === "max_duration_seconds");
      if (c) {
        c.outcome = "fail";
        c.evidence = `stopped at ${s.limits.max_duration_seconds}s: the run went past its duration`;
        c.measured = Math.max(c.measured ?? 0, s.limits.max_duration_seconds ?? 0);
      }
    }
    const made = sample(
      {
        against: "replay",
        arm: arm.name,
        repetition,
        labels: r.labels,
        run_session_id: r.runSessionId,
        archive: r.archive,
      },
      checks,
      obs,
      {
        total_time: r.wallSeconds,
        working_time: r.agentSeconds,
        error: r.error,
        notes: r.notes,
        usage: {
          input_tokens: input,
          output_tokens: r.usage.output,
          cache_read_input_tokens: r.usage.cacheRead,
          cache_creation_input_tokens: r.usage.cacheCreation,
          cost_usd: r.costUsd,
        },
      },
    );
    return { sample: made, root: r.experimentRoot, interrupted: r.interrupted };
  } finally {
    r.cleanup();
  }
}

/** The result artifact, and whether Ctrl-C ended a replay (the remaining ones were then not run). */
export async function runScenario(
  loaded: LoadedScenario,
  o: RunOptions,
): Promise<{ result: ScenarioResult; interrupted: boolean }> {
  const samples: Sample[] = [];
  const roots: string[] = [];
  let interrupted = false;
  if (o.against !== "replay") samples.push(await gradeRecorded(loaded, o));
  if (o.against !== "recorded") {
    outer: for (let rep = 1; rep <= o.repeat; rep++) {
      for (let i = 0; i < o.arms.length; i++) {
        // The arm order rotates with the repetition, as in an experiment: a drift in time (a warming cache,
        // a busier machine) does not always fall on the same arm.
        const arm = o.arms[(i + rep - 1) % o.arms.length]!;
        o.progress(`replay · arm ${arm.name} · repetition ${rep}/${o.repeat}`);
        const done = await gradeReplay(loaded, o, arm, rep);
        samples.push(done.sample);
        roots.push(done.root);
        if (done.interrupted) {
          interrupted = true;
          break outer;
        }
      }
    }
  }
  const result: ScenarioResult = {
    schema_version: 1,
    scenario: { id: loaded.scenario.id, sha256: loaded.sha256, path: loaded.path },
    source_session_id: loaded.scenario.source_session.session_id,
    against: o.against,
    created_at: nowIso(),
    experiment_root: roots.length > 0 ? commonParent(roots) : null,
    passed: samples.length > 0 && samples.every((x) => x.passed),
    samples,
  };
  return { result, interrupted };
}

function commonParent(roots: string[]): string {
  return roots.length === 1 ? roots[0]! : join(roots[0]!, "..");
}
