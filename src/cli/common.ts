import { createInterface } from "node:readline/promises";
import type { ProjectConfig } from "../core/archive/config.ts";
import { printableJson, printableText } from "../core/base/printable.ts";
import { projectRoot } from "./project.ts";
import { isProvider, PROVIDERS } from "./providers.ts";

export { CliError, EXIT } from "./cli-error.ts";

import { CliError, EXIT } from "./cli-error.ts";
import { io } from "./io.ts";

/** The project every command acts on (the one rule of ./project.ts). */
export function projectFromOption(dir: string | undefined): string {
  return projectRoot(dir);
}

/** A `--provider` value: one tapedeck knows, or a usage error (a typo must not list nothing, silently). */
export function checkProvider(provider: string | undefined): string | undefined {
  if (provider === undefined || isProvider(provider)) return provider;
  throw new CliError(`unknown provider "${provider}" (use ${PROVIDERS.join(", ")})`, EXIT.usage);
}

/** The providers a command covers: the `--provider` asked for, else every one the config installs, in its order. */
export function providersIn(config: ProjectConfig | undefined, asked: string | undefined): string[] {
  const provider = checkProvider(asked);
  return provider ? [provider] : Object.keys(config?.providers ?? {});
}

export function printJson(value: unknown): void {
  io().stdout.write(`${printableJson(value)}\n`);
}

/** Human output on stdout: whatever came from the archive or a project file cannot steer the terminal. */
export function say(text: string): void {
  io().stdout.write(printableText(text));
}

/** Human output on stderr, likewise. */
export function note(text: string): void {
  io().stderr.write(printableText(text));
}

/** Asks a yes/no question on the terminal; without a terminal the answer is no. */
export async function confirm(question: string): Promise<boolean> {
  if (!io().stdin.isTTY) return false;
  const rl = createInterface({ input: io().stdin, output: io().stderr });
  try {
    const answer = await rl.question(`${printableText(question)} [y/N] `);
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
