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

/** A tier's vitest projects: the unit tier is two, its files sharing a module graph and those that may not. */
function projectsOf(tier: Tier) {
  const project = (name: string, include: string[], exclude: string[], isolate: boolean) => ({
    extends: true as const,
    test: { name, include, exclude, isolate },
  });
  if (tier.name !== "unit") return [project(tier.name, [...tier.include], [...tier.exclude], true)];
  return [
    project("unit", [...tier.include], [...tier.exclude, ISOLATED], false),
    project("unit-isolated", [ISOLATED], [...tier.exclude], true),
  ];
}
