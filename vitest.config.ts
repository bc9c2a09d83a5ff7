import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

// Per-user state (the session registry) goes to a scratch home, never the developer's; the global
// teardown removes it (it finds it through this variable, set in the same main process).
const testHome = join(tmpdir(), `tapedeck-test-home-${process.pid}`);
process.env.TAPEDECK_TEST_HOME = testHome;

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: the e2e files drive real agent CLIs and must not starve each other.
    fileParallelism: true,
    maxWorkers: 2,
    globalSetup: ["test/helpers/global-setup.ts"],
    env: { TAPEDECK_HOME: testHome },
  },
});
