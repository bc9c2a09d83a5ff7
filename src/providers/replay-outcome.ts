// What every replay driver's turn outcome says of the turn's process, whatever the CLI printed: how it ended,
// how long it ran, and the reason given when the turn failed.
import type { Spawn, TurnOutcome } from "../core/ports/replay-driver.ts";

type TurnRun = Awaited<ReturnType<Spawn>>;

/** How the process ended and how long it ran. */
export function processOutcome(
  run: TurnRun,
): Pick<TurnOutcome, "exitCode" | "signal" | "timedOut" | "durationMs"> {
  return { exitCode: run.code, signal: run.signal, timedOut: run.timedOut, durationMs: run.durationMs };
}

/** Why a turn failed: its timeout, else what the CLI reported, else how `cli` exited. */
export function failureReason(cli: string, run: TurnRun, reported?: string): string {
  return run.timedOut ? "timed out" : (reported ?? `${cli} exited with ${run.code ?? run.signal}`);
}
