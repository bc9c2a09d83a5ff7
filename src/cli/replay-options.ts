// What `replay` and `experiment run` parse alike: an on/off switch, a cost ceiling, and the errors of setting a
// run up (the user's fault or a missing thing), said the same way by both.
import { SessionNotFound } from "../core/archive.ts";
import { UnsafePathError } from "../core/fsutil.ts";
import { AmbiguousSessionError } from "../core/session-resolve.ts";
import { BaselineError } from "../experiment/baseline.ts";
import { MissingCli } from "../experiment/drivers.ts";
import { IsolationError } from "../experiment/isolation.ts";
import { CliError, EXIT } from "./errors.ts";

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

/** What the commands say for the errors of setting up: the user's fault or a missing thing. */
export function setupError(error: unknown): never {
  if (error instanceof AmbiguousSessionError) throw new CliError(error.message, EXIT.usage);
  if (error instanceof SessionNotFound) throw new CliError(error.message, EXIT.notFound);
  if (
    error instanceof BaselineError ||
    error instanceof IsolationError ||
    error instanceof MissingCli ||
    error instanceof UnsafePathError
  ) {
    throw new CliError(error.message, EXIT.failed);
  }
  throw error;
}
