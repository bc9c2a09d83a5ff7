/** mulberry32: a seeded generator in [0, 1), so a failing case can be replayed from its seed. */
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

/** One of `xs`, drawn with `rnd`. */
export function pick<T>(rnd: () => number, xs: ArrayLike<T>): T {
  return xs[Math.floor(rnd() * xs.length)] as T;
}

/** `n` characters of `alphabet`, each drawn with `rnd`. */
export function randomString(rnd: () => number, alphabet: string, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += pick(rnd, alphabet);
  return s;
}

/**
 * A linear congruential generator in [0, 1), also seeded. The byte-stream property tests (proxy/) draw from
 * this one, not mulberry32, so that each of their seeds still gives the case it always gave.
 */
export function lcgRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `bytes` cut into consecutive chunks of the sizes `nextSize` draws (each at least 1). */
export function cutBytes(bytes: Buffer, nextSize: () => number): Buffer[] {
  const out: Buffer[] = [];
  for (let p = 0; p < bytes.length; ) {
    const n = nextSize();
    out.push(bytes.subarray(p, p + n));
    p += n;
  }
  return out;
}
