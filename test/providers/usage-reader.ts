// What the readers of an agent's own usage file (Claude's transcript, Codex's rollout) are held to alike:
// each hook reads on from where the last one stopped, at most maxBytes, and reports the responses it has not
// seen; the suites hand in their reader, adapted to this shape.
import { appendFileSync, closeSync, openSync, statSync, writeSync } from "node:fs";
import { expect } from "vitest";

export interface UsageRead {
  offset: number;
  /** The response (or message) ids of the usages found. */
  ids: string[];
}

/** One read: from `offset`, past the `seen` ids, of at most `maxBytes` (the reader's default if absent). */
export type ReadUsage<R extends UsageRead> = (
  path: string,
  offset: number,
  seen: string[],
  maxBytes?: number,
) => R;

/** A file read whole in one call: the ids found; the offset is its end. */
export function readWhole<R extends UsageRead>(path: string, read: ReadUsage<R>): string[] {
  const result = read(path, 0, []);
  expect(result.offset).toBe(statSync(path).size);
  return result.ids;
}

/** A file read a slice of at most `maxBytes` at a time, each read moving on, as the hooks of a session do. */
export function readInSlices<R extends UsageRead>(
  path: string,
  read: ReadUsage<R>,
  maxBytes: number,
  maxCalls: number,
): string[] {
  const seen: string[] = [];
  let offset = 0;
  for (let calls = 0; offset < statSync(path).size; calls++) {
    expect(calls).toBeLessThan(maxCalls);
    const result = read(path, offset, seen, maxBytes);
    expect(result.offset).toBeGreaterThan(offset);
    offset = result.offset;
    seen.push(...result.ids);
  }
  return seen;
}

/**
 * 20 MB of countable records (`record(id)`), then `tail`: a read from the tail's offset reads to the end, in
 * well under a second. What it found is returned: a reader that looked before the offset would report more.
 */
export function readAfterLargeFile<R extends UsageRead>(
  path: string,
  record: (id: string) => string,
  tail: string,
  read: ReadUsage<R>,
): R {
  const fd = openSync(path, "w");
  const block = Array.from({ length: 1000 }, (_, i) => record(`old-${i}`)).join("");
  let written = 0;
  for (let i = 0; written < 20 * 1024 * 1024; i++) {
    written += writeSync(fd, block.replaceAll("old-", `old-${i}-`));
  }
  closeSync(fd);
  const offset = statSync(path).size;
  appendFileSync(path, tail);

  const started = performance.now();
  const result = read(path, offset, []);
  const elapsed = performance.now() - started;
  expect(result.offset).toBe(statSync(path).size);
  expect(elapsed).toBeLessThan(250);
  return result;
}
