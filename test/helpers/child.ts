// Runs test/helpers/store-child.ts in a child process with a timeout, so a
// recorder that blocks on a hostile file fails the test instead of hanging it.
// The child is bundled once (no loader, no transpile cache to write: it also
// runs under `ulimit -f 0`).
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { build } from "esbuild";
import { tempProject } from "./session.ts";

/** Far above what any scenario takes (milliseconds); only a blocked child gets near it. */
export const CHILD_TIMEOUT_MS = 15_000;

let bundled: { js: string; cleanup: () => void } | undefined;

export async function bundleChild(): Promise<() => void> {
  const out = tempProject("tapedeck-child-");
  const js = join(out.root, "store-child.mjs");
  await build({
    entryPoints: ["test/helpers/store-child.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: js,
    logLevel: "warning",
  });
  bundled = { js, cleanup: out.cleanup };
  return out.cleanup;
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
