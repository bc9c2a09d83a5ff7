// Statistics for the handful of runs an experiment has: intervals and exact tests that stay honest at
// n = 2..20, where a normal approximation would claim differences that are noise.

export interface Interval {
  estimate: number;
  low: number;
  high: number;
}

/** Wilson score interval of a proportion (95% by default): sensible even at 0/n and n/n. */
export function wilson(passes: number, n: number, z = 1.959964): Interval | null {
  if (n <= 0 || passes < 0 || passes > n) return null;
  const p = passes / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { estimate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/**
 * McNemar's exact test: of the discordant pairs, `b` passed only in the first arm and `c` only in the
 * second; under no difference each is Binomial(b + c, 1/2). Two-sided p-value.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  let tail = 0;
  for (let i = 0; i <= k; i++) tail += Math.exp(logChoose(n, i) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}

/** A small seeded generator (mulberry32): the same experiment gives the same report every time. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Percentile bootstrap interval (95%) of the mean of paired differences. */
export function pairedBootstrap(diffs: readonly number[], iterations = 2000, seed = 1): Interval | null {
  const n = diffs.length;
  if (n === 0) return null;
  const mean = diffs.reduce((s, d) => s + d, 0) / n;
  const random = seededRandom(seed);
  const means: number[] = [];
  for (let i = 0; i < iterations; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += diffs[Math.floor(random() * n)]!;
    means.push(s / n);
  }
  means.sort((x, y) => x - y);
  const at = (q: number) => means[Math.min(iterations - 1, Math.max(0, Math.floor(q * iterations)))]!;
  return { estimate: mean, low: at(0.025), high: at(0.975) };
}

export interface FlipTable {
  pass_pass: number;
  pass_fail: number;
  fail_pass: number;
  fail_fail: number;
}

export function flipTable(pairs: ReadonlyArray<readonly [boolean, boolean]>): FlipTable {
  const t: FlipTable = { pass_pass: 0, pass_fail: 0, fail_pass: 0, fail_fail: 0 };
  for (const [a, b] of pairs) {
    if (a && b) t.pass_pass += 1;
    else if (a) t.pass_fail += 1;
    else if (b) t.fail_pass += 1;
    else t.fail_fail += 1;
  }
  return t;
}

/** Fewer pairs than this and a comparison says "not enough evidence" whatever the numbers. */
export const MIN_PAIRS = 3;
/**
 * With fewer discordant pairs than this, McNemar's exact test cannot reach p < 0.05 at all (5 of 5 gives
 * p = 0.0625): the test is not run as if it could.
 */
export const MIN_DISCORDANT = 6;

export type Verdict = "not enough evidence" | "no clear difference" | "difference";

export function passVerdict(pairs: number, table: FlipTable): { verdict: Verdict; p: number | null } {
  const discordant = table.pass_fail + table.fail_pass;
  if (pairs < MIN_PAIRS || discordant < MIN_DISCORDANT) return { verdict: "not enough evidence", p: null };
  const p = mcnemarExact(table.pass_fail, table.fail_pass);
  return { verdict: p < 0.05 ? "difference" : "no clear difference", p };
}

export function metricVerdict(diffs: readonly number[], interval: Interval | null): Verdict {
  if (diffs.length < MIN_PAIRS || !interval) return "not enough evidence";
  return interval.low > 0 || interval.high < 0 ? "difference" : "no clear difference";
}
