import { createInterface } from "node:readline/promises";
import { findProjectRoot } from "../core/config.ts";
import { resolveProjectRoot } from "../core/paths.ts";

/** Exit codes: 0 success, 1 the operation failed, 2 the command was used wrongly, 3 nothing found. */
export const EXIT = { ok: 0, failed: 1, usage: 2, notFound: 3 } as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
  }
}

/** The project: `--project`, else the nearest enabled project above the cwd, else the cwd. */
export function projectFromOption(dir: string | undefined): string {
  try {
    if (dir) return resolveProjectRoot(dir);
    const cwd = resolveProjectRoot(process.cwd());
    return findProjectRoot(cwd) ?? cwd;
  } catch {
    throw new CliError(`project directory not found: ${dir ?? process.cwd()}`, EXIT.usage);
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Asks a yes/no question on the terminal; without a terminal the answer is no. */
export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}
