// The suite's per-user scratch home (vitest.config.ts) is removed when the run ends: a run must not leave
// tapedeck-test-home-* directories behind in the temp directory.
import { rmSync } from "node:fs";

export function teardown(): void {
  const home = process.env.TAPEDECK_TEST_HOME;
  if (home) rmSync(home, { recursive: true, force: true });
}
