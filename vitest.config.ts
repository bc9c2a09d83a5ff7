import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { AGENT_TAGS, ISOLATED, TIERS, type Tier } from "./test/tiers.ts";

// Per-user state (the session registry) goes to a scratch home, never the developer's; the global
// teardown removes it (it finds it through this variable, set in the same main process).
const testHome = join(tmpdir(), `tapedeck-test-home-${process.pid}`);
process.env.TAPEDECK_TEST_HOME = testHome;

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores: the e2e files drive real agent CLIs and must not starve each other.
    fileParallelism: true,
    maxWorkers: 2,
    globalSetup: ["test/helpers/global-setup.ts"],
    env: { TAPEDECK_HOME: testHome },
    // The e2e files name the agents and peers they run (`// @module-tag claude`): `npm run test:e2e claude`.
    tags: AGENT_TAGS.map((name) => ({ name })),
    // Which file is in which tier is test/tiers.ts's rule, held by test/architecture/tiers.test.ts.
    projects: TIERS.flatMap(projectsOf),
  },
});

/**
 * A tier's vitest projects: the unit and cli tiers are two each, their files sharing a module graph and those
 * that may not (test/tiers.ts); an isolated file of the cli tier lives in test/cli/.
 */
function projectsOf(tier: Tier) {
  const project = (name: string, include: string[], exclude: string[], isolate: boolean) => ({
    extends: true as const,
    test: { name, include, exclude, isolate },
  });
  const isolated = tier.name === "unit" ? ISOLATED : "test/cli/**/*.isolated.test.ts";
  if (tier.name !== "unit" && tier.name !== "cli") {
    return [project(tier.name, [...tier.include], [...tier.exclude], true)];
  }
  return [
    project(tier.name, [...tier.include], [...tier.exclude, ISOLATED], false),
    project(`${tier.name}-isolated`, [isolated], [...tier.exclude], true),
  ];
}
