import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: the e2e files drive real agent CLIs and must not starve each other.
    fileParallelism: true,
    maxWorkers: 2,
    // Per-user state (the session registry) goes to a scratch home, never the developer's.
    env: { TAPEDECK_HOME: join(tmpdir(), `tapedeck-test-home-${process.pid}`) },
  },
});
