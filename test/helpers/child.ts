// Runs test/helpers/store-child.ts in a child process with a timeout, so a
// recorder that blocks on a hostile file fails the test instead of hanging it.
// The child is bundled once (no loader, no transpile cache to write: it also
// runs under `ulimit -f 0`).
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll } from "vitest";
import { bundleScript } from "./bundle.ts";

/** Far above what any scenario takes (milliseconds); only a blocked child gets near it. */
export const CHILD_TIMEOUT_MS = 15_000;

let bundled: { js: string; cleanup: () => void } | undefined;

export async function bundleChild(): Promise<() => void> {
  bundled = await bundleScript("test/helpers/store-child.ts");
  return bundled.cleanup;
}

/** At the top of a test file: the child bundled before its tests and removed after them. */
export function useBundledChild(): void {
  let cleanup = () => {};
  beforeAll(async () => {
    cleanup = await bundleChild();
  });
  afterAll(() => cleanup());
}

export interface ChildResult {
  /** false when the child was killed at the timeout: it blocked */
  finished: boolean;
  output: { ok: boolean; result?: unknown; code?: string } | undefined;
}

export function runChild(args: string[], options: { fileSizeLimitZero?: boolean } = {}): ChildResult {
  if (!bundled) throw new Error("bundleChild() first");
  const command = options.fileSizeLimitZero ? "sh" : process.execPath;
  const argv = options.fileSizeLimitZero
    ? ["-c", 'ulimit -f 0; exec "$0" "$@"', process.execPath, bundled.js, ...args]
    : [bundled.js, ...args];
  const r = spawnSync(command, argv, { encoding: "utf8", timeout: CHILD_TIMEOUT_MS, killSignal: "SIGKILL" });
  const finished = r.signal === null && r.error === undefined;
  const line = r.stdout?.trim().split("\n").at(-1);
  let output: ChildResult["output"];
  try {
    output = line ? JSON.parse(line) : undefined;
  } catch {
    output = undefined;
  }
  return { finished, output };
}
