// A test's child script bundled once per file into a temp directory, so each of the many processes it starts
// begins in milliseconds (no loader, no transpile cache to write: a child may run under `ulimit -f 0`).
import { basename, join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll } from "vitest";
import { workspacePackages } from "../../scripts/workspace-packages.mjs";
import { tempProject } from "./temp-project.ts";

export interface BundleOptions {
  /** CommonJS dependencies (commander, the SDK) kept external, resolved from the checkout. */
  externalPackages?: boolean;
}

/** Bundles `entry` (a path from the checkout's root); the bundle and the function that removes it. */
export async function bundleScript(
  entry: string,
  options: BundleOptions = {},
): Promise<{ js: string; cleanup: () => void }> {
  const out = tempProject("tapedeck-child-");
  const js = join(out.root, `${basename(entry, ".ts")}.mjs`);
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: js,
    logLevel: "warning",
    ...(options.externalPackages ? { packages: "external" as const } : {}),
    plugins: [workspacePackages],
  });
  return { js, cleanup: out.cleanup };
}

/** At the top of a test file: `entry` bundled before its tests, removed after them; returns the bundle's path. */
export function useBundledScript(entry: string, options: BundleOptions = {}): () => string {
  let bundled: { js: string; cleanup: () => void } | undefined;
  beforeAll(async () => {
    bundled = await bundleScript(entry, options);
  });
  afterAll(() => bundled?.cleanup());
  return () => {
    if (!bundled) throw new Error(`${entry} is bundled in beforeAll`);
    return bundled.js;
  };
}
