// Shared helpers for the benchmarks: timing, medians, temp dirs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Wall time of one run of a command, in milliseconds. */
export function timeCommand(cmd: string, args: string[], input?: string, env?: NodeJS.ProcessEnv): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { input, env: env ?? process.env, stdio: ["pipe", "ignore", "ignore"] });
  const t1 = process.hrtime.bigint();
  if (r.error) throw r.error;
  return Number(t1 - t0) / 1e6;
}

/**
 * Runs the candidates interleaved (a, b, c, a, b, c, …) so that a slow
 * moment of the machine hits all of them alike; answers each one's samples.
 */
export function interleaved(
  runs: number,
  candidates: Record<string, () => number>,
): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const name of Object.keys(candidates)) out[name] = [];
  for (let i = 0; i < runs; i += 1) {
    for (const [name, fn] of Object.entries(candidates)) out[name]!.push(fn());
  }
  return out;
}

export function round(n: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** `interleaved` for candidates that must not block the event loop (a server in this process answers them). */
export async function interleavedAsync(
  runs: number,
  candidates: Record<string, () => Promise<number>>,
): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = {};
  for (const name of Object.keys(candidates)) out[name] = [];
  for (let i = 0; i < runs; i += 1) {
    for (const [name, fn] of Object.entries(candidates)) out[name]!.push(await fn());
  }
  return out;
}
