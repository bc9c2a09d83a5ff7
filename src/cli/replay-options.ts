// What `replay` and `experiment run` parse alike: an on/off switch, a cost ceiling, the options their common
// flags set, and the errors of setting a run up (the user's fault or a missing thing), said the same way by
// both (and by `scenario run`, for the missing things).

import { UnsafePathError } from "../core/base/fsutil.ts";
import { printable } from "../core/base/printable.ts";
import { AmbiguousSessionError } from "../core/read/session-resolve.ts";
import { SessionNotFound } from "../core/read/sessions.ts";
import { BaselineError } from "../experiment/baseline.ts";
import { MissingCli } from "../experiment/drivers.ts";
import { IsolationError } from "../experiment/isolation.ts";
import type { StartOptions } from "../experiment/start.ts";
import { CliError, EXIT } from "./cli-error.ts";
import { note } from "./common.ts";

export function onOff(value: string, flag: string): boolean {
  if (value === "on") return true;
  if (value === "off") return false;
  throw new CliError(`${flag} takes on or off, not "${value}"`, EXIT.usage);
}

export function costOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new CliError(`--max-cost takes a positive amount of USD`, EXIT.usage);
  return n;
}

/** The flags both commands take beside their own. */
export interface RunFlags {
  model?: string;
  experimentRoot?: string;
  keep?: boolean;
}

/** The run options those flags (and the --max-cost already parsed) set; progress lines go to stderr. */
export function runOptions(
  flags: RunFlags,
  maxCostUsd: number | undefined,
): Pick<StartOptions, "maxCostUsd" | "model" | "experimentRoot" | "keep" | "progress"> {
  return {
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.experimentRoot ? { experimentRoot: flags.experimentRoot } : {}),
    keep: flags.keep ?? false,
    // A progress line names the baseline's ids and the run's paths: one line each.
    progress: (line) => note(`${printable(line)}\n`),
  };
}

/** A run that could not be set up for want of something: the baseline, an isolated home, the agent's CLI. */
export function isMissingForRun(error: unknown): error is Error {
  return error instanceof BaselineError || error instanceof IsolationError || error instanceof MissingCli;
}

/** What the commands say for the errors of setting up: the user's fault or a missing thing. */
export function setupError(error: unknown): never {
  if (error instanceof AmbiguousSessionError) throw new CliError(error.message, EXIT.usage);
  if (error instanceof SessionNotFound) throw new CliError(error.message, EXIT.notFound);
  if (isMissingForRun(error) || error instanceof UnsafePathError)
    throw new CliError(error.message, EXIT.failed);
  throw error;
}
